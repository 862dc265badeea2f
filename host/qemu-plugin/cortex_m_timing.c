/*
 * The Cortex-M3/M4 timing model: a decoder of the Thumb instruction set
 * (ARMv7-M) that sorts each instruction into the timing classes of the ARM
 * Cortex-M3 Technical Reference Manual (DDI 0337, "Instruction set summary"
 * and "Load/store timings"), zero wait states. Where the TRM gives a range
 * the rule chosen is written next to it; docs/measurement.md lists them all.
 */
#include "cortex_m_timing.h"

#include <stddef.h>
#include <string.h>

#define PC 15
#define LR 14
#define SP 13
#define NO_REGISTER 0xFF

static unsigned popcount16(unsigned value)
{
    unsigned count = 0;
    for (; value; value &= value - 1)
        count++;
    return count;
}

static int32_t sign_extend(uint32_t value, unsigned bits)
{
    uint32_t sign = 1u << (bits - 1);
    return (int32_t)((value ^ sign) - sign);
}

/* A refill of `point` cycles after a branch, P in the TRM's 1 to 3 (Table 3-1). An exception
 * return replaces it with the unstacking (Figure 5-5), so the plugin can take it back. */
static void add_refill(struct insn_timing *t, uint32_t point)
{
    t->cycles += point;
    t->refill = (uint8_t)point;
    t->refill_below = (uint8_t)(point - TIMING_REFILL_LEAST);
    t->refill_above = (uint8_t)(TIMING_REFILL_MOST - point);
    t->below += t->refill_below;
    t->above += t->refill_above;
}

/* Whether `next`, a load or store of more than one cycle, pipelines behind `previous`, a load whose
 * destination it does not use for its address (3.3.2: "LDR [any] are pipelined when possible"). */
static int pipelines_behind(const struct insn_timing *previous, const struct insn_timing *next)
{
    return previous->is_load && next->is_memory && next->cycles > 1 &&
           !(next->address_mask & (1u << previous->load_destination));
}

/* A single load or store: LDR is 2 cycles, STR with an immediate offset 1,
 * STR with a register offset 2 (Table 3-1, 3.3.2); an LDR or STR right after
 * a pipelinable LDR whose destination it does not use for its address costs
 * one less (3.3.2: "LDR [any] are pipelined when possible"). */
static void single_transfer(struct insn_timing *t, const struct insn_timing *previous, int load, unsigned rt,
                            unsigned rn, unsigned rm, int register_offset, int writeback)
{
    t->is_memory = !writeback;
    t->address_mask = (uint16_t)((1u << rn) | (rm != NO_REGISTER ? 1u << rm : 0));
    if (load) {
        t->cycles = 2;
        t->is_load = !writeback; /* a load with a base update does not pipeline */
        t->load_destination = (uint8_t)rt;
        if (rt == PC) {
            /* Table 3-1: 2 + P, P 1 to 3; 3.3.2: "at least two cycles for the load, and three cycles
             * for the pipeline reload ... at least five cycles": the point is the text's five */
            t->flow = FLOW_INDIRECT;
            t->is_load = t->is_memory = 0;
            add_refill(t, TIMING_REFILL_BLOCKING);
            if (rn == SP && writeback)
                t->pops_pc_from_sp = 1;
            return;
        }
        if (rn == PC) /* 3.3.2: "LDR Rx,[PC,#imm] might add a cycle because of contention with the fetch unit" */
            t->above = 1;
    } else {
        t->cycles = register_offset ? 2 : 1;
    }
    if (previous && pipelines_behind(previous, t)) {
        t->cycles -= 1;
        t->pipelined = 1;
    }
}

/* LDM, STM, PUSH, POP: 1 + N, + P when the PC is loaded (Table 3-1). */
static void multiple_transfer(struct insn_timing *t, int load, unsigned registers, unsigned rn)
{
    t->cycles = 1 + popcount16(registers);
    t->address_mask = (uint16_t)(1u << rn);
    if (load && (registers & (1u << PC))) {
        t->flow = FLOW_INDIRECT;
        add_refill(t, TIMING_REFILL_REGISTER);
        if (rn == SP)
            t->pops_pc_from_sp = (uint8_t)popcount16(registers); /* pc is the last word popped */
    }
}

