/*
 * tm-cooperative (Thread-Metric's cooperative scheduling): five tasks of one
 * priority, each counting a loop and giving the processor to the next. A
 * round, from the measuring task's count back to it, is five loops and five
 * switches.
 */
#include "thread_metric.h"

#define TASKS 5

static volatile uint32_t loops[TASKS];

static void task(void *arg)
{
    volatile uint32_t *count = arg;
    for (;;) {
        ++*count;
        ss_yield();
    }
}

static void round(void)
{
    ++loops[0];
    ss_yield(); /* back once the four others have each counted and yielded */
}

THREAD_METRIC_TEST(round, TASKS)

static void setup(void)
{
    static const char *const names[TASKS] = {"thread-0", "thread-1", "thread-2", "thread-3", "thread-4"};
    ss_task_create(names[0], measuring_task, 0, 1);
    for (unsigned i = 1; i < TASKS; i++)
        ss_task_create(names[i], task, (void *)&loops[i], 1);
}

SCENARIO("tm-cooperative", setup);
