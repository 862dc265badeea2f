/* The floor's port to ARMv7-M (Cortex-M3, M4, M4F): what the scheduler has inline (floor.h says what each
 * is). */
#ifndef FLOOR_PORT_H
#define FLOOR_PORT_H

#include "floor_cortex_m.h"

static inline void floor_prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint32_t *p = (uint32_t *)top - 9; /* r4-r11 and the return address, as push {r4-r11, lr} leaves them */
    for (int i = 0; i < 9; i++)
        p[i] = 0;
    p[0] = (uint32_t)fn;
    p[1] = (uint32_t)arg;
    p[8] = (uint32_t)floor_task_start;
    task->sp = (uintptr_t)p;
}

#endif
