/* RV32 (Ibex): each window is one group of instructions whose cycles Ibex's
 * pipeline documentation gives (tests/run/test_ibex.py works them out); the
 * tag is the group's number, in the order of `groups` below.
 *
 * Nothing is set up inside a window: the operands are sp, which is never 0,
 * and zero; loads read the caller's frame above sp and stores write below it,
 * where nothing lives. 32-bit encodings (norvc) but in the compressed group.
 * Each jump and taken branch lands on a word address (the padding before it
 * is jumped over, and linker relaxation keeps it aligning): a 32-bit
 * instruction 2 bytes past a word would cost a second fetch. */
#include "switchscope/harness.h"

#if !defined(__riscv)
#error "ibex_instruction_groups times RV32 instructions"
#endif

#define ALIGNED_LANDING ".option push\n\t.option rvc\n\t.balign 4\n\t.option pop\n1:\n\t"

#define GROUP(name, instructions)                                                            \
    static void __attribute__((noinline)) group_##name(void)                                 \
    {                                                                                        \
        PROBE_OPEN();                                                                        \
        __asm__ volatile(".option push\n\t.option norvc\n\t" instructions ".option pop"      \
                         ::: "t0", "t1", "t2", "t3", "memory");                              \
        PROBE_CLOSE();                                                                       \
    }

#define FOUR(text) text text text text

GROUP(alu, FOUR("addi t0, t0, 1\n\t") FOUR("addi t1, t1, 1\n\t"))
GROUP(load, "lw t0, 0(sp)\n\tlw t1, 4(sp)\n\tlw t2, 8(sp)\n\tlw t3, 12(sp)\n\t")
GROUP(store, "sw zero, -4(sp)\n\tsw zero, -8(sp)\n\tsw zero, -12(sp)\n\tsw zero, -16(sp)\n\t")
GROUP(jump, FOUR("jal zero, 1f\n\t" ALIGNED_LANDING))
GROUP(taken, FOUR("beq zero, zero, 1f\n\t" ALIGNED_LANDING))
GROUP(not_taken, FOUR("bne zero, zero, 2f\n\t") "2:\n\t")
GROUP(mul, "mul t0, sp, sp\n\tmul t1, sp, sp\n\tmul t2, sp, sp\n\tmul t3, sp, sp\n\t")
GROUP(mulh, "mulh t0, sp, sp\n\tmulh t1, sp, sp\n\t")
GROUP(div, "div t0, sp, sp\n\t")
GROUP(div_zero, "div t0, sp, zero\n\t")
GROUP(compressed, ".option rvc\n\t" FOUR("c.addi t0, 1\n\t") FOUR("c.addi t1, 1\n\t"))

static void (*const groups[])(void) = {
    group_alu, group_load, group_store, group_jump, group_taken, group_not_taken,
    group_mul, group_mulh, group_div, group_div_zero, group_compressed,
};
#define GROUP_COUNT (sizeof groups / sizeof groups[0])

static uint16_t window(uint32_t seq)
{
    groups[seq % GROUP_COUNT]();
    return (uint16_t)(seq % GROUP_COUNT);
}

static void groups_task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void)
{
    ss_task_create("groups", groups_task, 0, 1);
}

SCENARIO("ibex_instruction_groups", setup);
