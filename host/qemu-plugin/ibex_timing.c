/*
 * The Ibex timing model's per-instruction costs (ibex_timing.h holds each
 * rule with its documentation sentence): RV32IMC decoded into the classes of
 * pipeline_details.rst's table. A compressed instruction costs what its
 * 32-bit form costs: instruction_fetch.rst, "Compressed instructions are
 * expanded by the IF stage so the decoder can always deal with uncompressed
 * instructions".
 */
#include "ibex_timing.h"

#include <string.h>

static uint32_t bits(uint32_t word, unsigned high, unsigned low)
{
    return (word >> low) & ((1u << (high - low + 1)) - 1u);
}

static int32_t sign_extend(uint32_t value, unsigned width)
{
    uint32_t sign = 1u << (width - 1);
    return (int32_t)((value ^ sign) - sign);
}

static void set_flow(struct ibex_timing *out, enum ibex_flow flow, uint8_t cycles, uint32_t target)
{
    out->flow = flow;
    out->cycles = cycles;
    out->target = target;
}

static void time_32bit(const struct ibex_costs *costs, uint32_t address, uint32_t w, struct ibex_timing *out)
{
    uint32_t opcode = bits(w, 6, 0), funct3 = bits(w, 14, 12);
    switch (opcode) {
    case 0x03: /* LOAD */
    case 0x23: /* STORE */
        out->cycles = IBEX_LOAD_STORE;
        out->accesses_memory = 1;
        return;
    case 0x6F: { /* JAL: imm[20|10:1|11|19:12] = inst[31|30:21|20|19:12] */
        uint32_t imm = bits(w, 31, 31) << 20 | bits(w, 19, 12) << 12 | bits(w, 20, 20) << 11 | bits(w, 30, 21) << 1;
        set_flow(out, IBEX_FLOW_JUMP, IBEX_JUMP, address + (uint32_t)sign_extend(imm, 21));
        return;
    }
    case 0x67: /* JALR */
        set_flow(out, IBEX_FLOW_INDIRECT, IBEX_JUMP, 0);
        return;
    case 0x63: { /* BRANCH: imm[12|10:5] = inst[31|30:25], imm[4:1|11] = inst[11:8|7] */
        uint32_t imm = bits(w, 31, 31) << 12 | bits(w, 7, 7) << 11 | bits(w, 30, 25) << 5 | bits(w, 11, 8) << 1;
        set_flow(out, IBEX_FLOW_BRANCH, IBEX_BRANCH, address + (uint32_t)sign_extend(imm, 13));
        return;
    }
    case 0x33: /* OP: the M extension has funct7 = 1 */
        if (bits(w, 31, 25) == 1) {
            if (funct3 == 0)
                out->cycles = IBEX_MUL;
            else if (funct3 < 4)
                out->cycles = IBEX_MULH;
            else {
                out->cycles = costs->divide;
                out->divides = 1;
                out->divisor = (uint8_t)bits(w, 24, 20);
            }
        }
        return;
    case 0x0F: /* MISC-MEM: FENCE.I is a jump to the next instruction; FENCE, not in the table, as integer */
        if (funct3 == 1)
            out->cycles = IBEX_JUMP;
        return;
    case 0x73: /* SYSTEM */
        if (funct3 == 0) {
            if (w == 0x00000073u || w == 0x00100073u) /* ECALL, EBREAK */
                set_flow(out, IBEX_FLOW_TRAP, costs->trap_instruction, 0);
            else if (w == 0x30200073u) /* MRET */
                set_flow(out, IBEX_FLOW_MRET, costs->mret, 0);
            return; /* WFI: its sleep is not modelled (no scenario sleeps in a window) */
        }
        uint32_t csr = bits(w, 31, 20), source = bits(w, 19, 15); /* rs1, or the immediate of the I forms */
        if (funct3 == 2 && source == 0 && bits(w, 11, 7) != 0) /* CSRRS rd, csr, x0: csrr */
            out->reads_csr = (uint16_t)csr;
        /* CSRRW(I) always writes; CSRRS(I) with a source other than x0 (or 0) sets; CSRRC(I) only clears */
        int writes = (funct3 & 3) == 1 || ((funct3 & 3) == 2 && source != 0);
        if (writes && (csr == IBEX_CSR_MSTATUS || csr == IBEX_CSR_MIE))
            out->cycles = costs->enabling_csr_write;
        return;
    default: /* LUI, AUIPC, OP-IMM, OP: integer computational */
        return;
    }
}

