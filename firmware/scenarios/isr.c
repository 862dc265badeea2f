/*
 * isr: the handler of a software-pended interrupt gives a signal that wakes a
 * high-priority task, which preempts the low-priority task that pended it.
 * Window: from just before the interrupt is pended to just after
 * ss_signal_wait() returns in the high task; interrupt entry, the handler and
 * the switch all fall inside.
 */
#include "switchscope/harness.h"

static ss_signal *wake;

void switchscope_soft_irq(void)
{
    ss_signal_give_from_isr(wake);
}

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        SS_FP_WORK(1); /* before it blocks: its FP context is live when the window resumes it */
        ss_signal_wait(wake);
        PROBE_CLOSE();
    }
}

static uint16_t window(uint32_t seq)
{
    (void)seq;
    SS_FP_WORK(0);
    PROBE_OPEN();
    board_soft_irq_pend();
    ss_complete_switch(); /* where the configuration does not switch by itself */
    return 0;
}

static void low_task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void)
{
    wake = ss_signal_create();
    ss_task_create("high", high_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

SCENARIO("isr", setup);
