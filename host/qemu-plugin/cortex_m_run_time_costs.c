/*
 * What only execution decides in switchscope's Cortex-M timing model, from
 * the registers as an instruction executes: whether an IT block's
 * instruction executes, and the cycles of the instructions whose cost
 * depends on their operands (divides, long multiplies).
 */
#include "cortex_m_timing.h"

int cortex_m_condition_holds(uint8_t cond, uint32_t xpsr)
{
    int n = (xpsr >> 31) & 1, z = (xpsr >> 30) & 1, c = (xpsr >> 29) & 1, v = (xpsr >> 28) & 1;
    int holds;
    switch (cond >> 1) {
    case 0: holds = z; break;            /* EQ / NE */
    case 1: holds = c; break;            /* CS / CC */
    case 2: holds = n; break;            /* MI / PL */
    case 3: holds = v; break;            /* VS / VC */
    case 4: holds = c && !z; break;      /* HI / LS */
    case 5: holds = n == v; break;       /* GE / LT */
    case 6: holds = n == v && !z; break; /* GT / LE */
    default: return 1;                   /* AL */
    }
    return (cond & 1) ? !holds : holds;
}

static unsigned leading_zeros(uint32_t value)
{
    return value ? (unsigned)__builtin_clz(value) : 32;
}

/* Significant bits of a multiply operand: early termination by operand size. */
static int is_wide(uint32_t value)
{
    int32_t signed_value = (int32_t)value;
    return value > 0xFFFF && !(signed_value < 0 && signed_value >= -0x8000);
}

/* A cost of `cycles` that the TRM lets go from `least` to `most`. */
static struct cost within(uint32_t cycles, uint32_t least, uint32_t most)
{
    struct cost cost = {(int32_t)cycles, cycles - least, most - cycles};
    return cost;
}

struct cost cortex_m_operand_cycles(enum core_model core, enum insn_operands kind, uint32_t rn, uint32_t rm)
{
    (void)core;
    switch (kind) {
    case OPERANDS_SIGNED_DIVIDE: /* as unsigned, on the magnitudes */
        rn = (int32_t)rn < 0 ? -rn : rn;
        rm = (int32_t)rm < 0 ? -rm : rm;
        /* fall through */
    case OPERANDS_UNSIGNED_DIVIDE: {
        /* Table 3-1: 2 to 12 cycles by early termination. The point used here: 2 when the
         * quotient is 0 (dividend below divisor, or a zero divisor), else 2 plus one
         * cycle per 3 quotient bits, at most 12. Quotient bits: the difference of the
         * operands' leading zeros, plus one. Magnitudes for SDIV as for UDIV. */
        if (rm == 0 || rn < rm)
            return within(2, 2, 12);
        unsigned quotient_bits = leading_zeros(rm) - leading_zeros(rn) + 1;
        uint32_t cycles = 2 + (quotient_bits + 2) / 3;
        return within(cycles > 12 ? 12 : cycles, 2, 12);
    }
    case OPERANDS_LONG_MULTIPLY: /* 3 to 5: 3, plus one per operand wider than 16 bits */
        return within(3 + (uint32_t)is_wide(rn) + (uint32_t)is_wide(rm), 3, 5);
    case OPERANDS_LONG_MULTIPLY_ACCUMULATE: /* 4 to 7: 4, 5 with one wide operand, 7 with two */
        return within(is_wide(rn) && is_wide(rm) ? 7 : 4 + (uint32_t)(is_wide(rn) || is_wide(rm)), 4, 7);
    default:
        return within(0, 0, 0);
    }
}
