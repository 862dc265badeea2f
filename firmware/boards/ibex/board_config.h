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
/* What must be a text per machine (the scope pin's name), and what another core
 * on this code differs in (vexriscv's): board_machine.h of the board's own folder
 * (ibex's, ibex-qemu's or vexriscv's, found first on the include path). */
#include <board_machine.h>
#ifndef BOARD_CPU_CLOCK_HZ
#define BOARD_CPU_CLOCK_HZ 50000000u
#define BOARD_CPU_CLOCK_HZ_TEXT "50000000"
#endif

/*
 * The devices' addresses are symbols of the board's linker script
 * (link.ld: simple_system's; ibex-qemu's link.ld: QEMU virt's), never numbers
 * in the code: the compiler then emits one instruction sequence for every
 * address (lui and the low part in the access, relocated at link time),
 * and the same sources give an RTL image and a virt image whose every
 * function has the same size at the same offset from the RAM's start
 * (switchscope.decode.layout checks it). A number would let the compiler
 * pick shorter forms for some addresses (c.lw for a small positive offset).
 *
 * The RTL's devices: simple_system's output and halt registers and machine
 * timer, and the harness's own (below).
 */
extern uint32_t board_output_register, board_halt_register, board_mtime_register, board_mtimecmp_register,
    board_soft_irq_register, board_latency_register, board_latency_nmi_register, board_scope_register;
#define BOARD_LINKED_ADDRESS(symbol) ((uint32_t)&(symbol))
#define BOARD_OUTPUT_ADDRESS BOARD_LINKED_ADDRESS(board_output_register)
#define BOARD_HALT_ADDRESS BOARD_LINKED_ADDRESS(board_halt_register)
#define BOARD_MTIME_ADDRESS BOARD_LINKED_ADDRESS(board_mtime_register)
#define BOARD_MTIMECMP_ADDRESS BOARD_LINKED_ADDRESS(board_mtimecmp_register)
#ifndef BOARD_ONE_TRAP_ENTRY
#define BOARD_ONE_TRAP_ENTRY 0 /* Ibex: vectored traps only, an entry per cause */
#endif

/* A value of the linker script (an absolute symbol's address) in a register:
 * lui and addi, never relaxed nor compressed, whatever the value. */
