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
 * --config rotation=priority keeps the study's rule that no two tasks share
 * a level: the running task is at N, the next at N-1, and so on down the
 * ring to 1; the runner raises the next to N+1, the one free level, and is
 * preempted (the window). Once resumed, the next moves every other task up
 * one level into the level just freed, the previous one down to 1 and
 * itself to N, none of which switches: N priority changes per switch, as
 * the study's N tasks change priorities 2N(N-1) times per round.
 *
 * A task first runs when the rotation first reaches it; one rotation is made
 * before the first sample, so that every sample resumes a task that was
 * switched out, never one starting from its entry point.
 */
#include "switchscope/config_value.h"
#include "switchscope/harness.h"

#ifndef SWITCHSCOPE_ROTATION
#define SWITCHSCOPE_ROTATION three_levels
#endif
#define ROTATION_IS_three_levels 0
#define ROTATION_IS_priority 1
#define OWN_LEVELS SWITCHSCOPE_IS(ROTATION_IS_, SWITCHSCOPE_ROTATION)

#define ROTATE_MAX_TASKS 16
#define WAITING 1
#define RUNNING 2
#define NEXT 3

static ss_task *tasks[ROTATE_MAX_TASKS];
static uint32_t task_count;
static uint32_t switches; /* switches made, warm-up rotation included */

static void rotating_task(void *arg);

/* With own levels: task i's level while task `runner` runs, and the free one above. */
static unsigned own_level(uint32_t i, uint32_t runner) { return task_count - (i + task_count - runner) % task_count; }
#define RUNNING_LEVEL (OWN_LEVELS ? task_count : RUNNING)
#define NEXT_LEVEL (OWN_LEVELS ? task_count + 1 : NEXT)

/* T0 calibrates first (that waits for ticks, which would let waiting tasks
 * run), then creates the others below itself. */
static void create_the_others(void)
{
    harness_begin();
    harness_describe(SS_TEXT("warmup_windows"), task_count);
    for (uint32_t i = 1; i < task_count; i++)
        tasks[i] = ss_task_create("rotate", rotating_task, (void *)(uintptr_t)i, OWN_LEVELS ? own_level(i, 0) : WAITING);
}

/* Own levels: the others up one, each into the level just freed (the first
 * into the one we left), the previous task down to 1, ourselves to N. */
static void renumber_levels(uint32_t self, uint32_t previous)
{
    for (uint32_t d = 1; d + 1 < task_count; d++) {
        uint32_t other = (self + d) % task_count;
        ss_task_set_priority(tasks[other], own_level(other, self));
    }
    ss_task_set_priority(tasks[previous], own_level(previous, self));
    ss_task_set_priority(tasks[self], own_level(self, self));
}

/* We were switched to: put the previous task back to WAITING, ourselves to
 * RUNNING (neither switches), and record the window past the warm-up. */
static void after_switch(uint32_t self)
{
    uint32_t previous = (self + task_count - 1) % task_count;
    if (OWN_LEVELS) {
        renumber_levels(self, previous);
    } else {
        ss_task_set_priority(tasks[previous], WAITING);
        ss_task_set_priority(tasks[self], RUNNING);
    }
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
        SS_FP_WORK(self);
        PROBE_SCOPE_BARE_PULSE(); /* A, B */
        PROBE_OPEN();
        ss_task_set_priority(next, NEXT_LEVEL);
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
    tasks[0] = ss_task_create("rotate", rotating_task, (void *)0, RUNNING_LEVEL);
}

SCENARIO("rotate", setup);
