/* ibex: lowRISC's Ibex in its simple_system, on Verilator. The stamp timer is
 * mcycle, the core's cycle counter: its low 32 bits wrap every 2^32 cycles. */
#ifndef BOARD_CONFIG_H
#define BOARD_CONFIG_H

#include <stdint.h>

/* The build passes both from board.toml, also for a board that shares this code (ibex-maxperf). */
#ifndef BOARD_NAME
#define BOARD_NAME "ibex"
#endif
#ifndef BOARD_CPU
#define BOARD_CPU "rv32imc"
#endif
#define BOARD_CPU_CLOCK_HZ 50000000u
#define BOARD_CPU_CLOCK_HZ_TEXT "50000000"

/* simple_system's devices: the output and halt registers, the machine timer. */
#define BOARD_OUTPUT_ADDRESS 0x20000u
#define BOARD_HALT_ADDRESS 0x20008u
#define BOARD_MTIME_ADDRESS 0x30000u
#define BOARD_MTIMECMP_ADDRESS 0x30008u

/*
 * The harness's own devices in simple_system's simulator-control window
 * (host/verilator-harness/harness.cc), write-only. S is the cycle a store is
 * on the bus: its first cycle in ID/EX, where `csrr mcycle` would read S.
 *
 *   SOFT_IRQ     bit 0 is the level of irq_software_i (interrupt 3) from cycle S + 1:
 *                1 raises it, 0 lowers it. The core never lowers a level line.
 *   LATENCY      the latency timer, one-shot, on irq_fast_i[0] (interrupt 16): a store
 *                of N >= 1 raises the line in cycle S + N exactly (a `csrr mcycle` there
 *                reads S + N) and holds it; a store of 0 stops the timer and lowers
 *                the line from cycle S + 1.
 *   LATENCY_NMI  the same timer on irq_nm_i, the non-maskable interrupt (vector 31):
 *                what --config irq_priority=high arms.
 *
 * The timer counts clock cycles, which mcycle counts too unless the core
 * sleeps (wfi gates its clock): no scenario sleeps while it is armed.
 */
#define BOARD_SOFT_IRQ_ADDRESS 0x20014u
#define BOARD_LATENCY_ADDRESS 0x20018u
#define BOARD_LATENCY_NMI_ADDRESS 0x2001Cu
#define BOARD_SOFT_IRQ_CAUSE 3u     /* mcause 0x80000003, vector mtvec + 0x0C */
#define BOARD_LATENCY_IRQ_CAUSE 16u /* irq_fast_i[0]: mcause 0x80000010, vector mtvec + 0x40 */
#define BOARD_NMI_CAUSE 31u         /* irq_nm_i: mcause 0x8000001F, vector mtvec + 0x7C */

/* --config irq_priority=high (-DSWITCHSCOPE_IRQ_PRIORITY=high): the latency
 * timer on the NMI, which no mstatus.MIE masks (FreeRTOS's critical sections
 * clear MIE, masking every other interrupt); otherwise on the fast interrupt,
 * masked as the software interrupt is. */
#include "switchscope/config_value.h"
#define IRQ_PRIORITY_IS_high 1
#define IRQ_PRIORITY_IS_low 0
#if defined(SWITCHSCOPE_IRQ_PRIORITY) && SWITCHSCOPE_IS(IRQ_PRIORITY_IS_, SWITCHSCOPE_IRQ_PRIORITY)
#define BOARD_LATENCY_ON_NMI 1
#else
#define BOARD_LATENCY_ON_NMI 0
#endif

/*
 * What a kernel on this board does with interrupts (board.h's terms):
 *
 * 1. Its trap table, which it installs in mtvec (vectored, mode 1) before it
 *    enables interrupts, is BOARD_VECTOR_TABLE(name, trap_entry), top-level
 *    assembly: every vector jumps to trap_entry, its common trap handler (which
 *    tells the cause from mcause, exceptions included), except the latency
 *    timer's: vector 16 (or 31, the NMI, with irq_priority=high), labelled
 *    board_latency_vector, jumps to board_latency_entry, which stamps mcycle
 *    for the probe ([latency_timer] read_offset in board.toml) and goes on to
 *    trap_entry with every register as the interrupt left it (through
 *    board_latency_continue, which the macro defines). On the NMI it never
 *    goes on to the kernel: it runs switchscope_latency_irq() on a stack of
 *    its own and returns (mret), whatever the kernel was doing.
 * 2. trap_entry, for every interrupt but the machine timer's (mcause
 *    0x80000007, the kernel's tick), calls board_interrupt(mcause) with
 *    interrupts masked. It acknowledges the source (the software interrupt's
 *    line is lowered before its handler runs; the latency timer's handler stops
 *    the timer) and calls switchscope_soft_irq() or switchscope_latency_irq(),
 *    which may make a task ready: the kernel switches to it on the way out if
 *    the handler asked (FreeRTOS: portYIELD_FROM_ISR).
 * 3. mscratch is the board's: it holds the top of the stack board_latency_entry
 *    swaps sp for, so that it never stores through the interrupted sp (which
 *    a kernel may be loading, as FreeRTOS's trap entry does). The kernel
 *    never writes it.
 *
 * board_init() enables the software and the fast interrupt in mie; the kernel
 * sets mstatus.MIE when it starts its first task, and may set more mie bits
 * (csrs) but never clears these.
 */