static void branch_to(struct insn_timing *t, uint32_t target, int conditional)
{
    t->target = target;
    t->flow = conditional ? FLOW_CONDITIONAL : FLOW_DIRECT;
    t->cycles = 1;
    if (!conditional) /* a conditional branch's refill is charged when it is taken */
        add_refill(t, TIMING_REFILL_IMMEDIATE);
}

static void branch_through(struct insn_timing *t, unsigned reg)
{
    t->flow = FLOW_INDIRECT;
    t->indirect_register = (uint8_t)reg;
    t->cycles = 1;
    add_refill(t, TIMING_REFILL_REGISTER);
}

/* A data-processing instruction writes `rd` (a write to the PC is a branch, timed as one). */
static void writes(struct insn_timing *t, unsigned rd)
{
    if (rd != PC)
        t->alu_writes |= (uint16_t)(1u << rd);
}

static unsigned thumb16(uint32_t address, uint16_t hw, const struct insn_timing *previous, struct insn_timing *t)
{
    t->cycles = 1; /* data processing, moves, compares, MUL, extends, REV, CPS, hints, IT */
    switch (hw >> 11) {
    case 0x00: case 0x01: case 0x02: case 0x03: /* shifts by an immediate, ADD/SUB with three registers */
        writes(t, hw & 7);
        break;
    case 0x04: case 0x06: case 0x07: /* MOV, ADD, SUB with an 8-bit immediate (0x05 is CMP) */
        writes(t, (hw >> 8) & 7);
        break;
    case 0x09: /* LDR rt, [pc, #imm] */
        single_transfer(t, previous, 1, (hw >> 8) & 7, PC, NO_REGISTER, 0, 0);
        break;
    case 0x0A: case 0x0B: { /* load/store, register offset */
        unsigned op = (hw >> 9) & 7;
        single_transfer(t, previous, op >= 3, hw & 7, (hw >> 3) & 7, (hw >> 6) & 7, 1, 0);
        break;
    }
    case 0x0C: case 0x0D: case 0x0E: case 0x0F: case 0x10: case 0x11: /* LDR/STR(B,H) immediate */
        single_transfer(t, previous, (hw >> 11) & 1, hw & 7, (hw >> 3) & 7, NO_REGISTER, 0, 0);
        break;
    case 0x12: case 0x13: /* LDR/STR rt, [sp, #imm] */
        single_transfer(t, previous, (hw >> 11) & 1, (hw >> 8) & 7, SP, NO_REGISTER, 0, 0);
        break;
    case 0x14: case 0x15: /* ADR, ADD rd, sp, #imm */
        writes(t, (hw >> 8) & 7);
        break;
    case 0x18: case 0x19: /* STM / LDM */
        multiple_transfer(t, (hw >> 11) & 1, hw & 0xFF, (hw >> 8) & 7);
        break;
    case 0x1A: case 0x1B: { /* B<cond>, UDF, SVC */
        unsigned cond = (hw >> 8) & 0xF;
        if (cond < 0xE)
            branch_to(t, address + 4 + (uint32_t)(sign_extend(hw & 0xFF, 8) * 2), 1);
        break; /* SVC: its exception entry is charged when the handler starts */
    }
    case 0x1C: /* B */
        branch_to(t, address + 4 + (uint32_t)(sign_extend(hw & 0x7FF, 11) * 2), 0);
        break;
    default:
        if ((hw & 0xFC00) == 0x4000) { /* data processing on registers; TST, CMP, CMN write nothing */
            unsigned op = (hw >> 6) & 0xF;
            if (op != 8 && op != 10 && op != 11)
                writes(t, hw & 7);
        } else if ((hw & 0xFC00) == 0x4400) { /* special data processing, BX, BLX */
            unsigned op = (hw >> 8) & 3, rd = (hw & 7) | ((hw >> 4) & 8), rm = (hw >> 3) & 0xF;
            if (op == 3)
                branch_through(t, rm);
            else if (op != 1 && rd == PC) /* ADD pc / MOV pc */
                branch_through(t, rm);
            else if (op != 1)
                writes(t, rd);
        } else if ((hw & 0xFF00) == 0xB000) { /* ADD sp / SUB sp, #imm */
            writes(t, SP);
        } else if ((hw & 0xFF00) == 0xB200 || (hw & 0xFF00) == 0xBA00) { /* extends, REV */
            writes(t, hw & 7);
        } else if ((hw & 0xF500) == 0xB100) { /* CBZ, CBNZ */
            unsigned offset = ((hw >> 3) & 0x1F) << 1 | ((hw >> 9) & 1) << 6;
            branch_to(t, address + 4 + offset, 1);
        } else if ((hw & 0xFE00) == 0xB400) { /* PUSH */
            multiple_transfer(t, 0, (hw & 0xFF) | ((hw >> 8) & 1) << LR, SP);
        } else if ((hw & 0xFE00) == 0xBC00) { /* POP */
            multiple_transfer(t, 1, (hw & 0xFF) | ((hw >> 8) & 1) << PC, SP);
        }
        break;
    }
    return 2;
}

