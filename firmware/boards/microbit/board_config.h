/* microbit: the nRF51822 of the BBC micro:bit, a Cortex-M0 (ARMv6-M) at
 * 16 MHz. Also microbit-m0plus, the same code built for the Cortex-M0+. The
 * stamp timer is SysTick, which the kernel also uses for its tick, so the
 * stamp wraps at the tick period. */
#ifndef BOARD_CONFIG_H
#define BOARD_CONFIG_H

#include <stdint.h>
#include "switchscope/config_value.h"

/* The build passes both from board.toml, also for the board that shares this code (microbit-m0plus). */
#ifndef BOARD_NAME
#define BOARD_NAME "microbit"
#endif
#ifndef BOARD_CPU
#define BOARD_CPU "cortex-m0"
#endif
#define BOARD_CPU_CLOCK_HZ 16000000u
#define BOARD_CPU_CLOCK_HZ_TEXT "16000000"

/* Its flush, idle, exit and description are common/cortex_m_semihosted.c's. */
#define BOARD_SEMIHOSTED 1

/* 16 KB of RAM: the kernel's heap holds the idle task and eight 1 KB task
 * stacks (board.toml's max_tasks); the rest is the harness's and the main stack's. */
#define BOARD_KERNEL_HEAP_BYTES 10240

/*
 * The window's points (switchscope/probe.h): every method's code at a point
 * is one asm statement the size of a stamp with these clobbers (the scope's
 * call's: AAPCS's caller-saved registers), so that each method's build lays
 * out the same program. A stamp's size depends on where its literals fall
 * (.ltorg aligns them to a word), so the fill has the stamp's shape: 2-byte
 * instructions, then a branch over a word-aligned pool of two words, its
 * alignment at the stamp's, as long as the method's code before it is a
 * whole number of words (the scope's call is one).
 */
#define BOARD_POINT(code) code
#define BOARD_POINT_CLOBBERS "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory"
/* the rest of a point whose method's code takes `bytes` (a string) of it */
#define BOARD_POINT_FILL(bytes)                                        \
    "\n\t.rept (8 - (" bytes ")) / 2\n\tnop\n\t.endr\n\t"                \
    "b 9f\n\t.balign 4\n\t.word 0, 0\n9:\n\t"

/*
 * Store the SysTick current value into the uint32_t with a static address
 * that operand [to] names, with a fixed instruction sequence that the compiler
 * cannot reschedule. ARMv6-M has no MOVW/MOVT and its literal loads reach
 * only 1 KB forward: both addresses are literals placed right after the
 * sequence, which branches over them. Two literal loads form the addresses,
 * one load reads the timer, one store keeps the count, then the branch. An
 * opening stamp puts its store and its branch inside the window, a closing
 * stamp its two address loads, and calibration times exactly those four. The
 * simulator recognises the timer's load by the literal load of SysTick's
 * address before it.
 */
#define BOARD_STAMP_CODE                                               \
    "ldr r0, =%c[to]\n\t"                                                 \
    "ldr r1, =0xE000E018\n\t"                                          \
    "ldr r1, [r1]\n\t"                                                 \
    "str r1, [r0]\n\t"                                                 \
    "b 1f\n\t"                                                         \
    ".ltorg\n"                                                         \
    "1:"

/* SysTick's COUNTFLAG, outside the window on both sides: reading the control
 * register clears it before the opening stamp; read after the closing one, it
 * says whether the count reached 0 in between (the kernel's tick handler
 * never reads the register). */
#define BOARD_STAMP_WRAP_CLEAR() ((void)*(volatile uint32_t *)0xE000E010u)
#define BOARD_STAMP_WRAPPED() ((*(volatile uint32_t *)0xE000E010u >> 16) & 1u)

/* An external interrupt line no peripheral of the nRF51 drives (31 is unused:
 * QEMU's machine has 32 lines, the nRF51 numbers them by peripheral ID). */
#define BOARD_SOFT_IRQ_NUMBER 31

/* NVIC priority of the software interrupt: the Cortex-M0 implements two
 * priority bits (7:6), so 0x80, below the kernel's calls (0x00 masks nothing
 * on ARMv6-M: kernels mask with PRIMASK) and above the kernel's own level (0xC0). */
#define BOARD_SOFT_IRQ_PRIORITY 0x80

/* load=voip's timer: nRF51 TIMER0 (interrupt 8), at 16 MHz, at the software
 * interrupt's priority (it calls the kernel too). */
#define BOARD_LOAD_IRQ_NUMBER 8
#define BOARD_LOAD_TIMER_HZ 16000000u

/* The latency timer (irq-latency): nRF51 TIMER1 (interrupt 9), at 16 MHz;
 * irq_priority=high is 0x00, the highest of the four levels. */
#define BOARD_LATENCY_IRQ_NUMBER 9
#include "switchscope/latency_priority.h"

/*
 * The scope pin: GPIO P0.13, set through OUTSET and cleared through OUTCLR
 * in subroutines, as embOS's LED_SetLED0()/LED_ClrLED0(). The pin changes
 * when the store executes; the simulator timestamps the stores at the labels
 * board_scope_high_edge and board_scope_low_edge.
 */
#define BOARD_SCOPE_PIN "P0.13"
void board_scope_high(void);
void board_scope_low(void);
#define BOARD_SCOPE_HIGH_CODE "bl board_scope_high"
#define BOARD_SCOPE_HIGH_BYTES 4
#define BOARD_SCOPE_LOW_CODE "bl board_scope_low"
#define BOARD_SCOPE_LOW_BYTES 4

#endif
