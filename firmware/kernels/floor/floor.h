/*
 * What the floor's scheduler (kernel_floor.c) and its port for the core
 * (portable/<instruction set>/, which kernel.toml picks for the target's CPU)
 * share. The port supplies, in port.c, the switch itself and the interrupt
 * entries, and, in floor_port.h, what the scheduler's calls have inline
 * (a call there would add its cycles to every measured switch):
 *
 *   uint8_t floor_interrupts_mask(void)       masks every interrupt; says whether they were masked
 *   void floor_interrupts_restore(uint8_t)    unmasks them unless they were
 *   void floor_switch_from_handler(ss_task *) an interrupt handler's switch to a task it made ready (or
 *                                             FLOOR_HANDLER_SWITCHES_BY_CALL 1: the task's own call)
 *   void floor_prepare_stack(ss_task *, uint8_t *top, ss_task_fn, void *)
 *                                             a new task's stack, as floor_switch leaves one, whose
 *                                             return enters floor_task_start
 *   void floor_start_tick(void)               the tick's interrupt on (floor_ticks counts it), taken
 *                                             once the first task unmasks interrupts
 *
 * and, where its core wants other than the scheduler's defaults, FLOOR_MAX_TASKS, FLOOR_STACK_BYTES and
 * FLOOR_STACK_ALIGN.
 */
#ifndef FLOOR_H
#define FLOOR_H

#include <stdint.h>
#include "switchscope/board.h"
#include "switchscope/kernel.h"

struct ss_task {
    uintptr_t sp; /* first: the switch finds it at offset 0 */
    uint8_t ready;
    uint8_t priority;
};

extern volatile uint32_t floor_ticks;
extern ss_task *volatile floor_current; /* read by the Cortex-M exception handlers */
extern ss_task *volatile floor_pending; /* the task an interrupt handler made ready to run */

/* Saves the caller's registers the ABI keeps on its stack and its stack
 * pointer in `from`, and returns into `to` as it was saved. Interrupts masked.
 * Naked in every port, its assembly the whole function; said where it is
 * called too, since GCC calls a naked function otherwise (on the AVR, never
 * by a tail call, which would leave the caller's frame to the switch). */
__attribute__((naked)) void floor_switch(ss_task *from, ss_task *to);
/* A new task's first switch returns here: it unmasks interrupts and calls the task's function. */
void floor_task_start(void);
/* Where a task's function returns to: the run fails. */
void floor_task_returned(void);

/* From a task (or, where the port switches by the same call, a handler): switch to `next` if it is not the
 * running task; interrupts masked. */
static inline void floor_switch_to(ss_task *next)
{
    if (next == floor_current)
        return;
    ss_task *previous = floor_current;
    floor_current = next;
    floor_switch(previous, next);
}

#include "floor_port.h"

#if FLOOR_HANDLER_SWITCHES_BY_CALL
/* A port whose handlers switch by the task's own call: the handler's frame stays on the interrupted task's
 * stack, and the switch returns into it when that task runs again. */
static inline void floor_switch_from_handler(ss_task *next) { floor_switch_to(next); }
#endif

#endif
