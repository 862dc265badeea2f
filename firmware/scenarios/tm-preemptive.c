/*
 * tm-preemptive (Thread-Metric's preemptive scheduling): five tasks of five
 * priorities. Each counts a loop, resumes the next more urgent one, which
 * preempts it at once, and, once that one is back, suspends itself; the most
 * urgent counts and suspends itself. The measuring task is the least urgent
 * and never suspends. A round is five loops and eight switches: four
 * preemptions up the chain, four suspensions down it.
 */
#include "thread_metric.h"

#define TASKS 5

static ss_task *chain[TASKS];
static volatile uint32_t loops[TASKS];

static void task(void *arg)
{
    unsigned i = (unsigned)(uintptr_t)arg;
    for (;;) {
        ss_task_suspend_self();
        ++loops[i];
        if (i + 1 < TASKS) {
            ss_task_resume(chain[i + 1]);
            ss_complete_switch(); /* where the configuration does not switch by itself */
        }
    }
}

static void round(void)
{
    ++loops[0];
    ss_task_resume(chain[1]);
    ss_complete_switch(); /* back once the chain has run up and suspended itself down */
}

THREAD_METRIC_TEST(round, TASKS)

static void setup(void)
{
    static const char *const names[TASKS] = {"thread-0", "thread-1", "thread-2", "thread-3", "thread-4"};
    chain[0] = ss_task_create(names[0], measuring_task, 0, 1);
    for (unsigned i = 1; i < TASKS; i++) /* more urgent than the kernel starts: each suspends itself first */
        chain[i] = ss_task_create(names[i], task, (void *)(uintptr_t)i, 1 + i);
}

SCENARIO("tm-preemptive", setup);
