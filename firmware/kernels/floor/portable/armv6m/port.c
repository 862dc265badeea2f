/*
 * The floor's switch on ARMv6-M (Cortex-M0, M0+), Thumb-1: PUSH and POP reach
 * r0-r7 and lr/pc only, and there is no STMDB, so r8-r11 go through r4-r7
 * once those are on the stack. A task kept by a call, low address first:
 * r8-r11, r4-r7, the return address; one kept by an exception: r8-r11, r4-r7,
 * then the frame the exception stacked. The same nine words in the same order
 * below either kind's resume point, so one restore serves both. PendSV and
 * SVC as floor_cortex_m.h says.
 */
#include "floor.h"

__attribute__((naked)) void floor_switch(ss_task *from, ss_task *to)
{
    (void)from;
    (void)to;
    __asm__ volatile(
        "   .syntax unified         \n" /* GCC hands Thumb-1 inline assembly over in divided syntax */
        "   push {r4-r7, lr}        \n"
        "   mov r4, r8              \n"
        "   mov r5, r9              \n"
        "   mov r6, r10             \n"
        "   mov r7, r11             \n"
        "   push {r4-r7}            \n"
        "   mov r2, sp              \n" /* Thumb-1 stores no sp: through a low register */
        "   str r2, [r0]            \n"
        "   ldr r2, [r1]            \n"
        "   lsls r3, r2, #31        \n" /* bit 0 alone: kept by an exception, SVC restores it */
        "   bne 1f                  \n"
        "   mov sp, r2              \n"
        "   pop {r4-r7}             \n"
        "   mov r8, r4              \n"
        "   mov r9, r5              \n"
        "   mov r10, r6             \n"
        "   mov r11, r7             \n"
        "   pop {r4-r7, pc}         \n"
        "1: cpsie i                 \n" /* SVC with interrupts masked would be a fault */
        "   svc 0                   \n");
}

/* SVC from floor_switch: floor_current, kept by an exception, is restored by this one's return. */
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile(
        "   .syntax unified         \n"
        "   ldr r0, =floor_current  \n"
        "   ldr r0, [r0]            \n"
        "   ldr r1, [r0]            \n"
        "   subs r1, r1, #1         \n" /* its mark, bit 0, cleared */
        "   mov sp, r1              \n"
        "   pop {r4-r7}             \n"
        "   mov r8, r4              \n"
        "   mov r9, r5              \n"
        "   mov r10, r6             \n"
        "   mov r11, r7             \n"
        "   pop {r4-r7}             \n"
        "   bx lr                   \n" /* EXC_RETURN: thread mode, main stack, as the task was */
        "   .ltorg                  \n");
}

/* PendSV, the lowest priority: switches from the interrupted task to floor_pending. */
__attribute__((naked)) void PendSV_Handler(void)
{
    __asm__ volatile(
        "   .syntax unified         \n"
        "   cpsid i                 \n"
        "   ldr r0, =floor_current  \n"
        "   ldr r1, [r0]            \n"
        "   ldr r2, =floor_pending  \n"
        "   ldr r3, [r2]            \n"
        "   cmp r3, r1              \n"
        "   beq 2f                  \n" /* nothing to switch to */
        "   cmp r3, #0              \n"
        "   beq 2f                  \n"
        "   push {r4-r7}            \n" /* below the frame the exception stacked */
        "   mov r4, r8              \n"
        "   mov r5, r9              \n"
        "   mov r6, r10             \n"
        "   mov r7, r11             \n"
        "   push {r4-r7}            \n"
        "   mov r4, sp              \n"
        "   adds r4, r4, #1         \n" /* marked: kept by an exception */
        "   str r4, [r1]            \n"
        "   str r3, [r0]            \n"
        "   movs r1, #0             \n"
        "   str r1, [r2]            \n"
        "   ldr r4, [r3]            \n"
        "   movs r0, #1             \n"
        "   ands r0, r4             \n" /* r0: its mark */
        "   subs r4, r4, r0         \n"
        "   mov sp, r4              \n"
        "   pop {r4-r7}             \n"
        "   mov r8, r4              \n"
        "   mov r9, r5              \n"
        "   mov r10, r6             \n"
        "   mov r11, r7             \n"
        "   pop {r4-r7}             \n"
        "   cmp r0, #0              \n"
        "   bne 2f                  \n" /* kept by an exception: its own frame is above */
        "   pop {r1}                \n" /* kept by a call: an exception frame made to return into it */
        "   movs r2, #1             \n"
        "   bics r1, r2             \n"
        "   lsls r2, r2, #24        \n" /* xPSR: Thumb */
        "   sub sp, #32             \n"
        "   str r1, [sp, #24]       \n"
        "   str r2, [sp, #28]       \n"
        "2: cpsie i                 \n"
        "   bx lr                   \n"
        "   .ltorg                  \n");
}