static unsigned thumb32(enum core_model core, uint32_t address, uint16_t hw1, uint16_t hw2,
                        const struct insn_timing *previous, struct insn_timing *t)
{
    unsigned op1 = (hw1 >> 11) & 3, rn = hw1 & 0xF;
    t->cycles = 1; /* data processing (immediate, register, shifted register), bit fields, MOVW/MOVT, CLZ */
    if (core == CORE_CORTEX_M4F && cortex_m_fpu_timing(t, hw1, hw2))
        return 4;
    if (op1 == 1) {
        if ((hw1 & 0x0640) == 0x0000) { /* LDM, STM, PUSH.W, POP.W */
            multiple_transfer(t, (hw1 >> 4) & 1, hw2, rn);
        } else if ((hw1 & 0x0640) == 0x0040) { /* dual, exclusive, table branch */
            unsigned op = (hw1 >> 7) & 3, load = (hw1 >> 4) & 1;
            if (op == 1 && load && (hw1 & 0x0020) == 0 && (hw2 & 0x00E0) == 0) {
                /* TBB, TBH. Table 3-1: 2 + P; 3.3.2: "at least two cycles for the load, one cycle for
                 * the add, and three cycles for the pipeline reload ... at least six": the point is six */
                t->cycles = 2 + 1 + TIMING_REFILL_BLOCKING;
                cortex_m_allow(t, 2 + TIMING_REFILL_LEAST, t->cycles);
                t->flow = FLOW_INDIRECT;
                t->address_mask = (uint16_t)(1u << rn | 1u << (hw2 & 0xF));
            } else if (op == 0 || (op == 1 && (hw1 & 0x0020) == 0)) { /* LDREX, STREX: as an LDR */
                single_transfer(t, previous, 1, (hw2 >> 12) & 0xF, rn, NO_REGISTER, 0, 0);
            } else { /* LDRD, STRD: 1 + 2 words, never pipelined */
                t->cycles = 3;
                t->address_mask = (uint16_t)(1u << rn);
            }
        } else if ((hw1 & 0x0600) == 0x0200) { /* data processing, shifted register; with rd = pc: a test */
            writes(t, (hw2 >> 8) & 0xF);
        }
        return 4;
    }
    if (op1 == 2) {
        if (!(hw2 & 0x8000)) { /* data processing with an immediate; with rd = pc: a test */
            writes(t, (hw2 >> 8) & 0xF);
            return 4;
        }
        unsigned op2 = (hw2 >> 12) & 7;
        if ((op2 & 5) == 0) { /* B<cond>.W, or the miscellaneous control instructions */
            if (((hw1 >> 7) & 7) != 7) {
                uint32_t imm = (hw2 & 0x7FF) << 1 | (hw1 & 0x3F) << 12 | ((hw2 >> 13) & 1) << 18 |
                               ((hw2 >> 11) & 1) << 19 | ((hw1 >> 10) & 1) << 20;
                branch_to(t, address + 4 + (uint32_t)sign_extend(imm, 21), 1);
            } else if ((hw1 & 0x07E0) == 0x0380 || (hw1 & 0x07E0) == 0x03E0) {
                t->cycles = 2; /* MSR, MRS: Table 3-1 "1 or 2"; the point takes 2 */
                cortex_m_allow(t, 1, 2);
                if ((hw1 & 0x07E0) == 0x03E0) /* MRS writes a register, outside data processing */
                    t->special_writes = (uint16_t)(1u << ((hw2 >> 8) & 0xF));
            } else if ((hw1 & 0x07F0) == 0x03B0 && ((hw2 >> 4) & 0xF) == 6) { /* ISB: its refill */
                add_refill(t, TIMING_REFILL_IMMEDIATE);
            }
            return 4; /* DSB, DMB: the minimum, B = 0; hints: 1 */
        }
        /* B.W and BL: S:I1:I2:imm10:imm11 */
        unsigned s = (hw1 >> 10) & 1, i1 = !(((hw2 >> 13) & 1) ^ s), i2 = !(((hw2 >> 11) & 1) ^ s);
        uint32_t imm = (hw2 & 0x7FF) << 1 | (hw1 & 0x3FF) << 12 | i2 << 22 | i1 << 23 | s << 24;
        branch_to(t, address + 4 + (uint32_t)sign_extend(imm, 25), 0);
        return 4;
    }
    /* op1 == 3 */
    unsigned op2 = (hw1 >> 4) & 0x7F;
    if ((op2 & 0x71) == 0x00 || (op2 & 0x67) == 0x01 || (op2 & 0x67) == 0x03 || (op2 & 0x67) == 0x05) {
        /* single load or store: register offset when hw2[11:6] == 0 (and not the immediate forms) */
        int load = op2 & 1, rt = (hw2 >> 12) & 0xF, word = (op2 & 0x67) == 0x05;
        int imm12 = (op2 >> 3) & 1; /* T3 forms: [Rn, #imm12] */
        int register_offset = !imm12 && rn != PC && (hw2 & 0x0FC0) == 0;
        int writeback = !imm12 && rn != PC && (hw2 & 0x0900) == 0x0900;
        if (load && rt == PC && !word) /* PLD: a hint, timed as the load it starts */
            rt = 0;
        single_transfer(t, previous, load, rt, rn, register_offset ? (hw2 & 0xF) : NO_REGISTER, register_offset,
                        rt == PC ? writeback && (hw2 & 0x00FF) == 4 : writeback);
    } else if ((op2 & 0x70) == 0x20) { /* data processing on registers: shifts, extends, REV, CLZ */
        writes(t, (hw2 >> 8) & 0xF);
    } else if ((op2 & 0x78) == 0x30) { /* multiply and multiply-accumulate */
        unsigned op = op2 & 7, op3 = (hw2 >> 4) & 0xF, ra = (hw2 >> 12) & 0xF;
        if (op == 0 && op3 == 0 && ra != PC)
            t->cycles = core == CORE_CORTEX_M3 ? 2 : 1; /* MLA */
        else if (op == 0 && op3 == 1)
            t->cycles = core == CORE_CORTEX_M3 ? 2 : 1; /* MLS */
        /* MUL and the M4's DSP multiplies: 1 */
        writes(t, (hw2 >> 8) & 0xF);
    } else if ((op2 & 0x78) == 0x38) { /* long multiplies, divides */
        unsigned op = op2 & 7;
        t->rn = (uint8_t)rn;
        t->rm = (uint8_t)(hw2 & 0xF);
        t->cycles = 0; /* all of it is charged when it executes, from its operands */
        writes(t, (hw2 >> 8) & 0xF); /* Rd, or RdHi */
        if (op == 1 || op == 3) {
            t->operands = op == 1 ? OPERANDS_SIGNED_DIVIDE : OPERANDS_UNSIGNED_DIVIDE;
            return 4;
        }
        writes(t, (hw2 >> 12) & 0xF); /* RdLo */
        if (core != CORE_CORTEX_M3)
            t->cycles = 1; /* the M4's long multiplies and accumulates are single-cycle, whatever the operands */
        else if (op == 0 || op == 2)
            t->operands = OPERANDS_LONG_MULTIPLY;
        else
            t->operands = OPERANDS_LONG_MULTIPLY_ACCUMULATE;
    }
    return 4;
}

