/*
 * tm-memory (Thread-Metric's memory allocation): one task allocates a
 * 128-byte block and frees it, and counts a loop. No switch. A round is one
 * loop. A kernel without block pools allocates from its heap (kernel.h).
 */
#include "thread_metric.h"

#define BLOCK_BYTES 128
#define BLOCKS 4 /* one is ever allocated; the boards with 8 KB of RAM hold four */

static ss_pool *pool;
static volatile uint32_t loops;

static void round(void)
{
    void *block = ss_pool_allocate(pool);
    ss_pool_free(pool, block);
    ++loops;
}

THREAD_METRIC_TEST(round, 1)

static void setup(void)
{
    pool = ss_pool_create(BLOCK_BYTES, BLOCKS);
    ss_task_create("thread-0", measuring_task, 0, 1);
}

SCENARIO("tm-memory", setup);
