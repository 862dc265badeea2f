/* vexriscv: what sets LiteX's VexRiscv apart from Ibex under ibex's board code
 * (the rest of the machine, the devices' addresses, is this folder's link.ld). */
#ifndef BOARD_MACHINE_H
#define BOARD_MACHINE_H

#define BOARD_SCOPE_PIN "ctrl+0x10" /* board.toml [scope] pin */
#define BOARD_CPU_CLOCK_HZ 100000000u /* board.toml f_cpu_hz */
#define BOARD_CPU_CLOCK_HZ_TEXT "100000000"

/* An instruction cache (4 KB, direct-mapped, 32-byte lines): every method's
 * build runs the probe's calibration and empties the caches before its first
 * window (common/harness.c), and places its points (probe.h). An opening
 * point starts 4 bytes into a line, so that its 12 bytes and the window's
 * first instruction lie in that line, and a calibration's closing right after
 * it is 8-aligned; a closing point is 8-aligned, so that its reading (the
 * stamp's csrr and the scope's store, 4 bytes in) never starts a line. */
#define BOARD_CACHES_CODE 1
#define BOARD_OPENING_ALIGN ".balign 32\n\tnop"
#define BOARD_CLOSING_ALIGN ".balign 8"

/* Emptying the caches (cache=cold, board_empty_caches): fence.i invalidates the
 * instruction cache (VexRiscv_Full.yaml: flushInstructions, 0x100F); LiteX's
 * flush_cpu_dcache, the custom .word 0x500F, every line of the data cache,
 * which writes through (every store is a beat on the bus: nothing dirty to
 * write back). Both run in the background, a line a cycle: the load of mtime
 * (uncached) waits for the data cache's, and the fetches after fence.i for the
 * instruction cache's. */
#define BOARD_EMPTY_CACHES_CODE                                \
    "fence.i\n\t"                                              \
    ".word 0x500F\n\t"                                         \
    "lui t0, %%hi(board_mtime_register)\n\t"                   \
    "lw t0, %%lo(board_mtime_register)(t0)"

/* Every trap enters at mtvec's base: the CsrPlugin keeps mtvec's mode bits
 * but jumps to {base, 2'b00} whatever they are (VexRiscv_Full.v,
 * CsrPlugin_jumpInterface_payload). */
#define BOARD_ONE_TRAP_ENTRY 1

/* The latency timer drives externalInterruptArray[0]; the core raises its
 * machine external interrupt (mcause 0x8000000B) while a line of that array
 * is high and its bit set in LiteX's mask CSR 0xBC0, which resets to 0. */
#define BOARD_LATENCY_IRQ_CAUSE 11u
#define BOARD_LATENCY_MCAUSE "0x8000000B" /* its mcause, for the entry that tells it (board.c) */
#define BOARD_LATENCY_IRQ_LINE "externalInterruptArray[0]"
#define BOARD_EXTERNAL_IRQ_MASK_CSR "0xBC0"
#define BOARD_EXTERNAL_IRQ_MASK 1u

/* From the mcycle a `csrr` reads to the store right after it on the data bus,
 * where the testbench takes a device store (host/verilator-harness/vexriscv.cc):
 * the csrr's 3 cycles and the beat a cycle after the store's execute stage,
 * measured on the RTL (tests/run/test_vexriscv.py). */
#define BOARD_LATENCY_STORE_CYCLES 4u

#endif
