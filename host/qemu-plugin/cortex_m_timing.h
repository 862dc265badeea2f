/*
 * switchscope's timing model of the Cortex-M0, M0+ (ARMv6-M), M3 and M4
 * (ARMv7-M) cores, and of the Cortex-M4 with its FPU (zero wait states, as
 * QEMU's memories): what each Thumb instruction costs in cycles, decided once
 * when QEMU translates it, with the least and the most the TRM allows for it.
 * docs/measurement.md lists every rule with the TRM's words and the test that
 * measures it.
 */
#ifndef SWITCHSCOPE_CORTEX_M_TIMING_H
#define SWITCHSCOPE_CORTEX_M_TIMING_H

#include <stdint.h>

/* CORE_CORTEX_M4F: the Cortex-M4 with its FPU in use (hard float): the FPU's instructions and the
 * exception frame with a floating-point context are timed; CORE_CORTEX_M4 times a build that never
 * uses the FPU (soft float), where those instructions do not occur. */
enum core_model { CORE_CORTEX_M3, CORE_CORTEX_M4, CORE_CORTEX_M0, CORE_CORTEX_M0PLUS, CORE_CORTEX_M4F };

/* What the plugin must do at run time beyond adding the static cost. */
enum insn_flow {
    FLOW_NONE,          /* falls through */
    FLOW_DIRECT,        /* always branches to `target` (B, BL): cost already includes the refill */
    FLOW_CONDITIONAL,   /* B<cond>, CBZ, CBNZ: taken adds the refill, known when the next block starts */
    FLOW_INDIRECT,      /* branches to a register or loaded value (BX, BLX, POP {pc}, LDR pc, ...) */
};

/* Operand-dependent instructions, timed when they execute from their registers. */
enum insn_operands {
    OPERANDS_NONE,
    OPERANDS_UNSIGNED_DIVIDE,
    OPERANDS_SIGNED_DIVIDE,
    OPERANDS_LONG_MULTIPLY,
    OPERANDS_LONG_MULTIPLY_ACCUMULATE,
};

/* The cycle costs the model charges, named as in the ARM Cortex-M3 TRM (r2p1). */
#define TIMING_REFILL_IMMEDIATE 1  /* P for a branch to an immediate target */
#define TIMING_REFILL_REGISTER 2   /* P for a branch to a register or loaded target */
#define TIMING_REFILL_LEAST 1      /* Table 3-1: "P ranges from 1 to 3" */
#define TIMING_REFILL_MOST 3
#define TIMING_REFILL_BLOCKING 3   /* 3.3.2: the reload after LDR pc and TBB/TBH, "three cycles" */
#define TIMING_EXCEPTION_ENTRY 12  /* 5.5.1: stacking in parallel with the vector fetch */
#define TIMING_EXCEPTION_EXIT 10   /* Figure 5-5: unstacking, which replaces the return's refill */
#define TIMING_TAIL_CHAIN 6        /* 5.6: the next ISR "starts execution six cycles after exiting" */

/* The Cortex-M4 TRM (DDI 0439D) on a floating-point context (CONTROL.FPCA) at an exception, 3.9.1 and 7.2.7. */
#define TIMING_FP_ENTRY 29         /* 3.9.1: "a floating point context is active and the lazy stacking is not
                                    * enabled, this maximum latency is increased to twenty nine cycles" */
#define TIMING_FP_EXIT 27          /* 3.9.1: "an active floating point context is included in the stack frame,
                                    * the return from interrupt takes twenty-seven cycles" */
#define TIMING_FP_LAZY_STORE 17    /* 7.2.7: with lazy stacking the entry "reserves space on the stack for the
                                    * FP state" (12 cycles) and stores it when the handler "executes an FPU
                                    * instruction": the 29 - 12 = 17 cycles of its 17 words (s0-s15, FPSCR) */
#define TIMING_FP_LAZY_STORE_MOST 18 /* the same 17 words as a store multiple: Table 7-1 VSTM "1+N" */
#define TIMING_FP_VDIV_LEAST 1     /* Table 7-1 note: "VDIV and VSQRT instructions take one cycle if no more
                                    * floating-point instructions are executed" */
#define TIMING_FP_VMOV_CORE 2      /* Table 7-1: VMOV "one float to/from one core register" 2 */
#define TIMING_FP_VMOV_CORE_LEAST 1 /* the same move measured on silicon: 1 */
#define FPCCR_ADDRESS 0xE000EF34u  /* 7.3 Table 7-4: FP Context Control Register */
#define FPCCR_LSPACT 1u            /* bit 0: the lazy state preservation is active (space reserved, not written) */
#define EXC_RETURN_BASIC_FRAME 0x10u /* EXC_RETURN bit 4: 1 a basic frame, 0 one with the FP context */

/* A cost and how far the TRM lets it go either way: least = cycles - below, most = cycles + above. */
struct cost {
    int32_t cycles; /* negative for what pipelining takes off */
    uint32_t below, above;
};

