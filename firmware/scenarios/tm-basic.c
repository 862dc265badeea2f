/*
 * tm-basic (Thread-Metric's basic processing): the baseline, no kernel
 * service. One task works through an array of 1024 32-bit words, Thread-
 * Metric's size, reading, changing and writing back each one, and counts a
 * loop. A round is one loop; the work itself is switchscope's.
 */
#include "thread_metric.h"

#define WORDS 1024

static uint32_t words[WORDS];
static volatile uint32_t loops;

static void round(void)
{
    uint32_t salt = loops;
    for (unsigned i = 0; i < WORDS; i++)
        words[i] = (words[i] ^ salt) + i;
    loops = salt + 1;
}

THREAD_METRIC_TEST(round, 1)

static void setup(void) { ss_task_create("thread-0", measuring_task, 0, 1); }

SCENARIO("tm-basic", setup);
