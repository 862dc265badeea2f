/*
 * rotate: N tasks (run parameter tasks=N, 2 to ROTATE_MAX_TASKS) forced
 * through a rotation T0 -> T1 -> ... -> TN-1 -> T0 by priority changes, one
 * sample per switch, tagged (from << 8) | to.
 *
 * The Cortex-M3 study rotates uC/OS-II tasks, whose priorities must all
 * differ, by shifting every task's priority by N or 2N at each step, which
 * needs N*N + N priority levels. FreeRTOS lets tasks share a level, so three
 * suffice, for any N: the running task is at RUNNING, all others at WAITING.
 * To switch, the running task raises the next one to NEXT, above itself: the
 * next task preempts at once (the window). Once resumed it puts the previous
 * task back to WAITING and itself to RUNNING, neither of which switches.
 *
 * With all tasks at one priority (priorities off) the raise changes nothing
 * and ss_complete_switch() yields instead: FreeRTOS then runs the tasks of
 * that level in the order they were made ready, which is the same rotation.
 *
 * A task first runs when the rotation first reaches it; one rotation is made
 * before the first sample, so that every sample resumes a task that was
 * switched out, never one starting from its entry point.
 */
#include "switchscope/harness.h"

#define ROTATE_MAX_TASKS 16
#define WAITING 1
#define RUNNING 2
#define NEXT 3

static ss_task *tasks[ROTATE_MAX_TASKS];
static uint32_t task_count;
static uint32_t switches; /* switches made, warm-up rotation included */

static void rotating_task(void *arg);

/* T0 calibrates first (that waits for ticks, which would let waiting tasks
 * run), then creates the others below itself. */
static void create_the_others(void)
{
    harness_begin();
    harness_describe(SS_TEXT("warmup_windows"), task_count);
    for (uint32_t i = 1; i < task_count; i++)
        tasks[i] = ss_task_create("rotate", rotating_task, (void *)(uintptr_t)i, WAITING);
}

/* We were switched to: put the previous task back to WAITING, ourselves to
 * RUNNING (neither switches), and record the window past the warm-up. */
static void after_switch(uint32_t self)
{
    uint32_t previous = (self + task_count - 1) % task_count;
    ss_task_set_priority(tasks[previous], WAITING);
    ss_task_set_priority(tasks[self], RUNNING);
    if (switches > task_count) { /* past the warm-up rotation */
        uint32_t seq = switches - task_count - 1;
        harness_record(seq, (uint16_t)(previous << 8 | self));
        if (seq + 1 == harness_samples())
            harness_end(seq + 1);
    }
}

/* The window closes first thing where the switch returns: no test, no
 * arithmetic of the scenario's own inside it, whatever the compiler does. */
static void rotating_task(void *arg)
{
    uint32_t self = (uint32_t)(uintptr_t)arg;
    if (self == 0) {
        create_the_others();
    } else { /* our first run, reached by the warm-up rotation: a window too */
        PROBE_CLOSE();
        after_switch(self);
    }
    for (;;) {
        switches++;
        ss_task *next = tasks[(self + 1) % task_count];
        if (SWITCHSCOPE_METHOD_SCOPE) {
            BOARD_SCOPE_HIGH(); /* A */
            BOARD_SCOPE_LOW();  /* B */
        }
        PROBE_OPEN();
        ss_task_set_priority(next, NEXT);
        ss_complete_switch();
        PROBE_CLOSE();
        after_switch(self);
    }
}

static void setup(void)
{
    task_count = harness_parameter("tasks", 2);
    if (task_count < 2 || task_count > ROTATE_MAX_TASKS)
        harness_fail(SS_TEXT("rotate: tasks must be 2 to 16"));
    tasks[0] = ss_task_create("rotate", rotating_task, (void *)0, RUNNING);
}

SCENARIO("rotate", setup);
