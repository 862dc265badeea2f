/*
 * resume: a low-priority task resumes a suspended high-priority task (the embOS
 * method). Window: from just before ss_task_resume() in the low task to just
 * after ss_task_suspend_self() returns in the high task.
 */
#include "switchscope/harness.h"

static ss_task *high;

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        SS_FP_WORK(1); /* before it blocks: its FP context is live when the window resumes it */
        ss_task_suspend_self();
        PROBE_CLOSE();
    }
}

static uint16_t window(uint32_t seq)
{
    (void)seq;
    SS_FP_WORK(0);
    ss_task *target = high; /* loaded before the window opens */
    PROBE_OPEN();
    ss_task_resume(target);
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
    high = ss_task_create("high", high_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

SCENARIO("resume", setup);
