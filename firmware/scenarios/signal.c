/*
 * signal: a low-priority task gives a signal a high-priority task waits on
 * (the BeRTOS method). Window: from just before ss_signal_give() in the low
 * task to just after ss_signal_wait() returns in the high task.
 */
#include "switchscope/harness.h"

static ss_signal *wake;

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
    ss_signal *target = wake; /* loaded before the window opens */
    PROBE_OPEN();
    ss_signal_give(target);
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

SCENARIO("signal", setup);
