/*
 * What the Thread-Metric tests share (firmware/scenarios/tm-*.c, docs/thread-metric.md).
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
 * Thread-Metric does, for an interval of kernel ticks (run parameter
 * tm_interval_ticks, default 2; 0: none) and says how many loops it counted
 * and how many stamp-timer counts the interval lasted, read after each round.
 * Where the stamp timer counts the core's cycles, the host sets that count
 * beside the one the windows' cycles give.
 */
#ifndef SWITCHSCOPE_THREAD_METRIC_H
#define SWITCHSCOPE_THREAD_METRIC_H

#include "switchscope/board.h"
#include "switchscope/harness.h"

#define THREAD_METRIC_INTERVAL_TICKS 2

static void thread_metric_interval(void (*round)(void), uint32_t loops_per_round)
{
    harness_describe(SS_TEXT("tm_loops_per_round"), loops_per_round);
    uint32_t ticks = harness_parameter("tm_interval_ticks", THREAD_METRIC_INTERVAL_TICKS);
    if (!ticks)
        return;
    uint32_t loops = 0, counts = 0;
    ss_wait_next_tick();
    uint32_t start = ss_tick_count(), before = board_stamp_now();
    while (ss_tick_count() - start < ticks) {
        round();
        loops += loops_per_round;
        uint32_t now = board_stamp_now();
        counts += harness_stamp_counts(before, now);
        before = now;
    }
    harness_describe(SS_TEXT("tm_interval_ticks"), ticks);
    harness_describe(SS_TEXT("tm_interval_loops"), loops);
    harness_describe(SS_TEXT("tm_interval_stamp_counts"), counts);
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
