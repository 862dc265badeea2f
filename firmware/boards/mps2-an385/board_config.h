/* mps2-an385: Cortex-M3 at 25 MHz. The stamp timer is SysTick, which the
 * kernel also uses for its tick, so the stamp wraps at the tick period. */
#ifndef BOARD_CONFIG_H
#define BOARD_CONFIG_H

#include <stdint.h>
#include "switchscope/config_value.h"

/* The build passes both from board.toml, also for a board that shares this code (mps2-an386). */
#ifndef BOARD_NAME
#define BOARD_NAME "mps2-an385"
#endif
#ifndef BOARD_CPU
#define BOARD_CPU "cortex-m3"
#endif
#define BOARD_CPU_CLOCK_HZ 25000000u
#define BOARD_CPU_CLOCK_HZ_TEXT "25000000"

/* Its flush, idle, exit and description are common/cortex_m_semihosted.c's. */
#define BOARD_SEMIHOSTED 1

/*
 * The window's points (switchscope/probe.h): every method's code at a point
 * is one asm statement of the stamp's 20 bytes with these clobbers (the
 * scope's call's: AAPCS's caller-saved registers), so that each method's build
 * lays out the same program.
 */
#define BOARD_POINT(code) code
#define BOARD_POINT_CLOBBERS "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory"
/* the rest of a point whose method's code takes `bytes` (a string) of it */
#define BOARD_POINT_FILL(bytes) "\n\t.rept (20 - (" bytes ")) / 2\n\tnop\n\t.endr\n\t"

/*
 * Store the SysTick current value into the uint32_t with a static address
 * that operand [to] names, with a fixed instruction sequence that the compiler
 * cannot reschedule: four instructions form both addresses, one load reads
 * the timer, one store keeps the count. An opening stamp puts only its store
 * inside the window, a closing stamp only its four address instructions, and
 * calibration times exactly those five.
 */
#define BOARD_STAMP_CODE                                               \
    "movw r0, #:lower16:%c[to]\n\t"                                       \
    "movt r0, #:upper16:%c[to]\n\t"                                       \
    "movw r1, #0xE018\n\t"                                             \
    "movt r1, #0xE000\n\t"                                             \
    "ldr r1, [r1]\n\t"                                                 \
    "str r1, [r0]"

/* SysTick's COUNTFLAG, outside the window on both sides: reading the control
 * register clears it before the opening stamp; read after the closing one, it
 * says whether the count reached 0 in between (the kernel's tick handler
 * never reads the register). */
#define BOARD_STAMP_WRAP_CLEAR() ((void)*(volatile uint32_t *)0xE000E010u)
#define BOARD_STAMP_WRAPPED() ((*(volatile uint32_t *)0xE000E010u >> 16) & 1u)

/* An external interrupt line no device of the board drives. */
#define BOARD_SOFT_IRQ_NUMBER 30

/* NVIC priority of the software interrupt: below the kernel's syscall
 * ceiling (so it may call the kernel) and above the kernel's own level. */
#define BOARD_SOFT_IRQ_PRIORITY 0xC0

/* load=voip's timer: the CMSDK APB timer TIMER0 (interrupt 8), clocked at
 * 25 MHz, at the software interrupt's priority (it calls the kernel too). */
#define BOARD_LOAD_IRQ_NUMBER 8
#define BOARD_LOAD_TIMER_HZ 25000000u

/* The latency timer (irq-latency): the CMSDK APB timer TIMER1 (interrupt 9),
 * at 25 MHz, at the priority irq_priority chooses. */
#define BOARD_LATENCY_IRQ_NUMBER 9
#include "switchscope/latency_priority.h"


/*
 * The scope pin: the FPGA IO register that drives the board's LEDs, written
 * in subroutines, as embOS's LED_SetLED0()/LED_ClrLED0(). The pin changes
 * when the store executes; the simulator timestamps the stores at the
 * labels board_scope_high_edge and board_scope_low_edge.
 */
#define BOARD_SCOPE_PIN "LED0"
#define BOARD_SCOPE_HIGH_CODE "bl board_scope_high"
#define BOARD_SCOPE_HIGH_BYTES 4
#define BOARD_SCOPE_LOW_CODE "bl board_scope_low"
#define BOARD_SCOPE_LOW_BYTES 4

#endif
