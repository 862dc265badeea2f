/*
 * What the Thread-Metric tests share (tm-*.c beside it, docs/thread-metric.md).
 *
 * Thread-Metric runs a test's loops for 30 seconds and reports how many its
 * counters counted, summed over every counter. switchscope times the loops
 * instead. A test is a round: one pass of its tasks' loops from the measuring
 * task's place in its loop back to that place, which counts a known number of
 * Thread-Metric's loops (THREAD_METRIC_TEST says how many). A window times one
 * round in its steady state: each window first runs a round untimed, which
 * brings every task to its place, then times the next. The host divides by
 * the loops a round counts and computes the 30-second count from the clock.
 *
 * Before its windows the measuring task runs rounds back to back, as
 * Thread-Metric does, for an interval of THREAD_METRIC_INTERVAL_TICKS kernel
 * ticks, and says how many loops it counted
 * and how many stamp-timer counts the interval lasted. The interval's end is
 * found by reading the tick count after each round, and its length by reading
 * the stamp timer there (it may wrap within a tick); that bookkeeping, which
 * Thread-Metric has not, is then timed alone and said too. Where the stamp
 * timer counts the result's unit, the host sets the count beside the one the
 * windows and the bookkeeping give.
 */
#ifndef SWITCHSCOPE_THREAD_METRIC_H
#define SWITCHSCOPE_THREAD_METRIC_H

#include "switchscope/board.h"
#include "switchscope/harness.h"

#define THREAD_METRIC_INTERVAL_TICKS 2

/* The interval's bookkeeping after each round: the stamp timer read and summed, the tick count read. One
 * function, never inlined, so that its cost is the same wherever it is called. Returns nonzero once the
 * interval is over. */
struct thread_metric_tally {
    uint32_t start_tick, ticks, stamp, counts;
};

static __attribute__((noinline)) int thread_metric_tally(struct thread_metric_tally *tally)
{
    uint32_t now = board_stamp_now();
    /* counts from the last reading, as the harness counts a window's (harness.c, counts_between) */
    uint32_t modulus = board_stamp_modulus();
    uint32_t counts = board_stamp_counts_down() ? tally->stamp - now : now - tally->stamp;
    tally->counts += modulus != 0 && counts >= modulus ? counts + modulus : counts; /* 0: wraps at 2^32 */
    tally->stamp = now;
    return ss_tick_count() - tally->start_tick >= tally->ticks;
}

#define THREAD_METRIC_TALLIES 64 /* bookkeeping alone, timed after the interval: its cost per round */

static void thread_metric_interval(void (*round)(void), uint32_t loops_per_round)
{
    harness_describe(SS_TEXT("tm_loops_per_round"), loops_per_round);
    uint32_t ticks = THREAD_METRIC_INTERVAL_TICKS;
    struct thread_metric_tally tally = {0, ticks, 0, 0};
    uint32_t loops = 0;
    ss_wait_next_tick();
    tally.start_tick = ss_tick_count();
    tally.stamp = board_stamp_now();
    do {
        round();
        loops += loops_per_round;
    } while (!thread_metric_tally(&tally));
    struct thread_metric_tally alone = {ss_tick_count(), 0xFFFFFFFFu, board_stamp_now(), 0};
    for (int i = 0; i < THREAD_METRIC_TALLIES; i++)
        thread_metric_tally(&alone);
    harness_describe(SS_TEXT("tm_interval_ticks"), ticks);
    harness_describe(SS_TEXT("tm_interval_loops"), loops);
    harness_describe(SS_TEXT("tm_interval_stamp_counts"), tally.counts);
    harness_describe(SS_TEXT("tm_tallies"), THREAD_METRIC_TALLIES);
    harness_describe(SS_TEXT("tm_tallies_stamp_counts"), alone.counts);
}

/*
 * Defines the test's window and its measuring task, `measuring_task`, which
 * the scenario's setup creates: THREAD_METRIC_TEST(round, 5) for a round
 * that counts five loops.
 */
#define THREAD_METRIC_TEST(round_, loops_per_round_)        \
    static uint16_t window(uint32_t seq)                      \
    {                                                         \
        (void)seq;                                            \
        round_();                                             \
        PROBE_OPEN();                                         \
        round_();                                             \
        PROBE_CLOSE();                                        \
        return 0;                                             \
    }                                                         \
    static void measuring_task(void *arg)                     \
    {                                                         \
        (void)arg;                                            \
        thread_metric_interval(round_, loops_per_round_);     \
        harness_run(window);                                  \
    }

#endif