/*
 * ARMv6-M: the Cortex-M0 (TRM DDI 0432C, 3.3 "Instruction set summary", Table 3-1) and the Cortex-M0+
 * (DDI 0484C, 3.3, Table 3.1), zero wait states. Each instruction has one figure in those tables (none
 * of the M3's P); neither TRM states a pipelining of neighbouring loads or an address-generation stall,
 * so none is applied. docs/measurement.md, "ARMv6-M", gives each rule with the TRM's words.
 */
struct armv6m_costs {
    uint8_t taken;       /* B, and B<cond> taken: M0 3, M0+ 2 */
    uint8_t call;        /* BL: M0 4, M0+ 3 */
    uint8_t indirect;    /* BX, BLX, MOV pc, ADD pc: M0 3, M0+ 2 */
    uint8_t pop_return;  /* POP {..., pc}: M0 4 + N, M0+ 3 + N: the constant */
    uint8_t special;     /* MRS, MSR, DSB, DMB, ISB: M0 4, M0+ 3 */
};

static const struct armv6m_costs cortex_m0_costs = {3, 4, 3, 4, 4};     /* DDI 0432C Table 3-1 */
static const struct armv6m_costs cortex_m0plus_costs = {2, 3, 2, 3, 3}; /* DDI 0484C Table 3.1 */

