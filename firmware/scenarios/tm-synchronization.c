/*
 * tm-synchronization (Thread-Metric's synchronization processing): one task
 * gives a semaphore and takes it, and counts a loop. No switch. A round is
 * one loop.
 */
#include "thread_metric.h"

static ss_signal *semaphore;
static volatile uint32_t loops;

static void round(void)
{
    ss_signal_give(semaphore);
    ss_signal_wait(semaphore); /* given: returns at once */
    ++loops;
}

THREAD_METRIC_TEST(round, 1)

static void setup(void)
{
    semaphore = ss_signal_create();
    ss_task_create("thread-0", measuring_task, 0, 1);
}

SCENARIO("tm-synchronization", setup);
