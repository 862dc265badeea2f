/*
 * The probe's stamps, logged as "stamp": on a Cortex-M (stamp=ADDRESS, the
 * probe's timer register) every load of it whose address was formed by
 * MOVW/MOVT, or on ARMv6-M by a literal load, in the same block, as the
 * probe's fixed sequence does; on Ibex (stamp_csr=CSR) the probe's reads of
 * that CSR ("csrr rd, mcycle" in its fixed sequence).
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_timing.h"
#include "switchscope_plugin.h"

static uint64_t stamp_register; /* 0: none */
static uint16_t stamp_csr;      /* 0: none */
static struct watch stamp_watch = {0, "stamp"};

int stamps_argument(const char *arg)
{
    if (!strncmp(arg, "stamp_csr=", 10))
        stamp_csr = (uint16_t)strtoul(arg + 10, NULL, 0);
    else if (!strncmp(arg, "stamp=", 6))
        stamp_register = strtoull(arg + 6, NULL, 0);
    else
        return 0;
    return 1;
}

/* MOVW or MOVT: the register it writes and the half it sets. */
static int move_wide(uint16_t hw1, uint16_t hw2, unsigned *rd, uint32_t *imm16, int *top)
{
    if ((hw1 & 0xFBF0) != 0xF240 && (hw1 & 0xFBF0) != 0xF2C0)
        return 0;
    *rd = (hw2 >> 8) & 0xF;
    *imm16 = (hw1 & 0xF) << 12 | ((hw1 >> 10) & 1) << 11 | ((hw2 >> 12) & 7) << 8 | (hw2 & 0xFF);
    *top = (hw1 & 0x0080) != 0;
    return 1;
}

/* LDR rt, [pc, #imm] at `address`: the register it loads and the word it loads (the literal, read from
 * the image), as ARMv6-M forms an address where ARMv7-M has MOVW/MOVT. */
static int literal_load(uint64_t address, uint16_t hw1, unsigned *rd, uint32_t *value)
{
    if ((hw1 & 0xF800) != 0x4800)
        return 0;
    *rd = (hw1 >> 8) & 7;
    uint64_t literal = ((address + 4) & ~UINT64_C(3)) + 4u * (hw1 & 0xFF);
    GByteArray *read = read_memory(literal, 4);
    if (!read || read->len < 4)
        return 0;
    memcpy(value, read->data, 4);
    return 1;
}

/* The values MOVW and MOVT (ARMv7-M) or a literal load (ARMv6-M) put into
 * registers within a block, to recognise a load of the stamp timer: returns 1
 * when this instruction is such a load. When the block starts between the
 * address's forming and the load (QEMU ends blocks at 1 KB boundaries), the
 * instructions before it are read back. */
static int loads_stamp_register(uint64_t address, uint16_t hw1, uint16_t hw2, uint32_t known[16], uint16_t *valid)
{
    unsigned rd, rn;
    uint32_t imm16, literal;
    int top;
    if (move_wide(hw1, hw2, &rd, &imm16, &top)) {
        known[rd] = top ? (known[rd] & 0xFFFF) | imm16 << 16 : imm16;
        *valid = top ? *valid : (uint16_t)(*valid | 1u << rd);
        return 0;
    }
    if (cortex_m_is_armv6m(cortex_m_core) && literal_load(address, hw1, &rd, &literal)) {
        known[rd] = literal;
        *valid = (uint16_t)(*valid | 1u << rd);
        return 0;
    }
    if ((hw1 & 0xFFC0) == 0x6800) /* LDR rt, [rn, #0] */
        rn = (hw1 >> 3) & 7;
    else if ((hw1 & 0xFFF0) == 0xF8D0 && (hw2 & 0x0FFF) == 0) /* LDR.W rt, [rn, #0] */
        rn = hw1 & 0xF;
    else
        return 0;
    if (*valid >> rn & 1)
        return known[rn] == stamp_register;
    GByteArray *read = address < 8 ? NULL : read_memory(address - 8, 8);
    if (!read || read->len < 8)
        return 0;
    uint16_t before[4];
    memcpy(before, read->data, 8);
    /* the instruction just before, a literal load on ARMv6-M; else the two before, MOVW then MOVT */
    if (cortex_m_is_armv6m(cortex_m_core) && literal_load(address - 2, before[3], &rd, &literal))
        return rd == rn && literal == stamp_register;
    uint32_t low, high;
    unsigned rd_low, rd_high;
    int top_low, top_high;
    return move_wide(before[0], before[1], &rd_low, &low, &top_low) && !top_low && rd_low == rn &&
           move_wide(before[2], before[3], &rd_high, &high, &top_high) && top_high && rd_high == rn &&
           (high << 16 | low) == stamp_register;
}

/* Returns 1 when the instruction is a stamp, its watch registered. */
int register_cortex_m_stamp(struct qemu_plugin_insn *insn, uint64_t address, uint16_t hw1, uint16_t hw2,
                            uint32_t known[16], uint16_t *valid)
{
    if (!stamp_register || !loads_stamp_register(address, hw1, hw2, known, valid))
        return 0;
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_watched, QEMU_PLUGIN_CB_NO_REGS, &stamp_watch);
    return 1;
}

/* The csrr at `address` (`word`) with the instructions around it, read from the image (a block may start or
 * end between them), is the probe's stamp sequence. */
static int is_stamp_sequence(uint64_t address, uint32_t word)
{
    uint32_t around[3];
    GByteArray *read = address < 4 ? NULL : read_memory(address - 4, 12);
    if (!read || read->len < 12)
        return 0;
    memcpy(around, read->data, 12);
    return ibex_is_stamp(around[0], word, around[2], stamp_csr);
}

void register_ibex_stamp(struct qemu_plugin_insn *insn, uint64_t address, uint32_t word, uint16_t reads_csr)
{
    if (stamp_csr && reads_csr == stamp_csr && is_stamp_sequence(address, word))
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_watched, QEMU_PLUGIN_CB_NO_REGS, &stamp_watch);
}
