/*
 * The Cortex-M4's FPU (FPv4-SP) in switchscope's Cortex-M timing model
 * (core=cortex-m4f): the Cortex-M4 TRM (DDI 0439D), 7.2.3, Table 7-1.
 */
#include "cortex_m_timing.h"

#define APSR_NZCV 15 /* VMRS's Rt 15: FPSCR's flags into the APSR, no core register written */

/* A single-precision register's number from its four bits and the extra bit (Vd:D, Vn:N, Vm:M). */
static unsigned single_register(unsigned four, unsigned extra) { return four << 1 | extra; }

/* The single registers s<first> .. s<first + count - 1> as a mask (a double dN is s<2N>, s<2N+1>: 7.2.1). */
static uint32_t singles(unsigned first, unsigned count)
{
    uint32_t mask = 0;
    for (unsigned i = 0; i < count && first + i < 32; i++)
        mask |= 1u << (first + i);
    return mask;
}

/* VLDR, VSTR, VLDM, VSTM, VPUSH, VPOP. Table 7-1: "single float" 2, "single double" 3; multiple
 * "1+N, where N is the number of floats", "1+2*N, where N is the number of doubles": imm8 counts
 * the words either way, so 1 + imm8. */
static void fp_transfer(struct insn_timing *t, uint16_t hw1, uint16_t hw2)
{
    unsigned rn = hw1 & 0xF, load = (hw1 >> 4) & 1, writeback = (hw1 >> 5) & 1, pre = (hw1 >> 8) & 1;
    /* a base update (VPUSH, VPOP, VLDM/VSTM with !) is no data processing: as PUSH and POP, no stall after */
    unsigned words = hw2 & 0xFF, is_double = (hw2 >> 8) & 1, d = (hw1 >> 6) & 1, vd = (hw2 >> 12) & 0xF;
    unsigned first = is_double ? (d << 4 | vd) * 2 : single_register(vd, d);
    t->address_mask = (uint16_t)(1u << rn);
    if (pre && !writeback) { /* VLDR, VSTR */
        t->cycles = is_double ? 3 : 2;
        words = is_double ? 2 : 1;
    } else {
        t->cycles = 1 + words;
    }

    if (!load)
        t->fp_operands = singles(first, words);
}

/* The FP data-processing instructions (CDP): Table 7-1. Their result is "consumed by the following
 * instruction" for the note's extra cycle when they are arithmetic (add, subtract, multiply, divide,
 * square root, the multiply-accumulates, conversions), not VABS, VNEG, VMOV or VCMP. */
static void fp_data_processing(struct insn_timing *t, uint16_t hw1, uint16_t hw2)
{
    unsigned opc1 = (hw1 >> 4) & 0xB, opc2 = hw1 & 0xF, opc3 = (hw2 >> 6) & 3;
    unsigned sd = single_register((hw2 >> 12) & 0xF, (hw1 >> 6) & 1);
    uint32_t sn = 1u << single_register(hw1 & 0xF, (hw2 >> 7) & 1);
    uint32_t sm = 1u << single_register(hw2 & 0xF, (hw2 >> 5) & 1);
    int arithmetic = 1;
    t->cycles = 1; /* VADD, VSUB, VMUL, VNMUL, VABS, VNEG, VCMP, VCVT, VMOV: "1" */
    t->fp_operands = sn | sm;
    switch (opc1) {
    case 0x0: case 0x1: case 0x9: case 0xA: /* VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA, VFNMS: "3" */
        t->cycles = 3; /* the addend, s<d>, is consumed a cycle later (the note): not an operand here */
        break;
    case 0x8: /* VDIV: "14"; the note: "one cycle if no more floating-point instructions are executed" */
        t->cycles = 14;
        cortex_m_allow(t, TIMING_FP_VDIV_LEAST, 14);
        break;
    case 0xB: /* VMOV immediate, and the two-register group by opc2 */
        t->fp_operands = sm;
        if ((opc3 & 1) == 0) { /* VMOV immediate */
            t->fp_operands = 0;
            arithmetic = 0;
        } else if (opc2 == 0x1 && opc3 == 3) { /* VSQRT: "14", as VDIV */
            t->cycles = 14;
            cortex_m_allow(t, TIMING_FP_VDIV_LEAST, 14);
        } else if (opc2 == 0x0 || opc2 == 0x1) { /* VMOV register, VABS, VNEG */
            arithmetic = 0;
        } else if (opc2 == 0x4 || opc2 == 0x5) { /* VCMP, VCMPE (0x5: with zero): the flags only */
            arithmetic = 0;
            if (opc2 == 0x5)
                t->fp_operands = 0;
            t->fp_operands |= 1u << sd;
        }
        break;
    default: /* 0x2 VMUL, VNMUL; 0x3 VADD, VSUB */
        break;
    }
    if (arithmetic)
        t->fp_results = 1u << sd;
}

int cortex_m_fpu_timing(struct insn_timing *t, uint16_t hw1, uint16_t hw2)
{
    if ((hw1 & 0xFC00) != 0xEC00 || ((hw2 >> 8) & 0xE) != 0xA)
        return 0;
    unsigned op1 = (hw1 >> 4) & 0x3F;
    t->is_fp = 1;
    if ((op1 & 0x20) == 0) {
        if ((op1 & 0x3A) == 0x00) { /* VMOV of two core registers and two singles or a double: "2" */
            t->cycles = 2;
            if (op1 & 1) { /* to the core registers: reads the FP registers; writes two, not by data processing */
                t->fp_operands = singles(single_register(hw2 & 0xF, (hw2 >> 5) & 1), 2);
                t->special_writes = (uint16_t)(1u << ((hw2 >> 12) & 0xF) | 1u << (hw1 & 0xF));
            }
        } else {
            fp_transfer(t, hw1, hw2);
        }
    } else if ((hw2 & 0x10) == 0) {
        fp_data_processing(t, hw1, hw2);
    } else if ((hw2 & 0x0100) || (hw1 & 0x00E0) == 0x00E0) {
        /* VMOV of a double's half, VMRS, VMSR: "1" */
        t->cycles = 1;
        if ((hw1 & 0x00E0) == 0x00E0 && (hw1 & 0x10) && ((hw2 >> 12) & 0xF) != APSR_NZCV)
            t->special_writes = (uint16_t)(1u << ((hw2 >> 12) & 0xF)); /* VMRS rt: as MRS, no data processing */
    } else {
        /* VMOV between a core register and a single. Table 7-1 (DDI 0439D), row "Move | two floats/one
         * double to/from two core registers or one float to/from one core register | VMOV | 2": the point
         * is the row's 2. Published measurements on silicon (compendium.i-0.nl, "FPU registers") time
         * this single move at 1 cycle, the two-register one at the row's 2: the range takes 1 to 2. */
        t->cycles = TIMING_FP_VMOV_CORE;
        cortex_m_allow(t, TIMING_FP_VMOV_CORE_LEAST, TIMING_FP_VMOV_CORE);
        unsigned sn = single_register(hw1 & 0xF, (hw2 >> 7) & 1);
        if (hw1 & 0x10) { /* to the core register: as MRS, not data processing, for the address stall */
            t->fp_operands = 1u << sn;
            t->special_writes = (uint16_t)(1u << ((hw2 >> 12) & 0xF));
        }
    }
    return 1;
}