static void time_16bit(const struct ibex_costs *costs, uint32_t address, uint32_t w, struct ibex_timing *out)
{
    uint32_t quadrant = bits(w, 1, 0), funct3 = bits(w, 15, 13);
    if (quadrant == 0) { /* C.LW, C.SW; C.ADDI4SPN integer */
        if (funct3 == 2 || funct3 == 6) {
            out->cycles = IBEX_LOAD_STORE;
            out->accesses_memory = 1;
        }
        return;
    }
    if (quadrant == 1) {
        if (funct3 == 1 || funct3 == 5) { /* C.JAL, C.J: offset[11|4|9:8|10|6|7|3:1|5] = inst[12|11|10:9|8|7|6|5:3|2] */
            uint32_t imm = bits(w, 12, 12) << 11 | bits(w, 11, 11) << 4 | bits(w, 10, 9) << 8 | bits(w, 8, 8) << 10 |
                           bits(w, 7, 7) << 6 | bits(w, 6, 6) << 7 | bits(w, 5, 3) << 1 | bits(w, 2, 2) << 5;
            set_flow(out, IBEX_FLOW_JUMP, IBEX_JUMP, address + (uint32_t)sign_extend(imm, 12));
        } else if (funct3 == 6 || funct3 == 7) { /* C.BEQZ, C.BNEZ: offset[8|4:3] = inst[12|11:10],
                                                  * offset[7:6|2:1|5] = inst[6:5|4:3|2] */
            uint32_t imm = bits(w, 12, 12) << 8 | bits(w, 11, 10) << 3 | bits(w, 6, 5) << 6 | bits(w, 4, 3) << 1 |
                           bits(w, 2, 2) << 5;
            set_flow(out, IBEX_FLOW_BRANCH, IBEX_BRANCH, address + (uint32_t)sign_extend(imm, 9));
        }
        return; /* the rest: integer computational */
    }
    if (quadrant == 2) {
        if (funct3 == 2 || funct3 == 6) { /* C.LWSP, C.SWSP */
            out->cycles = IBEX_LOAD_STORE;
            out->accesses_memory = 1;
        } else if (funct3 == 4 && bits(w, 6, 2) == 0) { /* C.JR, C.JALR (rs1 != 0), C.EBREAK (rs1 = 0, bit 12) */
            if (bits(w, 11, 7) != 0)
                set_flow(out, IBEX_FLOW_INDIRECT, IBEX_JUMP, 0);
            else if (bits(w, 12, 12))
                set_flow(out, IBEX_FLOW_TRAP, costs->trap_instruction, 0);
        }
    }
}

void ibex_timing(const struct ibex_costs *costs, uint32_t address, uint32_t word, struct ibex_timing *out)
{
    memset(out, 0, sizeof *out);
    out->cycles = IBEX_ALU;
    if ((word & 3u) == 3u) {
        out->size = 4;
        time_32bit(costs, address, word, out);
    } else {
        out->size = 2;
        time_16bit(costs, address, word & 0xFFFFu, out);
    }
}

int ibex_split_fetch(uint64_t target, unsigned size)
{
    return size == 4 && (target & 3u) == 2u;
}

int ibex_is_stamp(uint32_t before, uint32_t word, uint32_t after, uint16_t csr)
{
    uint32_t address_register = bits(before, 11, 7), count_register = bits(word, 11, 7);
    return (before & 0x7Fu) == 0x37u &&                                        /* lui rA */
           (word & 0xFFFFF07Fu) == ((uint32_t)csr << 20 | 2u << 12 | 0x73u) &&   /* csrrs rB, csr, x0 */
           (after & 0x707Fu) == (2u << 12 | 0x23u) &&                          /* sw */
           bits(after, 24, 20) == count_register && bits(after, 19, 15) == address_register;
}
