/*
 * The floor's switch on the AVR (ATmega328P): a function call, so it saves
 * and restores exactly the registers the C ABI makes a called function keep,
 * r2-r17, r28-r29 and the return address; the stack pointer goes into the
 * task. An interrupt handler switches the same way, with its own frame left
 * on the interrupted task's stack. The watchdog's interrupt is the tick.
 */
#include "floor.h"

__attribute__((naked)) void floor_switch(ss_task *from, ss_task *to)
{
    (void)from;
    (void)to;
    __asm__ volatile(
        "push r2\n push r3\n push r4\n push r5\n push r6\n push r7\n push r8\n push r9\n"
        "push r10\n push r11\n push r12\n push r13\n push r14\n push r15\n push r16\n push r17\n"
        "push r28\n push r29\n"
        "movw r30, r24\n"          /* from */
        "in r18, __SP_L__\n"
        "st Z, r18\n"
        "in r18, __SP_H__\n"
        "std Z+1, r18\n"
        "movw r30, r22\n"          /* to */
        "ld r18, Z\n"
        "ldd r19, Z+1\n"
        "out __SP_H__, r19\n"      /* interrupts are masked: no handler sees half a stack pointer */
        "out __SP_L__, r18\n"
        "pop r29\n pop r28\n"
        "pop r17\n pop r16\n pop r15\n pop r14\n pop r13\n pop r12\n pop r11\n pop r10\n"
        "pop r9\n pop r8\n pop r7\n pop r6\n pop r5\n pop r4\n pop r3\n pop r2\n"
        "ret\n");
}

/* A new task's first switch returns here, its function in r2:r3 and its argument in r4:r5. */
__attribute__((naked)) void floor_task_start(void)
{
    __asm__ volatile("sei\n movw r24, r4\n movw r30, r2\n icall\n jmp floor_task_returned\n");
}

ISR(WDT_vect) { floor_ticks++; }
