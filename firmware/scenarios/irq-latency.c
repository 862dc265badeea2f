/*
 * irq-latency: how long a peripheral interrupt waits for its handler while
 * the kernel is busy. The workload is signal's loop with the tick running: a
 * low-priority task gives a signal a high-priority task waits on, a switch
 * each way. Once per sample the low task arms the latency timer at the top of
 * its loop to expire `first + seq * step` counts later (the host chooses the
 * step: a cycle on simavr, an instruction of QEMU's virtual time), so each
 * sample asserts the interrupt one step further into the loop and a sweep
 * longer than the loop interrupts every instruction of it. The handler stops
 * the timer and sends the sample; the simulator times the assertion to the
 * handler's first instruction.
 */
#include "switchscope/harness.h"
#include "switchscope/latency.h"

static ss_signal *wake;

void switchscope_latency_irq(void) { latency_sample_taken(); }

static void high_task(void *arg)
{
    (void)arg;
    for (;;)
        ss_signal_wait(wake);
}

static void low_task(void *arg)
{
    (void)arg;
    latency_begin();
    for (;;) {
        SS_MARK("loop");
        latency_arm_if_idle();
        ss_signal_give(wake);
        ss_complete_switch(); /* where the configuration does not switch by itself */
    }
}

static void setup(void)
{
    wake = ss_signal_create();
    ss_task_create("high", high_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

SCENARIO("irq-latency", setup);
