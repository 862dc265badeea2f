/*
 * ruler: proves the probe. Each sample times a block of N single-instruction
 * no-ops with the same probe the scenarios use; after the host subtracts the
 * calibrated overhead every sample must read exactly N. The tag carries N.
 */
#include "switchscope/harness.h"

#define RULER_BLOCK(n)                                                       \
    static void __attribute__((noinline)) ruler_block_##n(void)              \
    {                                                                        \
        PROBE_OPEN();                                                        \
        __asm__ volatile(".rept " #n "\n\tnop\n\t.endr" ::: "memory");       \
        PROBE_CLOSE();                                                       \
    }

RULER_BLOCK(0)
RULER_BLOCK(1)
RULER_BLOCK(2)
RULER_BLOCK(3)
RULER_BLOCK(10)
RULER_BLOCK(100)
/* The longest block: on ARMv6-M (Thumb-1) a function's constants follow its
 * code, and a literal load reaches only 1 KB forward, so 400 no-ops (800
 * bytes) rather than 1000. */
#if defined(__ARM_ARCH_6M__)
#define RULER_LONGEST 400
#else
#define RULER_LONGEST 1000
#endif
#define RULER_BLOCK_OF(n) RULER_BLOCK(n)
#define RULER_BLOCK_NAME(n) ruler_block_##n
#define RULER_BLOCK_NAMED(n) RULER_BLOCK_NAME(n)
RULER_BLOCK_OF(RULER_LONGEST)

static const struct {
    uint16_t size;
    void (*run)(void);
} blocks[] = {
    {0, ruler_block_0},   {1, ruler_block_1},     {2, ruler_block_2},       {3, ruler_block_3},
    {10, ruler_block_10}, {100, ruler_block_100}, {RULER_LONGEST, RULER_BLOCK_NAMED(RULER_LONGEST)},
};
#define BLOCK_COUNT (sizeof blocks / sizeof blocks[0])

static uint16_t window(uint32_t seq)
{
    blocks[seq % BLOCK_COUNT].run();
    return blocks[seq % BLOCK_COUNT].size;
}

static void ruler_task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void)
{
    ss_task_create("ruler", ruler_task, 0, 1);
}

SCENARIO("ruler", setup);
