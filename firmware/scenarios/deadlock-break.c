/*
 * deadlock-break (Rhealstone's deadlock break): the low task holds a mutex,
 * the high task asks for it while a medium task is ready. With priority
 * inheritance the holder is raised above the medium task, runs, and releases
 * the mutex to the high task. Without it the medium task would run in the
 * holder's place for as long as it liked: that case has no bound to measure,
 * and a kernel without inheritance says deadlock-break does not apply.
 *
 * One iteration: low locks the mutex (free) and wakes high; high wakes
 * medium (ready, less urgent: it waits) and asks for the mutex. Two windows,
 * one per build (SWITCHSCOPE_DEADLOCK_WINDOW):
 *   raise   (scenario deadlock-raise): from just before high's ss_mutex_lock
 *           to low running, raised, just after the call that woke high;
 *   release (scenario deadlock-release): from just before low's
 *           ss_mutex_unlock to high returning from ss_mutex_lock, holding it.
 * High then unlocks and waits; medium runs, waits; low runs again. The
 * holder stops the run if the medium task ran before it: a kernel that did
 * not raise it gives no figure rather than one of an unbounded inversion.
 */
#include "switchscope/config_value.h"
#include "switchscope/harness.h"

#define DEADLOCK_WINDOW_IS_raise 1
#define DEADLOCK_WINDOW_IS_release 0
#define RAISE SWITCHSCOPE_IS(DEADLOCK_WINDOW_IS_, SWITCHSCOPE_DEADLOCK_WINDOW)

#if RAISE
#define RAISE_OPEN() PROBE_OPEN()
#define RAISE_CLOSE() PROBE_CLOSE()
#define RELEASE_OPEN() ((void)0)
#define RELEASE_CLOSE() ((void)0)
#else
#define RAISE_OPEN() ((void)0)
#define RAISE_CLOSE() ((void)0)
#define RELEASE_OPEN() PROBE_OPEN()
#define RELEASE_CLOSE() PROBE_CLOSE()
#endif

static ss_mutex *mutex;
static ss_signal *wake_high;
static ss_signal *wake_medium;
static volatile uint32_t medium_runs; /* the holder checks, outside the windows, that it ran first */

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        SS_FP_WORK(1); /* before it blocks: its FP context is live when the window resumes it */
        ss_signal_wait(wake_high);
        ss_signal_give(wake_medium); /* less urgent: ready, it waits */
        RAISE_OPEN();
        ss_mutex_lock(mutex); /* held: blocks, the holder raised */
        RELEASE_CLOSE();
        ss_mutex_unlock(mutex);
    }
}

static void medium_task(void *arg)
{
    (void)arg;
    for (;;) {
        ss_signal_wait(wake_medium);
        medium_runs++;
    }
}

static uint16_t window(uint32_t seq)
{
    (void)seq;
    ss_mutex *held = mutex;
    uint32_t medium_before = medium_runs;
    SS_FP_WORK(0);
    ss_mutex_lock(held); /* free: taken at once */
    ss_signal_give(wake_high);
    ss_complete_switch(); /* back here once high blocks on the mutex */
    RAISE_CLOSE();
    if (medium_runs != medium_before) /* the inversion was not broken: nothing bounds this figure */
        harness_fail(SS_TEXT("deadlock-break: the medium task ran before the holder, which was not raised"));
    RELEASE_OPEN();
    ss_mutex_unlock(held);
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
    mutex = ss_mutex_create();
    wake_high = ss_signal_create();
    wake_medium = ss_signal_create();
    ss_task_create("high", high_task, 0, 3);
    ss_task_create("medium", medium_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

#if RAISE
SCENARIO("deadlock-raise", setup);
#else
SCENARIO("deadlock-release", setup);
#endif
