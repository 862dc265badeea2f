/*
 * The floor's switch on ARMv7-M (Cortex-M3, M4, and the M4F with its FPU):
 * r4-r11 and the return address in one PUSH, the stack pointer into the
 * task; PendSV and SVC as floor_cortex_m.h says.
 *
 * With the FPU (hard float, the Cortex-M4F), a task that has used it has a floating-point context
 * (CONTROL.FPCA), and s16-s31 are callee-saved (AAPCS) as r4-r11 are: a switch saves them below r4-r11
 * for such a task only, and marks its saved stack pointer with bit 1 (bit 0 marks a task kept by an
 * exception). A call-level switch reads FPCA; PendSV reads EXC_RETURN bit 4 (clear: the exception
 * stacked the extended frame), as FreeRTOS's ARM_CM4F port does. A task without an FP context starts
 * without one (FPCA cleared), so that its own switches save nothing; one restored by a call gets its
 * s16-s31 back by VPOP in thread mode, which sets FPCA again; one restored by an exception return gets
 * its extended frame's EXC_RETURN. A task kept by a call with an FP context and resumed by PendSV is
 * returned into floor_fp_resume, which does the same VPOP in thread mode before returning as the call.
 */
#include "floor.h"

#if defined(__ARM_FP)
#define FLOOR_FPU 1
#define FPU_ASM(text) text
#define NO_FPU_ASM(text)
#else
#define FLOOR_FPU 0
#define FPU_ASM(text)
#define NO_FPU_ASM(text) text
#endif

__attribute__((naked)) void floor_switch(ss_task *from, ss_task *to)
{
    (void)from;
    (void)to;
    __asm__ volatile(
        "   push {r4-r11, lr}       \n"
        NO_FPU_ASM(
        "   str sp, [r0]            \n")
        FPU_ASM(
        "   mrs r3, control         \n"
        "   tst r3, #4              \n" /* CONTROL.FPCA: this task has an FP context */
        "   beq 2f                  \n"
        "   vpush {s16-s31}         \n"
        "   mov r2, sp              \n"
        "   orr r2, r2, #2          \n" /* marked: s16-s31 below r4-r11 */
        "   str r2, [r0]            \n"
        "   bic r3, r3, #4          \n"
        "   msr control, r3         \n" /* the next task starts without an FP context */
        "   b 3f                    \n"
        "2: str sp, [r0]            \n"
        "3:                         \n")
        "   ldr r2, [r1]            \n"
        "   tst r2, #1              \n" /* kept by an exception: SVC restores it */
        "   bne 1f                  \n"
        NO_FPU_ASM(
        "   mov sp, r2              \n")
        FPU_ASM(
        "   tst r2, #2              \n"
        "   bic r2, r2, #2          \n"
        "   mov sp, r2              \n"
        "   it ne                   \n"
        "   vpopne {s16-s31}        \n") /* its FP context back: FPCA set again */
        "   pop {r4-r11, pc}        \n"
        "1: cpsie i                 \n" /* SVC with interrupts masked would be a fault */
        "   svc 0                   \n");
}

/* SVC from floor_switch: floor_current, kept by an exception, is restored by this one's return. */
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile(
        "   ldr r0, =floor_current  \n"
        "   ldr r0, [r0]            \n"
        "   ldr r1, [r0]            \n"
        NO_FPU_ASM(
        "   bic r1, r1, #1          \n"
        "   mov sp, r1              \n")
        FPU_ASM(
        "   tst r1, #2              \n"
        "   bic r1, r1, #3          \n"
        "   mov sp, r1              \n"
        "   itt ne                  \n"
        "   vpopne {s16-s31}        \n"
        "   bicne lr, lr, #0x10     \n") /* it was kept with the extended frame */
        "   pop {r4-r11}            \n"
        "   bx lr                   \n" /* EXC_RETURN: thread mode, main stack, as the task was */
        "   .ltorg                  \n");
}

/* PendSV, the lowest priority: switches from the interrupted task to floor_pending. */
__attribute__((naked)) void PendSV_Handler(void)
{
    __asm__ volatile(
        "   cpsid i                 \n"
        "   ldr r0, =floor_current  \n"
        "   ldr r1, [r0]            \n"
        "   ldr r2, =floor_pending  \n"
        "   ldr r3, [r2]            \n"
        "   cmp r3, r1              \n"
        "   it ne                   \n"
        "   cmpne r3, #0            \n"
        "   beq 2f                  \n" /* nothing to switch to */
        "   push {r4-r11}           \n" /* below the frame the exception stacked */
        NO_FPU_ASM(
        "   add r12, sp, #1         \n") /* marked: kept by an exception */
        FPU_ASM(
        "   tst lr, #0x10           \n" /* EXC_RETURN bit 4 clear: the task has an FP context */
        "   it eq                   \n"
        "   vpusheq {s16-s31}       \n" /* its first FPU instruction here: the reserved s0-s15 are written */
        "   ite eq                  \n"
        "   addeq r12, sp, #3       \n" /* marked: kept by an exception, s16-s31 below r4-r11 */
        "   addne r12, sp, #1       \n")
        "   str r12, [r1]           \n"
        "   str r3, [r0]            \n"
        "   movs r1, #0             \n"
        "   str r1, [r2]            \n"
        "   ldr r12, [r3]           \n"
        "   tst r12, #1             \n"
        "   beq 1f                  \n"
        NO_FPU_ASM(
        "   bic r12, r12, #1        \n" /* kept by an exception: its own frame */
        "   mov sp, r12             \n")
        FPU_ASM(
        "   tst r12, #2             \n"
        "   bic r12, r12, #3        \n" /* kept by an exception: its own frame, */
        "   mov sp, r12             \n"
        "   itte ne                 \n"
        "   vpopne {s16-s31}        \n"
        "   bicne lr, lr, #0x10     \n" /* the extended one if it had an FP context */
        "   orreq lr, lr, #0x10     \n")
        "   pop {r4-r11}            \n"
        "   cpsie i                 \n"
        "   bx lr                   \n"
        NO_FPU_ASM(
        "1: mov sp, r12             \n") /* kept by a call: an exception frame made to return into it */
        FPU_ASM(
        "1: orr lr, lr, #0x10       \n" /* the frame made here is a basic one */
        "   tst r12, #2             \n"
        "   bic r12, r12, #2        \n"
        "   mov sp, r12             \n"
        "   beq 3f                  \n"
        "   ldr r12, =floor_fp_resume \n" /* with s16-s31: restored in thread mode, then the call returns */
        "   bic r12, r12, #1        \n"
        "   mov r3, #0x01000000     \n"
        "   sub sp, sp, #32         \n"
        "   strd r12, r3, [sp, #24] \n"
        "   b 2f                    \n"
        "3:                         \n")
        "   pop {r4-r11, r12}       \n" /* the return address is the highest word: r12 */
        "   bic r12, r12, #1        \n"
        "   mov r3, #0x01000000     \n" /* xPSR: Thumb */
        "   sub sp, sp, #32         \n"
        "   strd r12, r3, [sp, #24] \n"
        "2: cpsie i                 \n"
        "   bx lr                   \n"
        "   .ltorg                  \n");
}

#if FLOOR_FPU
/* PendSV returns here into a task kept by a call with s16-s31 saved (its stack pointer at them): VPOP in
 * thread mode gives it its FP context back, then it returns as floor_switch would have. */
__attribute__((naked, used)) void floor_fp_resume(void)
{
    __asm__ volatile("vpop {s16-s31}\n pop {r4-r11, pc}\n");
}
#endif