#define ARMV6M_LOAD_STORE 2     /* both tables: every LDR and STR form "2" (M0+: "2 or 1", 1 on its I/O port) */
#define ARMV6M_MULTIPLY 1       /* MULS "1 or 32": the fast multiplier, as the nRF51 is taken to have */
#define ARMV6M_MULTIPLY_MOST 32 /* the small multiplier's */
#define ARMV6M_SLEEP 2          /* WFE, WFI: "2" (the wait for the event is not the instruction's) */

/* A branch: its whole cost, of which all but its first cycle is the refill (what an exception return,
 * whose unstacking replaces it, takes back). */
static void armv6m_branch(struct insn_timing *t, uint32_t cycles)
{
    t->cycles = cycles;
    t->refill = (uint8_t)(cycles - 1);
}

int cortex_m_is_armv6m(enum core_model core) { return core == CORE_CORTEX_M0 || core == CORE_CORTEX_M0PLUS; }

static unsigned armv6m_timing(enum core_model core, uint32_t address, uint16_t hw1, uint16_t hw2,
                              struct insn_timing *t)
{
    const struct armv6m_costs *costs = core == CORE_CORTEX_M0 ? &cortex_m0_costs : &cortex_m0plus_costs;
    t->cycles = 1; /* moves, data processing, compares, shifts, extends, REV, CPS, SEV, YIELD, NOP, SVC, BKPT */
    if ((hw1 >> 11) >= 0x1D) { /* the 32-bit ones: BL, MSR, MRS, DSB, DMB, ISB */
        if ((hw2 & 0xD000) == 0xD000) { /* BL: S:I1:I2:imm10:imm11 */
            unsigned s = (hw1 >> 10) & 1, i1 = !(((hw2 >> 13) & 1) ^ s), i2 = !(((hw2 >> 11) & 1) ^ s);
            uint32_t imm = (hw2 & 0x7FF) << 1 | (hw1 & 0x3FF) << 12 | i2 << 22 | i1 << 23 | s << 24;
            t->target = address + 4 + (uint32_t)sign_extend(imm, 25);
            t->flow = FLOW_DIRECT;
            armv6m_branch(t, costs->call);
        } else {
            t->cycles = costs->special;
        }
        return 4;
    }
    unsigned op = hw1 >> 11;
    if (op == 0x09 || (op >= 0x0A && op <= 0x13)) { /* LDR literal; loads and stores, register or immediate */
        t->cycles = ARMV6M_LOAD_STORE;
    } else if (op == 0x18 || op == 0x19) { /* STM, LDM */
        t->cycles = 1 + popcount16(hw1 & 0xFF);
    } else if (op == 0x1A || op == 0x1B) { /* B<cond>, UDF, SVC */
        unsigned cond = (hw1 >> 8) & 0xF;
        if (cond < 0xE) { /* 1 not taken; taken, the plugin adds the rest when the next block starts */
            t->target = address + 4 + (uint32_t)(sign_extend(hw1 & 0xFF, 8) * 2);
            t->flow = FLOW_CONDITIONAL;
        }
    } else if (op == 0x1C) { /* B */
        t->target = address + 4 + (uint32_t)(sign_extend(hw1 & 0x7FF, 11) * 2);
        t->flow = FLOW_DIRECT;
        armv6m_branch(t, costs->taken);
    } else if ((hw1 & 0xFC00) == 0x4400) { /* ADD, CMP, MOV on high registers, BX, BLX */
        unsigned kind = (hw1 >> 8) & 3, rd = (hw1 & 7) | ((hw1 >> 4) & 8), rm = (hw1 >> 3) & 0xF;
        if (kind == 3 || (kind != 1 && rd == PC)) {
            t->flow = FLOW_INDIRECT;
            t->indirect_register = (uint8_t)rm;
            armv6m_branch(t, costs->indirect);
        }
    } else if ((hw1 & 0xFFC0) == 0x4340) { /* MULS */
        cortex_m_allow(t, ARMV6M_MULTIPLY, ARMV6M_MULTIPLY_MOST);
    } else if ((hw1 & 0xFE00) == 0xB400) { /* PUSH */
        t->cycles = 1 + popcount16((hw1 & 0xFF) | ((hw1 >> 8) & 1) << LR);
    } else if ((hw1 & 0xFE00) == 0xBC00) { /* POP, with PC: "and return" */
        unsigned registers = popcount16(hw1 & 0xFF);
        if (hw1 & 0x0100) {
            t->flow = FLOW_INDIRECT;
            t->pops_pc_from_sp = (uint8_t)(registers + 1); /* pc is the last word popped */
            t->cycles = costs->pop_return + registers + 1;
            t->refill = (uint8_t)(costs->pop_return - 1); /* beyond POP's own 1 + N */
        } else {
            t->cycles = 1 + registers;
        }
    } else if (hw1 == 0xBF20 || hw1 == 0xBF30) { /* WFE, WFI */
        t->cycles = ARMV6M_SLEEP;
    }
    return 2;
}

