/* What the floor's two Cortex-M ports (armv6m, armv7m) have alike in code: a new task's entry and the tick. */
#include "floor.h"

/* A new task's first switch returns here, its function in r4 and its argument in r5. */
__attribute__((naked)) void floor_task_start(void)
{
    __asm__ volatile("cpsie i\n mov r0, r5\n blx r4\n bl floor_task_returned\n");
}

void SysTick_Handler(void) { floor_ticks++; }
