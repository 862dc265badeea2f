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
RULER_BLOCK(1000)

static const struct {
    uint16_t size;
    void (*run)(void);
} blocks[] = {
    {0, ruler_block_0},   {1, ruler_block_1},     {2, ruler_block_2},       {3, ruler_block_3},
    {10, ruler_block_10}, {100, ruler_block_100}, {1000, ruler_block_1000},
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