/* 3.3.2: "Any load or store that generates an address dependent on the result of a preceding data
 * processing operation stalls the pipeline for an additional cycle" (there is no forwarding path).
 * Whether an MRS result counts is not said: the range allows the cycle, the point does not charge it. */
static struct cost address_dependency(const struct insn_timing *previous, const struct insn_timing *next)
{
    struct cost extra = {0, 0, 0};
    if (next->address_mask & previous->alu_writes)
        extra.cycles = 1;
    else if (next->address_mask & previous->special_writes)
        extra.above = 1;
    return extra;
}

unsigned cortex_m_timing(enum core_model core, uint32_t address, uint16_t hw1, uint16_t hw2,
                         const struct insn_timing *previous, struct insn_timing *out)
{
    memset(out, 0, sizeof *out);
    out->indirect_register = NO_REGISTER;
    if (cortex_m_is_armv6m(core))
        return armv6m_timing(core, address, hw1, hw2, out);
    unsigned size = (hw1 >> 11) >= 0x1D ? thumb32(core, address, hw1, hw2, previous, out)
                                        : thumb16(address, hw1, previous, out);
    if (previous) {
        struct cost extra = address_dependency(previous, out);
        out->cycles += extra.cycles;
        out->address_stall = (uint8_t)extra.cycles;
        out->above += (uint8_t)extra.above;
        /* Table 7-1's note: FP arithmetic instructions "take one cycle longer if their result is consumed
         * by the following instruction": charged to the instruction that consumes it */
        if (previous->fp_results & out->fp_operands) {
            out->cycles += 1;
            out->fp_stall = 1;
        }
    }
    return size;
}

