/*
 * The interrupt-latency sweep (latency.h). Sample `seq` arms the timer to
 * expire first + (seq % round) * step_num / step_den counts after it starts:
 * the host passes the step as a fraction of timer counts, so that a step is
 * a cycle (simavr, Timer1 at the CPU clock) or half an instruction of QEMU's
 * virtual time (3.2 counts of a 25 MHz timer at 256 ns per instruction), and
 * the round, the steps swept before the sweep starts again: longer than the
 * loop, it meets every step of it once a round, and no sample waits longer.
 * Each sample carries the probe's stamps, the count the timer expired at and
 * the count the board's entry code read, and as its tag the delay it was
 * armed with (under QEMU the host needs it to place the expiry among the
 * instructions).
 */
#include "switchscope/harness.h"
#include "switchscope/latency.h"

static struct {
    uint32_t seq, samples, first, step_num, step_den, round;
    uint32_t next_counts;  /* the delay the next sample arms, worked out outside the workload's loop */
    uint32_t armed_counts; /* the delay the timer was armed with: the sample's tag */
    uint8_t quiet;         /* loop iterations let run before the first arms: the host times the loop on them */
    volatile uint8_t armed;
} sweep;

/* The delay of sample `seq`: a division and a multiplication that take an
 * ATmega hundreds of cycles, each a different number, so worked out in the
 * handler, not in the loop the sweep times. */
static uint32_t delay_of(uint32_t seq)
{
    return sweep.first + seq % sweep.round * sweep.step_num / sweep.step_den;
}

void latency_begin(void)
{
    harness_begin();
    harness_full_records();
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
    sweep.next_counts = delay_of(0);
}

void latency_arm(void)
{
    sweep.armed = 1;
    probe.tick_start = ss_tick_count();
    probe.closed = 0;
    sweep.armed_counts = sweep.next_counts;
    board_latency_timer_arm(sweep.armed_counts);
}

#define QUIET_ITERATIONS 4

void latency_arm_if_idle(void)
{
    if (sweep.armed)
        return;
    if (sweep.quiet < QUIET_ITERATIONS) {
        sweep.quiet++;
        return;
    }
    latency_arm();
}

void latency_sample_taken(void)
{
    board_latency_timer_stop();
    probe.start = board_latency_expiry;
    probe.end = board_latency_read;
    probe.tick_end = ss_tick_count();
    probe.closed = 1;
    harness_record(sweep.seq, (uint16_t)sweep.armed_counts);
    if (++sweep.seq == sweep.samples)
        harness_end(sweep.samples);
    sweep.next_counts = delay_of(sweep.seq);
    sweep.armed = 0;
}
