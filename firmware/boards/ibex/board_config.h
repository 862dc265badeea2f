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
