/*
 * What a Cortex-M board that QEMU runs to its end shares (BOARD_SEMIHOSTED
 * in its board_config.h: mps2-an385, microbit): the flush of the stream's
 * batch, an idle that spins, the exit by semihosting, and the board's
 * description from its board_config.h.
 */
#if defined(__arm__)
#include "switchscope/board.h"
#include "switchscope/cortex_m.h"

#if BOARD_SEMIHOSTED
/* What board_write holds back: cortex_m.c's batch, where the simulator runner asked for one. */
void board_flush(void) { cortex_m_batch_flush(); }

/* Idle spins, through a straight run of NOPs: one translated block for QEMU
 * where a loop around an empty function was five per dozen instructions. (WFI
 * let QEMU skip to the tick, but each wake-up cost more host time than the
 * spin.) No window contains the idle task. */
void board_idle(void) { __asm__ volatile(".rept 64\n nop\n .endr"); }

void board_exit(int code)
{
    board_flush();
    cortex_m_semihosting_exit(code);
}

#define CORTEX_M_STRINGIFY(x) #x
#define CORTEX_M_TEXT(x) CORTEX_M_STRINGIFY(x)

void board_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("board"), SS_TEXT(BOARD_NAME));
    emit(SS_TEXT("cpu"), SS_TEXT(BOARD_CPU));
    emit(SS_TEXT("f_cpu_hz"), SS_TEXT(BOARD_CPU_CLOCK_HZ_TEXT));
    emit(SS_TEXT("scope_pin"), SS_TEXT(BOARD_SCOPE_PIN));
    emit(SS_TEXT("config.latency_irq_priority"), SS_TEXT(CORTEX_M_TEXT(BOARD_LATENCY_IRQ_PRIORITY)));
}
#endif
#endif
