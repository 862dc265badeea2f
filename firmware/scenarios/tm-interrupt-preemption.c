/*
 * tm-interrupt-preemption (Thread-Metric's interrupt preemption processing):
 * the measuring task pends the software interrupt, whose handler counts a
 * loop and resumes a more urgent task; that task preempts the measuring one
 * on the way out of the handler, counts a loop and suspends itself, and the
 * measuring task counts one. A round is three loops and two switches.
 */
#include "thread_metric.h"

static ss_task *urgent;
static volatile uint32_t task_loops, urgent_loops, handler_loops;

void switchscope_soft_irq(void)
{
    ++handler_loops;
    ss_task_resume_from_isr(urgent);
}

static void urgent_task(void *arg)
{
    (void)arg;
    for (;;) {
        ss_task_suspend_self();
        ++urgent_loops;
    }
}

static void round(void)
{
    board_soft_irq_pend();
    ss_complete_switch(); /* where the configuration does not switch by itself */
    ++task_loops;
}

THREAD_METRIC_TEST(round, 3)

static void setup(void)
{
    urgent = ss_task_create("thread-1", urgent_task, 0, 2); /* runs first, and suspends itself */
    ss_task_create("thread-0", measuring_task, 0, 1);
}

SCENARIO("tm-interrupt-preemption", setup);
