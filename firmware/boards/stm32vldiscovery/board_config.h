/* STM32 kits (STM32F100 of the STM32VLDISCOVERY, STM32F405 of the Netduino
 * Plus 2; the STM32F103 and STM32L432 timed on QEMU's STM32F100 and STM32L475
 * machines): one image for the chip and for QEMU's model of the kit. The stamp
 * timer is the DWT cycle counter where it counts (silicon), else SysTick
 * (QEMU has no DWT); board_init() finds out which, before anything is stamped. */
#ifndef BOARD_CONFIG_H
#define BOARD_CONFIG_H

#include <stdint.h>

/* BOARD_NAME, BOARD_CPU, BOARD_CPU_CLOCK_HZ and the family (STM32_F1, with
 * STM32_F103 for the performance line, STM32_F4 or STM32_L4) come from
 * board.toml's cflags. */
#define BOARD_TEXT_OF(x) #x
#define BOARD_TEXT(x) BOARD_TEXT_OF(x)
#define BOARD_CPU_CLOCK_HZ_TEXT BOARD_TEXT(BOARD_CPU_CLOCK_HZ)

/* The RAM of the smallest kit (8 KB on the STM32F100RB): the kernel's heap
 * holds the idle task and four 1 KB task stacks. The STM32L432, linked with
 * its chip's own 64 KB (nucleo-l432kc/memory.ld), has the MPS2 boards' heap:
 * the idle task and sixteen. */
#if defined(STM32_L4)
#define BOARD_KERNEL_HEAP_BYTES (24 * 1024)
#else
#define BOARD_KERNEL_HEAP_BYTES 5632
#endif

/* 1: stamps from DWT_CYCCNT (cycles of the chip); 0: from SysTick. */
extern uint32_t board_stamp_with_dwt;

/*
 * The window's points (switchscope/probe.h): every method's code at a point
 * is one asm statement of the stamp's 50 bytes with these clobbers (the
 * scope's call's: AAPCS's caller-saved registers), so that each method's build
 * lays out the same program.
 */
#define BOARD_POINT(code) code
#define BOARD_POINT_CLOBBERS "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory"
/* the rest of a point whose method's code takes `bytes` (a string) of it */
#define BOARD_POINT_FILL(bytes) "\n\t.rept (50 - (" bytes ")) / 2\n\tnop\n\t.endr\n\t"

/* One timer read in one fixed sequence, its count stored into the uint32_t
 * with a static address that operand [to] names: test the flag, then on QEMU the
 * mps2 board's SysTick read (both addresses formed, the load, then at once
 * the store), on the chip the same read of DWT_CYCCNT and a branch to the
 * store. The test and the branch are in the calibration as in every window;
 * being in one asm statement, no compiler optimisation moves them. */
#define BOARD_STAMP_CODE                                                      \
    "movw r1, #:lower16:board_stamp_with_dwt\n\t"                             \
    "movt r1, #:upper16:board_stamp_with_dwt\n\t"                             \
    "ldr r1, [r1]\n\t"                                                        \
    "movw r0, #:lower16:%c[to]\n\t"                                              \
    "movt r0, #:upper16:%c[to]\n\t"                                              \
    "cmp r1, #0\n\t"                                                          \
    "beq.w 1f\n\t"                                                            \
    "movw r1, #0x1004\n\t"                                                    \
    "movt r1, #0xE000\n\t"                                                    \
    "ldr r1, [r1]\n\t"                                                        \
    "b.w 2f\n"                                                                \
    "1:\n\t"                                                                  \
    "movw r1, #0xE018\n\t"                                                    \
    "movt r1, #0xE000\n\t"                                                    \
    "ldr r1, [r1]\n"                                                          \
    "2:\n\t"                                                                  \
    "str r1, [r0]"

/* SysTick's COUNTFLAG, as on mps2; the 32-bit cycle counter wraps after
 * more than 25 s, which the host's modulo arithmetic absorbs. */
#define BOARD_STAMP_WRAP_CLEAR() ((void)*(volatile uint32_t *)0xE000E010u)
#define BOARD_STAMP_WRAPPED() (board_stamp_with_dwt ? 0u : (*(volatile uint32_t *)0xE000E010u >> 16) & 1u)

/* TIM4's interrupt line: the timer is never started, so only the pend fires it. */
#define BOARD_SOFT_IRQ_NUMBER 30
#define BOARD_SOFT_IRQ_PRIORITY 0xC0

#if defined(STM32_F4)
/* The latency timer (irq-latency): TIM2, interrupt 28 (RM0090's vector table), at the priority irq_priority
 * chooses. */
#define BOARD_LATENCY_IRQ_NUMBER 28
#include "switchscope/latency_priority.h"
#endif

/* The scope pin: a kit's LED, set and cleared through its GPIO port's BSRR
 * at the labels board_scope_high_edge and board_scope_low_edge. */
void board_scope_high(void);
void board_scope_low(void);
#define BOARD_SCOPE_HIGH_CODE "bl board_scope_high"
#define BOARD_SCOPE_HIGH_BYTES 4
#define BOARD_SCOPE_LOW_CODE "bl board_scope_low"
#define BOARD_SCOPE_LOW_BYTES 4

#endif
