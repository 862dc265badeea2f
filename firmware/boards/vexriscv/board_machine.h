/* vexriscv: what sets LiteX's VexRiscv apart from Ibex under ibex's board code
 * (the rest of the machine, the devices' addresses, is this folder's link.ld). */
#ifndef BOARD_MACHINE_H
#define BOARD_MACHINE_H

#define BOARD_SCOPE_PIN "ctrl+0x10" /* board.toml [scope] pin */
#define BOARD_CPU_CLOCK_HZ 100000000u /* board.toml f_cpu_hz */
#define BOARD_CPU_CLOCK_HZ_TEXT "100000000"

/* Every trap enters at mtvec's base: the CsrPlugin keeps mtvec's mode bits
 * but jumps to {base, 2'b00} whatever they are (VexRiscv_Full.v,
 * CsrPlugin_jumpInterface_payload). */
#define BOARD_ONE_TRAP_ENTRY 1

/* The latency timer drives externalInterruptArray[0]; the core raises its
 * machine external interrupt (mcause 0x8000000B) while a line of that array
 * is high and its bit set in LiteX's mask CSR 0xBC0, which resets to 0. */
#define BOARD_LATENCY_IRQ_CAUSE 11u
#define BOARD_LATENCY_IRQ_LINE "externalInterruptArray[0]"
#define BOARD_EXTERNAL_IRQ_MASK_CSR "0xBC0"
#define BOARD_EXTERNAL_IRQ_MASK 1u

/* From the mcycle a `csrr` reads to the store right after it on the data bus,
 * where the testbench takes a device store (host/verilator-harness/vexriscv.cc):
 * the csrr's 3 cycles and the beat a cycle after the store's execute stage,
 * measured on the RTL (tests/run/test_vexriscv.py). */
#define BOARD_LATENCY_STORE_CYCLES 4u

#endif
