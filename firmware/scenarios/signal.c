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
        ss_signal_wait(wake);
        PROBE_CLOSE();
    }
}

static void low_task(void *arg)
{
    (void)arg;
    harness_begin();
    uint32_t samples = harness_samples();
    for (uint32_t seq = 0; seq < samples; seq++) {
        ss_wait_next_tick();
        PROBE_OPEN();
        ss_signal_give(wake);
        harness_send_sample(seq, 0);
    }
    harness_finish(samples);
}

static void setup(void)
{
    wake = ss_signal_create();
    ss_task_create("high", high_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

const struct scenario scenario = {"signal", setup};
