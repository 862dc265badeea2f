/*
 * The interrupt-latency sweep (latency.h). Sample `seq` arms the timer to
 * expire first + (seq % round) * step_num / step_den counts after it starts:
 * the host passes the step as a fraction of timer counts, so that a step is
 * a cycle (simavr, Timer1 at the CPU clock) or half an instruction of QEMU's
 * virtual time (3.2 counts of a 25 MHz timer at 256 ns per instruction), and
 * the round, the steps swept before the sweep starts again: longer than the
 * loop, it meets every step of it once a round, and no sample waits longer.
 * The last tick_samples samples are the tick round: each aims at the next
 * tick instead of the loop's top (where the board can tell when that is),
 * sweeping the tick's own code, which the loop round meets only where a
 * tick happens to fall. Each sample carries the probe's stamps, the count the timer expired at and
 * the count the board's entry code read, and as its tag the delay it was
 * armed with (under QEMU the host needs it to place the expiry among the
 * instructions).
 */
#include "switchscope/harness.h"
#include "switchscope/latency.h"

static struct {
    uint32_t seq, samples, first, step_num, step_den, round;
    uint32_t tick_samples, tick_before; /* the tick round: its samples, and its counts before the tick */
    uint32_t next_counts;  /* the delay the next sample arms, worked out outside the workload's loop */
    uint32_t armed_counts; /* the delay the timer was armed with: the sample's tag */
    uint8_t quiet;         /* loop iterations let run before the first arms: the host times the loop on them */
    volatile uint8_t armed;
} sweep;

/* The delay of sample `seq` (in the tick round: from the tick less
 * tick_before): a division and a multiplication that take an ATmega hundreds
 * of cycles, each a different number, so worked out in the handler, not in
 * the loop the sweep times. */
static uint32_t delay_of(uint32_t seq)
{
    uint32_t tick_round_from = sweep.samples - sweep.tick_samples;
    if (seq >= tick_round_from)
        return (seq - tick_round_from) * sweep.step_num / sweep.step_den;
    return sweep.first + seq % sweep.round * sweep.step_num / sweep.step_den;
}

static int in_tick_round(void) { return sweep.seq >= sweep.samples - sweep.tick_samples; }

void latency_begin(void)
{
    harness_begin();
    harness_full_records();
    sweep.samples = harness_samples();
    sweep.first = harness_parameter("first", 1);
    sweep.step_num = harness_parameter("step_num", 1);
    sweep.step_den = harness_parameter("step_den", 1);
    sweep.round = harness_parameter("round", 4096);
    sweep.tick_samples = harness_parameter("tick_samples", 0);
    sweep.tick_before = harness_parameter("tick_before", 0);
    if (sweep.tick_samples > sweep.samples || !board_latency_counts_to_tick())
        sweep.tick_samples = 0;
    if (sweep.step_den == 0)
        sweep.step_den = 1;
    if (sweep.round == 0)
        sweep.round = 1;
    harness_describe(SS_TEXT("latency_first_counts"), sweep.first);
    harness_describe(SS_TEXT("latency_step_num"), sweep.step_num);
    harness_describe(SS_TEXT("latency_step_den"), sweep.step_den);
    harness_describe(SS_TEXT("latency_round_steps"), sweep.round);
    harness_describe(SS_TEXT("latency_tick_samples"), sweep.tick_samples);
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

/* The tick round: aimed at the next tick, tick_before counts ahead of it
 * and a step further each sample, so that it sweeps the tick's handler and
 * what follows it. Not armed while the tick is too near to aim before it. */
static void latency_arm_at_tick(void)
{
    uint32_t to_tick = board_latency_counts_to_tick();
    if (to_tick < sweep.tick_before + sweep.first)
        return;
    sweep.next_counts += to_tick - sweep.tick_before;
    latency_arm();
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
    if (in_tick_round())
        latency_arm_at_tick();
    else
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