struct cost cortex_m_across(const struct insn_timing *previous, const struct insn_timing *next)
{
    struct cost extra = address_dependency(previous, next);
    if (pipelines_behind(previous, next))
        extra.cycles -= 1; /* never together with a stall, which needs data processing before it */
    return extra;
}

uint8_t cortex_m_it_condition(struct it_state *state, uint16_t hw1)
{
    uint8_t condition = CONDITION_ALWAYS;
    if (state->bits) {
        condition = state->bits >> 4;
        state->bits = (state->bits & 7) == 0 ? 0 : (uint8_t)((state->bits & 0xE0) | ((state->bits << 1) & 0x1F));
    } else if ((hw1 & 0xFF00) == 0xBF00 && (hw1 & 0xF)) { /* IT: the block starts after it */
        state->bits = (uint8_t)(hw1 & 0xFF);
    }
    return condition;
}

/* A fixed cost, or a point with its range. */
static struct cost exactly(int32_t cycles) { return (struct cost){cycles, 0, 0}; }
static struct cost point_within(int32_t cycles, int32_t least, int32_t most)
{
    return (struct cost){cycles, (uint32_t)(cycles - least), (uint32_t)(most - cycles)};
}

/*
 * The exception flow. Cortex-M3/M4: entry 12 (5.5.1), exit 10 (Figure 5-5), tail-chain 6 (5.6), a taken
 * conditional branch 1 + P. ARMv6-M: the entry is the TRMs' interrupt latency, 16 on the M0 and 15 on
 * the M0+ (DDI 0484C 3.6.1, "is 15 cycles"); neither TRM gives the exit or the tail-chain, so the model
 * derives them from its own figures. A return that popped the eight-word frame itself would be the
 * tables' "POP and return" with N = 8: 4 + 8 on the M0, 3 + 8 on the M0+, of which the first cycle is
 * the instruction's issue. The returning instruction has paid that cycle already (BX its first; POP
 * its 1 + N), so the exit charged after it is the rest: 4 + 8 - 1 = 11 (M0+ 10), as the M3's BX 1 +
 * exit 10 is the 1 + N of an eight-word POP with its refill. Its range: the eight words alone (8) to
 * the entry's latency less that first cycle (unstacking mirrors stacking). A tail-chain skips the
 * eight words of stacking and unstacking: the entry less eight (8, 7), between the M3's six (5.6) and
 * the entry. A taken B<cond> costs the B's 3 (2) where untaken it costs 1.
 */
#define ARMV6M_FRAME_WORDS 8 /* r0-r3, r12, lr, pc, xPSR */
#define ARMV6M_ISSUE 1       /* the returning instruction's first cycle, which it charges itself */

static struct cost armv6m_exit(const struct armv6m_costs *costs, int32_t entry)
{
    return point_within(costs->pop_return + ARMV6M_FRAME_WORDS - ARMV6M_ISSUE, ARMV6M_FRAME_WORDS,
                        entry - ARMV6M_ISSUE);
}

struct flow_costs cortex_m_flow_costs(enum core_model core)
{
    if (core == CORE_CORTEX_M0)
        return (struct flow_costs){exactly(16), armv6m_exit(&cortex_m0_costs, 16),
                                   point_within(16 - ARMV6M_FRAME_WORDS, 6, 16), exactly(cortex_m0_costs.taken - 1)};
    if (core == CORE_CORTEX_M0PLUS)
        return (struct flow_costs){exactly(15), armv6m_exit(&cortex_m0plus_costs, 15),
                                   point_within(15 - ARMV6M_FRAME_WORDS, 6, 15),
                                   exactly(cortex_m0plus_costs.taken - 1)};
    return (struct flow_costs){exactly(TIMING_EXCEPTION_ENTRY), exactly(TIMING_EXCEPTION_EXIT),
                               exactly(TIMING_TAIL_CHAIN),
                               point_within(TIMING_REFILL_IMMEDIATE, TIMING_REFILL_LEAST, TIMING_REFILL_MOST)};
}
