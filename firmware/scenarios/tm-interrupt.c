/*
 * tm-interrupt (Thread-Metric's interrupt processing): one task pends the
 * software interrupt, whose handler counts a loop and gives a semaphore the
 * task then takes, and counts a loop of its own. No switch: the handler runs
 * before the task asks. A round is two loops.
 */
#include "thread_metric.h"

static ss_signal *semaphore;
static volatile uint32_t task_loops, handler_loops;

void switchscope_soft_irq(void)
{
    ++handler_loops;
    ss_signal_give_from_isr(semaphore);
}

static void round(void)
{
    board_soft_irq_pend();
    ss_signal_wait(semaphore);
    ++task_loops;
}

THREAD_METRIC_TEST(round, 2)

static void setup(void)
{
    semaphore = ss_signal_create();
    ss_task_create("thread-0", measuring_task, 0, 1);
}

SCENARIO("tm-interrupt", setup);
