/*
 * The interrupt-latency sweep (latency.h). Sample `seq` arms the timer to
 * expire first + (seq % round) * step_num / step_den counts after it starts:
 * the host passes the step as a fraction of timer counts, so that a step is
 * a cycle (simavr, Timer1 at the CPU clock) or half an instruction of QEMU's
 * virtual time (3.2 counts of a 25 MHz timer at 256 ns per instruction), and
 * the round, the steps swept before the sweep starts again: longer than the
 * loop, it meets every step of it once a round, and no sample waits longer.
 */
#include "switchscope/harness.h"
#include "switchscope/latency.h"

static struct {
    uint32_t seq, samples, first, step_num, step_den, round;
    volatile uint8_t armed;
} sweep;

void latency_begin(void)
{
    harness_begin();
    sweep.samples = harness_samples();
    sweep.first = harness_parameter("first", 1);
    sweep.step_num = harness_parameter("step_num", 1);
    sweep.step_den = harness_parameter("step_den", 1);
    sweep.round = harness_parameter("round", 4096);
    if (sweep.step_den == 0)
        sweep.step_den = 1;
    if (sweep.round == 0)
        sweep.round = 1;
    harness_describe(SS_TEXT("latency_first_counts"), sweep.first);
    harness_describe(SS_TEXT("latency_step_num"), sweep.step_num);
    harness_describe(SS_TEXT("latency_step_den"), sweep.step_den);
    harness_describe(SS_TEXT("latency_round_steps"), sweep.round);
}

int latency_armed(void) { return sweep.armed; }

void latency_arm_if_idle(void)
{
    if (sweep.armed)
        return;
    sweep.armed = 1;
    probe.tick_start = ss_tick_count();
    probe.closed = 0;
    board_latency_timer_arm(sweep.first + sweep.seq % sweep.round * sweep.step_num / sweep.step_den);
}

void latency_sample_taken(void)
{
    board_latency_timer_stop();
    probe.tick_end = ss_tick_count();
    probe.closed = 1;
    harness_record(sweep.seq, 0);
    if (++sweep.seq == sweep.samples)
        harness_end(sweep.samples);
    sweep.armed = 0;
}
