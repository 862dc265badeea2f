/*
 * Helpers every Cortex-M board shares (firmware/common/cortex_m.c): the reset
 * and vector table, SysTick and the software interrupt, semihosting and the
 * fault report. The board supplies BOARD_SOFT_IRQ_NUMBER and
 * BOARD_SOFT_IRQ_PRIORITY in its board_config.h.
 */
#ifndef SWITCHSCOPE_CORTEX_M_H
#define SWITCHSCOPE_CORTEX_M_H

#include <stddef.h>
#include <stdint.h>

/* 1 on ARMv6-M (Cortex-M0, M0+): Thumb-1 only (no MOVW/MOVT, IT, CBZ), no STIR,
 * no BASEPRI, the NVIC's priority registers reached a word at a time. */
#if defined(__ARM_ARCH_6M__)
#define CORTEX_M_ARMV6M 1
#else
#define CORTEX_M_ARMV6M 0
#endif

/* The core's own registers, the same on every Cortex-M. */
#define CORTEX_M_REG(addr) (*(volatile uint32_t *)(addr))
#define SYSTICK_CTRL CORTEX_M_REG(0xE000E010u)
#define SYSTICK_LOAD CORTEX_M_REG(0xE000E014u)
#define SYSTICK_CTRL_CLKSOURCE_CPU 0x4u

/* SysTick's count, read by a plain call (the harness's pacing, outside the
 * windows): at an offset from SysTick's base, so that the simulator, which
 * logs the probe's own reads of the count register, does not see it. */
uint32_t cortex_m_systick_now(void);

/* The software interrupt, BOARD_SOFT_IRQ_NUMBER at BOARD_SOFT_IRQ_PRIORITY
 * (board_config.h): enabled by the board's init; board_soft_irq_pend() pends
 * it through NVIC STIR. */
void cortex_m_soft_irq_enable(void);

#define SEMIHOSTING_SYS_GET_CMDLINE 0x15
#define SEMIHOSTING_SYS_EXIT_EXTENDED 0x20
#define SEMIHOSTING_APPLICATION_EXIT 0x20026

/* A semihosting call: a debugger, or QEMU, answers it; on a bare chip it is a fault. */
int cortex_m_semihosting(int operation, void *argument);
/* The command line the host passed ("samples=1000 ..."), or "". */
const char *cortex_m_semihosting_cmdline(void);
/* End the simulation with this exit code. */
void cortex_m_semihosting_exit(int code) __attribute__((noreturn));

/* The record stream in batches through semihosting, where the simulator runner asked for it (run parameter
 * stream=semihosting; cortex_m.c says why): cortex_m_batch_stream_start() reads the parameters once, at
 * board_init; cortex_m_batch_write() keeps the bytes and returns 1, or returns 0 where the stream is the
 * UART's (the image read over its UART, as a board), for the board to write them there;
 * cortex_m_batch_flush() sends what is kept (board_flush). */
void cortex_m_batch_stream_start(void);
int cortex_m_batch_write(const uint8_t *data, size_t len);
void cortex_m_batch_flush(void);

void board_fault_handler(void);

/* A board whose board_config.h defines BOARD_SEMIHOSTED as 1 is run by QEMU
 * to its end and takes board_flush, board_idle, board_exit and
 * board_describe from cortex_m_semihosted.c: flush sends the batch, idle
 * spins, exit flushes and ends by semihosting, and the description is
 * board_config.h's (BOARD_SCOPE_PIN, BOARD_LATENCY_IRQ_PRIORITY). */
#ifndef BOARD_SEMIHOSTED
#define BOARD_SEMIHOSTED 0
#endif

/* A board with a latency timer: the code its interrupt enters first (it reads
 * the timer, then runs switchscope_latency_irq). */
void board_latency_entry(void);

/* That entry on ARMv7-M, for a timer whose count reads at the address
 * `high`:`low` (16-bit halves, as text): the read is its third instruction
 * ([latency_timer] read_offset 3), kept in board_latency_read, then
 * switchscope_latency_irq (r0 and r1 were stacked by the exception entry).
 * `section`: the section it is linked from. */
#define CORTEX_M_LATENCY_ENTRY(section, low, high)                           \
    __asm__(".syntax unified\n"                                              \
            ".thumb\n"                                                       \
            ".section " section ", \"ax\", %progbits\n"                      \
            ".global board_latency_entry\n"                                  \
            ".type board_latency_entry, %function\n"                         \
            ".thumb_func\n"                                                  \
            "board_latency_entry:\n"                                         \
            "    movw r0, #" low "\n"                                        \
            "    movt r0, #" high "\n"                                       \
            "    ldr r0, [r0]\n"                                             \
            "    movw r1, #:lower16:board_latency_read\n"                    \
            "    movt r1, #:upper16:board_latency_read\n"                    \
            "    str r0, [r1]\n"                                             \
            "    b switchscope_latency_irq\n"                                \
            ".size board_latency_entry, . - board_latency_entry\n"           \
            ".text\n")

#endif
