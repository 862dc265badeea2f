/*
 * yield: two tasks of equal priority yield to each other. Window: from just
 * before ss_yield() in the measuring task to just after ss_yield() returns in
 * the partner.
 *
 * Between samples the partner waits on a signal, so that it is never caught
 * mid-loop by the tick: after each tick the measuring task releases it, lets
 * it run up to its own ss_yield(), and only then opens the window.
 */
#include "switchscope/harness.h"

static ss_signal *release;

static void partner_task(void *arg)
{
    (void)arg;
    for (;;) {
        SS_FP_WORK(1); /* before it blocks: its FP context is live when the window resumes it */
        ss_signal_wait(release);
        ss_yield();
        PROBE_CLOSE();
    }
}

static uint16_t window(uint32_t seq)
{
    (void)seq;
    SS_FP_WORK(0);
    ss_signal_give(release);
    ss_yield(); /* the partner runs up to its ss_yield() */
    PROBE_OPEN();
    ss_yield();
    return 0;
}

static void measuring_task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void)
{
    release = ss_signal_create();
    ss_task_create("partner", partner_task, 0, 1);
    ss_task_create("measure", measuring_task, 0, 1);
}

SCENARIO("yield", setup);