#define BOARD_LINK_VALUE(symbol)                                               \
    ({                                                                         \
        uint32_t board_value_;                                                 \
        __asm__(".option push\n\t.option norvc\n\t.option norelax\n\t"        \
                "lui %0, %%hi(" #symbol ")\n\t"                                \
                "addi %0, %0, %%lo(" #symbol ")\n\t"                           \
                ".option pop"                                                  \
                : "=r"(board_value_));                                         \
        board_value_;                                                          \
    })

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
 *
 * On virt, SOFT_IRQ is the CLINT's msip, which behaves alike (1 raises the
 * machine software interrupt, 0 lowers it); virt has no latency timer
 * (ibex-qemu's board.toml says why), and its two symbols name a spare RAM word.
 */
#define BOARD_SOFT_IRQ_ADDRESS BOARD_LINKED_ADDRESS(board_soft_irq_register)
#define BOARD_LATENCY_ADDRESS BOARD_LINKED_ADDRESS(board_latency_register)
#define BOARD_LATENCY_NMI_ADDRESS BOARD_LINKED_ADDRESS(board_latency_nmi_register)
#define BOARD_SOFT_IRQ_CAUSE 3u     /* mcause 0x80000003, vector mtvec + 0x0C */
#ifndef BOARD_LATENCY_IRQ_CAUSE     /* a core whose latency line is another (board_machine.h) says which */
#define BOARD_LATENCY_IRQ_CAUSE 16u /* irq_fast_i[0]: mcause 0x80000010, vector mtvec + 0x40 */
#define BOARD_LATENCY_IRQ_LINE "irq_fast_i[0]"
#endif
#define BOARD_NMI_CAUSE 31u         /* irq_nm_i: mcause 0x8000001F, vector mtvec + 0x7C */
/* Cycles from the mcycle a `csrr` reads to the cycle of the store right after it (S). */
#ifndef BOARD_LATENCY_STORE_CYCLES
#define BOARD_LATENCY_STORE_CYCLES 1u /* pipeline_details.rst: CSR access stalls 0 cycles */
#endif

/* --config irq_priority=high (-DSWITCHSCOPE_IRQ_PRIORITY=high): the latency
 * timer on the NMI, which no mstatus.MIE masks (FreeRTOS's critical sections
 * clear MIE, masking every other interrupt); otherwise on the fast interrupt,
 * masked as the software interrupt is. */
#include "switchscope/config_value.h"
#define IRQ_PRIORITY_IS_high 1
#define IRQ_PRIORITY_IS_low 0
#if defined(SWITCHSCOPE_IRQ_PRIORITY) && SWITCHSCOPE_IS(IRQ_PRIORITY_IS_, SWITCHSCOPE_IRQ_PRIORITY) && \
    !BOARD_ONE_TRAP_ENTRY /* a core with one entry has no NMI (kernel.toml refuses irq_priority=high there) */
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
#if BOARD_ONE_TRAP_ENTRY
/*
 * A core that enters every trap at mtvec's base, whatever its mode (VexRiscv):
 * the table is that entry, a jump to trap_entry, then board_latency_vector, the
 * entry while the latency timer is armed: the arming points mtvec at it
 * (BOARD_LATENCY_ENTRY(1)) and the timer's stop back at the base, so that a
 * trap costs the stamp only in the irq-latency sweeps, where every trap pays
 * it (the tick's too: its stamp is overwritten by the latency timer's own).
 */
#define BOARD_VECTOR_TABLE(name, trap_entry)                                   \
    ".section .text." name ", \"ax\"\n"                                       \
    ".balign 256\n"                                                           \
    ".option push\n"                                                          \
    ".option norvc\n"                                                         \
    ".globl " name "\n" name ":\n"                                             \
    " j " trap_entry "\n"                                                     \
    ".globl board_latency_vector\nboard_latency_vector: j board_latency_entry\n" \
    ".globl board_latency_continue\n"                                          \
    "board_latency_continue: j " trap_entry "\n"                              \
    ".option pop\n"                                                           \
    ".text\n"
#define BOARD_LATENCY_ENTRY(armed)                                             \
    do {                                                                       \
        uint32_t board_table_;                                                 \
        __asm__ volatile("csrr %0, mtvec" : "=r"(board_table_));               \
        board_table_ &= ~0xFFu; /* the table is 256-byte aligned */            \
        __asm__ volatile("csrw mtvec, %0" ::"r"(board_table_ | ((armed) ? 4u : 1u))); \
    } while (0)
#else
#define BOARD_LATENCY_ENTRY(armed) ((void)0) /* the latency timer's own vector enters it */
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
#endif

/*
 * The window's points (switchscope/probe.h): every method's code at a point
 * is one asm statement of BOARD_POINT_BYTES with these clobbers, so that each
 * method's build lays out the same program. 32-bit instructions, no linker
 * relaxation: a point is the same bytes whatever the code around.
 */
#define BOARD_POINT(code) ".option push\n\t.option norvc\n\t.option norelax\n\t" code "\n\t.option pop"
#define BOARD_POINT_CLOBBERS "t5", "t6", "memory"
/* Every opening point on a word (probe.h): its 32-bit instructions then fill
 * whole words, and the window's first instruction starts a word of its own, as
 * the closing's lui does in the calibration's pair. Behind a slow RAM each
 * word is a fetch that waits: an opening on a halfword would end in a word
 * that also holds the window's first (compressed) instruction, fetched with
 * the point's store, and the calibration would subtract a wait the window did
 * not have (tests/run/test_ibex_slow_memory.py). The c.nop that aligns it runs
 * before the window. A closing needs nothing: its reading follows its lui, a
 * word apart wherever it lies. (VexRiscv, with its cache lines, places both:
 * its board_machine.h.) */
#ifndef BOARD_OPENING_ALIGN
#define BOARD_OPENING_ALIGN ".balign 4"
#define BOARD_CLOSING_ALIGN ""
#endif
/* the rest of a point whose method's code takes `bytes` (a string) of it */
#define BOARD_POINT_FILL(bytes) "\n\t.rept (12 - (" bytes ")) / 4\n\tnop\n\t.endr\n\t"

/*
 * Store mcycle's low half into the uint32_t with a static address that
 * operand [to] names: lui forms the address's upper part, csrr reads the
 * counter, sw stores it. The stamp is the whole point: 12 bytes.
 */
#define BOARD_STAMP_CODE                                          \
    "lui t6, %%hi(%[to])\n\t"                                        \
    "csrr t5, mcycle\n\t"                                         \
    "sw t5, %%lo(%[to])(t6)"

/* The scope pin: on the RTL the spare word of simple_system's
 * simulator-control window, which the harness logs every store to
 * (--pin-log); on virt a RAM word, whose stores the QEMU plugin logs where
 * its watches are: at each store, which the section .debug_switchscope_scope_high
 * (or _low) lists (non-allocated: no byte of the image moves). One fixed
 * sequence each: lui forms the word's address, the store drives the pin. */
#define BOARD_SCOPE_STORE_(set, level, section)                             \
    "lui t6, %%hi(board_scope_register)\n\t" set                            \
    "1: sw " level ", %%lo(board_scope_register)(t6)\n\t"                   \
    ".pushsection " section ", \"\", @progbits\n\t.word 1b\n\t.popsection"
#define BOARD_SCOPE_HIGH_CODE BOARD_SCOPE_STORE_("li t5, 1\n\t", "t5", ".debug_switchscope_scope_high")
#define BOARD_SCOPE_HIGH_BYTES 12
#define BOARD_SCOPE_LOW_CODE BOARD_SCOPE_STORE_("", "zero", ".debug_switchscope_scope_low")
#define BOARD_SCOPE_LOW_BYTES 8

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
