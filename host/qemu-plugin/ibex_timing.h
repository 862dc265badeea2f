/*
 * switchscope's timing model of lowRISC Ibex in its two-stage configurations
 * (small: fast multi-cycle multiplier, no branch target ALU), written from the
 * core's documentation alone: doc/03_reference/pipeline_details.rst,
 * instruction_fetch.rst, load_store_unit.rst and exception_interrupts.rst (of
 * pythondata-cpu-ibex 0.0.post2937), with single-cycle memories as Ibex's
 * simple_system has. Each rule below quotes its sentence; docs/measurement.md
 * ("How far a documentation model is from the RTL") holds it against the RTL.
 *
 * pipeline_details.rst: "when an instruction stalls for X cycles X + 1
 * cycles pass before a new instruction enters the ID/EX stage": an
 * instruction costs its stall + 1.
 */
#ifndef SWITCHSCOPE_IBEX_TIMING_H
#define SWITCHSCOPE_IBEX_TIMING_H

#include <stdint.h>

/* "Integer Computational | 0", "CSR Access | 0" */
#define IBEX_ALU 1
/* "Load/Store | 1 - N": "Both loads and stores stall for at least one cycle to await a response";
 * simple_system's RAM answers in the next cycle: the least */
#define IBEX_LOAD_STORE 2
/* "Multiplication | 2/3 (Fast Multi-Cycle Multiplier) | 2 for MUL, 3 for MULH" (small's RV32M "fast") */
#define IBEX_MUL 3
#define IBEX_MULH 4
/* "Division, Remainder | 1 or 37 | 1 stall cycle if divide by 0, otherwise full long division" */
#define IBEX_DIVIDE_BY_ZERO 2
/* "Jump | 1 - N | Minimum one cycle stall to flush the prefetch counter and begin fetching from the new
 * Program Counter"; "Instruction Fence | 1 - N | ... implemented as a jump" */
#define IBEX_JUMP 2
/* "Branch (Not-Taken) | 0"; "Branch (Taken) | 2 - N | Any branch where the condition is met will stall for
 * 2 cycles" (without the branch target ALU, as small): taken adds 2 to the not-taken cycle */
#define IBEX_BRANCH 1
#define IBEX_TAKEN_BRANCH_EXTRA 2
/* instruction_fetch.rst, Misaligned Accesses: "Misaligned instruction fetches are handled by performing two
 * separate word-aligned instruction fetches": a jump (or taken branch, trap, mret) to a 32-bit instruction at
 * an address 2 past a word boundary waits for a second fetch, one more cycle of the jump's "1 - N" stall */
#define IBEX_SPLIT_FETCH 1
/*
 * The costs the documentation leaves open or that its reading got wrong, each
 * twice: as read from the documentation alone (core=ibex-small-documentation)
 * and as the RTL's rulers measured them (core=ibex-small, the target's model;
 * tests/run/test_ibex_model.py measures both on the same rulers).
 *
 * exception_interrupts.rst gives no cycle count for a trap. It says "All
 * exceptions cause the core to jump to the base address of the vector table in
 * the mtvec CSR", interrupts likewise "jumps to the base address plus four times
 * the interrupt ID", and "Upon executing an MRET instruction, the core jumps to
 * the program counter previously saved in the mepc CSR": the documentation's
 * reading takes each as a jump.
 */
struct ibex_costs {
    uint8_t divide;          /* DIV, DIVU, REM, REMU by a non-zero divisor */
    uint8_t trap_instruction; /* ECALL, EBREAK: the instruction, its jump to mtvec included */
    uint8_t interrupt_entry; /* an interrupt between two instructions, to the vector's first cycle in ID/EX */
    uint8_t mret;            /* MRET, its jump to mepc included */
    uint8_t enabling_csr_write; /* a write or set (CSRRW, CSRRS, and their immediate forms; not a clear) of
                                 * mstatus or mie, the CSRs that enable interrupts */
};

/* documentation: division "37" stall cycles, so 38; ECALL and MRET a jump, 2; an interrupt a jump with no
 * instruction of its own, the jump's one stall cycle; any CSR access "0" stall cycles, 1 */
#define IBEX_COSTS_DOCUMENTED {38, 2, 1, 2, 1}
/* measured on the RTL (small): division 37 cycles in all (the table's 37 is the instruction's cycles, not its
 * stall); ECALL 3 and MRET 3, one more than a jump; an interrupt's entry 3; a write or set of mstatus or mie 3,
 * a stall of 2 the table does not give (a clear, which can only mask, stays 1) */
#define IBEX_COSTS_MEASURED {37, 3, 3, 3, 3}
#define IBEX_CSR_MSTATUS 0x300u
#define IBEX_CSR_MIE 0x304u

enum ibex_flow {
    IBEX_FLOW_NONE,     /* falls through */
    IBEX_FLOW_BRANCH,   /* a conditional branch to `target`: charged not taken, taken adds IBEX_TAKEN_BRANCH_EXTRA */
    IBEX_FLOW_JUMP,     /* JAL, C.J, C.JAL: always to `target` */
    IBEX_FLOW_INDIRECT, /* JALR, C.JR, C.JALR: to a register's value */
    IBEX_FLOW_TRAP,     /* ECALL, EBREAK, C.EBREAK: to mtvec */
    IBEX_FLOW_MRET,     /* to mepc */
};

struct ibex_timing {
    uint8_t size;               /* 2 or 4 bytes */
    uint8_t cycles;             /* every time it executes (a branch: not taken; a division: by a non-zero divisor) */
    enum ibex_flow flow;
    uint32_t target;            /* IBEX_FLOW_BRANCH, IBEX_FLOW_JUMP */
    uint8_t divides;            /* DIV, DIVU, REM, REMU: by zero costs IBEX_DIVIDE_BY_ZERO */
    uint8_t divisor;            /* divides: the register holding the divisor (rs2) */
    uint16_t reads_csr;         /* a CSR read into a register (csrr rd, csr: CSRRS rd, csr, x0): the CSR; else 0 */
    uint8_t accesses_memory;    /* a load or a store */
};

#define IBEX_CSR_MCYCLE 0xB00u
#define IBEX_CSR_CYCLE 0xC00u

/* The timing of the instruction at `address` whose first 16 or 32 bits are `word` (the low half is the
 * first parcel): a 32-bit instruction when its two lowest bits are 11. */
void ibex_timing(const struct ibex_costs *costs, uint32_t address, uint32_t word, struct ibex_timing *out);

/* Whether `word` is the probe's read of its timer: the csrr of the fixed sequence `lui rA, hi; csrr rB, csr;
 * sw rB, lo(rA)`, all 32-bit (board.h's BOARD_STAMP_TO), with `before` and `after` the words around it. Other
 * reads of the same CSR (a 64-bit read, a C function's) are no stamps. */
int ibex_is_stamp(uint32_t before, uint32_t word, uint32_t after, uint16_t csr);

/* Whether a jump, taken branch, trap or return that lands on `target` pays IBEX_SPLIT_FETCH: the instruction
 * there (`size` bytes) is 32-bit and starts 2 bytes past a word boundary. */
int ibex_split_fetch(uint64_t target, unsigned size);

#endif