void board_interrupt(uint32_t mcause);
#define BOARD_VECTOR_JUMPS_(count, target) ".rept " #count "\n j " target "\n.endr\n"
#if BOARD_LATENCY_ON_NMI
#define BOARD_VECTOR_16_(trap) BOARD_VECTOR_JUMPS_(1, trap)
#define BOARD_VECTOR_31_(trap) ".globl board_latency_vector\nboard_latency_vector: j board_latency_entry\n"
#else
#define BOARD_VECTOR_16_(trap) ".globl board_latency_vector\nboard_latency_vector: j board_latency_entry\n"
#define BOARD_VECTOR_31_(trap) BOARD_VECTOR_JUMPS_(1, trap)
#endif
#define BOARD_VECTOR_TABLE(name, trap_entry)                                   \
    ".section .text." name ", \"ax\"\n"                                       \
    ".balign 256\n"                                                           \
    ".option push\n"                                                          \
    ".option norvc\n" /* each vector one 4-byte jump */                       \
    ".globl " name "\n" name ":\n"                                             \
    BOARD_VECTOR_JUMPS_(16, trap_entry) /* 0: exceptions, 1-15: standard */  \
    BOARD_VECTOR_16_(trap_entry)        /* 16: irq_fast_i[0], latency timer */ \
    BOARD_VECTOR_JUMPS_(14, trap_entry) /* 17-30: the other fast lines */    \
    BOARD_VECTOR_31_(trap_entry)        /* 31: the NMI */                    \
    ".globl board_latency_continue\n"                                          \
    "board_latency_continue: j " trap_entry "\n"                              \
    ".option pop\n"                                                           \
    ".text\n"

/*
 * Store mcycle's low half into `dest` (a uint32_t with a static address) with
 * a fixed sequence: lui forms the address's upper part, csrr reads the
 * counter, sw stores it. 32-bit instructions, no linker relaxation: every
 * stamp is these three instructions, whatever the code around.
 */
#define BOARD_STAMP_TO(dest)                                      \
    do {                                                          \
        uint32_t board_stamp_at_, board_stamp_count_;             \
        __asm__ volatile(".option push\n\t"                       \
                         ".option norvc\n\t"                      \
                         ".option norelax\n\t"                    \
                         "lui %0, %%hi(%2)\n\t"                   \
                         "csrr %1, mcycle\n\t"                    \
                         "sw %1, %%lo(%2)(%0)\n\t"                \
                         ".option pop"                            \
                         : "=&r"(board_stamp_at_), "=&r"(board_stamp_count_) \
                         : "i"(&(dest))                           \
                         : "memory");                             \
    } while (0)

/* The scope pin: the spare word of simple_system's simulator-control window,
 * which the harness logs every store to (--pin-log). One fixed sequence each:
 * lui forms the window's address, the store drives the pin. */
#define BOARD_SCOPE_PIN "ctrl+0x10"
#define BOARD_SCOPE_HIGH()                                                  \
    __asm__ volatile(".option push\n\t.option norvc\n\t"                  \
                     "lui t6, 0x20\n\t"                                     \
                     "li t5, 1\n\t"                                         \
                     "sw t5, 0x10(t6)\n\t"                                  \
                     ".option pop" ::: "t5", "t6", "memory")
#define BOARD_SCOPE_LOW()                                                   \
    __asm__ volatile(".option push\n\t.option norvc\n\t"                  \
                     "lui t6, 0x20\n\t"                                     \
                     "sw zero, 0x10(t6)\n\t"                                \
                     ".option pop" ::: "t6", "memory")

/* mcycle's high half, noted before the opening stamp and compared after the
 * closing one: it changes when the low half wraps in between. */
extern uint32_t board_stamp_high;
static inline uint32_t board_mcycleh(void)
{
    uint32_t high;
    __asm__ volatile("csrr %0, mcycleh" : "=r"(high));
    return high;
}
#define BOARD_STAMP_WRAP_CLEAR() (board_stamp_high = board_mcycleh())
#define BOARD_STAMP_WRAPPED() (board_mcycleh() != board_stamp_high)

#endif
