/*
 * sem-shuffle (Rhealstone's semaphore shuffle): the low task holds a lock;
 * it wakes the high task, which asks for the lock and blocks. Window: from
 * just before the low task's release to just after the high task's request
 * returns with the lock: the kernel's share of the hand-over, the holder's
 * work left out. The high task then releases the lock and waits to be woken.
 *
 * The lock is a semaphore taken as one (ss_signal: given, free; taken, held),
 * or with --config lock=mutex the kernel's mutex, whose owner inherits the
 * high task's priority while it waits (the release then also lowers it).
 */
#include "switchscope/config_value.h"
#include "switchscope/harness.h"

#ifndef SWITCHSCOPE_LOCK
#define SWITCHSCOPE_LOCK semaphore
#endif
#define LOCK_IS_semaphore 0
#define LOCK_IS_mutex 1
#if SWITCHSCOPE_IS(LOCK_IS_, SWITCHSCOPE_LOCK)
typedef ss_mutex lock_t;
#define lock_create() ss_mutex_create()
#define lock_take(lock) ss_mutex_lock(lock)
#define lock_release(lock) ss_mutex_unlock(lock)
#else
typedef ss_signal lock_t;
static lock_t *lock_create(void)
{
    ss_signal *semaphore = ss_signal_create();
    ss_signal_give(semaphore); /* free before the first iteration */
    return semaphore;
}
#define lock_take(lock) ss_signal_wait(lock)
#define lock_release(lock) ss_signal_give(lock)
#endif

static ss_signal *wake;
static lock_t *lock;

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        SS_FP_WORK(1); /* before it blocks: its FP context is live when the window resumes it */
        ss_signal_wait(wake);
        lock_take(lock); /* held by the low task: blocks */
        PROBE_CLOSE();
        lock_release(lock);
    }
}

static uint16_t window(uint32_t seq)
{
    (void)seq;
    lock_t *held = lock;
    SS_FP_WORK(0);
    lock_take(held);      /* free: taken at once */
    ss_signal_give(wake); /* the high task runs up to its request, and blocks */
    ss_complete_switch();
    PROBE_OPEN();
    lock_release(held);
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
    lock = lock_create();
    ss_task_create("high", high_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

SCENARIO("sem-shuffle", setup);
