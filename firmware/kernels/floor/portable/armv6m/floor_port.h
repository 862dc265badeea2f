/* The floor's port to ARMv6-M (Cortex-M0, M0+): what the scheduler has inline (floor.h says what each is). */
#ifndef FLOOR_PORT_H
#define FLOOR_PORT_H

#include "floor_cortex_m.h"

static inline void floor_prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint32_t *p = (uint32_t *)top - 9; /* r8-r11, r4-r7 and the return address, as floor_switch leaves them */
    for (int i = 0; i < 9; i++)
        p[i] = 0;
    p[4] = (uint32_t)fn;
    p[5] = (uint32_t)arg;
    p[8] = (uint32_t)floor_task_start;
    task->sp = (uintptr_t)p;
}

#endif