struct insn_timing {
    uint32_t cycles;            /* charged every time it executes (for conditional branches: not taken) */
    uint8_t below, above;       /* how far the TRM lets `cycles` go down and up */
    uint8_t refill, refill_below, refill_above; /* the part of the above that is the refill after a branch */
    enum insn_flow flow;
    uint32_t target;            /* FLOW_DIRECT, FLOW_CONDITIONAL: the branch target */
    enum insn_operands operands;
    uint8_t rn, rm;             /* OPERANDS_*: the source registers */
    uint8_t indirect_register;  /* FLOW_INDIRECT through a register (BX, BLX, MOV pc): its number; else 0xFF */
    uint8_t pops_pc_from_sp;    /* POP {..., pc} / LDR pc, [sp], #4: words below the loaded pc, + 1 */
    /* for the pipelining of neighbouring loads and stores */
    uint8_t is_load;            /* a single LDR that can pipeline with what follows */
    uint8_t is_memory;          /* a single LDR or STR that can pipeline after an LDR */
    uint8_t load_destination;   /* is_load: the register loaded */
    uint16_t address_mask;      /* any load or store: the registers its address is computed from */
    /* for the address-generation stall */
    uint16_t alu_writes;        /* a data-processing (or multiply, divide) instruction: the registers it writes */
    uint16_t special_writes;    /* MRS: the register it writes (its stall is in the range, not the point) */
    uint8_t pipelined;          /* 1: charged one cycle less, behind the load before it */
    uint8_t address_stall;      /* 1: charged one cycle more, its address from the instruction before it */
    uint8_t condition;          /* inside an IT block: its condition (0-13); 14 (always) outside */
    /* CORE_CORTEX_M4F */
    uint8_t is_fp;              /* an FPU instruction: the first in a handler makes the deferred (lazy) store */
    uint8_t fp_stall;           /* 1: charged one cycle more, it consumes the FP result of the instruction before */
    uint32_t fp_results;        /* an FP arithmetic instruction: the single registers (s0-s31) its result is in */
    uint32_t fp_operands;       /* any FP instruction: the single registers it reads at once (not a MAC's addend) */
};

#define CONDITION_ALWAYS 14
#define TIMING_CONDITION_FAILED 1 /* an instruction of an IT block whose condition fails */

/* IT blocks: the state the IT instruction sets up, advanced once per instruction. */
struct it_state {
    uint8_t bits; /* ITSTATE: firstcond:mask, 0 outside a block */
};

/* The condition of the next instruction (CONDITION_ALWAYS outside an IT block),
 * advancing the state past it; an IT instruction `hw1` opens a new block. */
uint8_t cortex_m_it_condition(struct it_state *state, uint16_t hw1);

/* Whether condition `cond` holds for the flags NZCV (xPSR bits 31..28). */
int cortex_m_condition_holds(uint8_t cond, uint32_t xpsr);

/*
 * The timing of the instruction at `address` whose first halfword is `hw1`
 * (and second `hw2` for a 32-bit one); `previous` is the instruction before
 * it in the same block, or NULL. Returns the instruction's size in bytes.
 */
unsigned cortex_m_timing(enum core_model core, uint32_t address, uint16_t hw1, uint16_t hw2,
                         const struct insn_timing *previous, struct insn_timing *out);

/* What `next` costs beyond its own timing because `previous` ran right before
 * it, where the translation could not see that (a block boundary where code
 * runs straight on): one cycle less when it pipelines behind a load, one more
 * when its address waits for the previous instruction's result. */
struct cost cortex_m_across(const struct insn_timing *previous, const struct insn_timing *next);

/* What the exception flow and a taken conditional branch cost on a core, each with its range: charged
 * at run time, where the plugin sees them happen. */
struct flow_costs {
    struct cost entry;        /* from the exception to the handler's first instruction */
    struct cost exit;         /* the unstacking after a return (which is charged without its refill) */
    struct cost tail_chain;   /* a pending exception taken at a return, instead of the exit */
    struct cost taken_branch; /* what a taken B<cond> (or CBZ, CBNZ) costs beyond its untaken cycle */
};

struct flow_costs cortex_m_flow_costs(enum core_model core);

/* Whether the core executes ARMv6-M (Thumb-1 and the few 32-bit instructions): the Cortex-M0 and M0+. */
int cortex_m_is_armv6m(enum core_model core);

/* Cycles of an operand-dependent instruction, from its source operands, with the TRM's range. */
struct cost cortex_m_operand_cycles(enum core_model core, enum insn_operands kind, uint32_t rn, uint32_t rm);

/* Between the model's files: */
/* The range the TRM gives the instruction's cost: `least` to `most` cycles. */
static inline void cortex_m_allow(struct insn_timing *t, uint32_t least, uint32_t most)
{
    t->below = (uint8_t)(t->cycles - least);
    t->above = (uint8_t)(most - t->cycles);
}

/* The FPU's instructions (cortex_m_fpu_timing.c): the coprocessor space of CP10 and CP11 (hw1 1110 11xx,
 * coproc 101x). Returns 1 when `hw1`, `hw2` is one, its timing in `t`. */
int cortex_m_fpu_timing(struct insn_timing *t, uint16_t hw1, uint16_t hw2);

#endif
