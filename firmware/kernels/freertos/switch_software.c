/*
 * --config switch=software: a task-level switch on Cortex-M3/M4 made by
 * software alone, as on cores without hardware stacking (the "SW-based"
 * switch of the Cortex-M3 study). Called from task code (thread mode, on the
 * task's own stack), it stores on that stack the very frame an exception
 * entry would stack (r0-r3, r12, lr, return address, xPSR) and below it
 * r4-r11, exactly as FreeRTOS's PendSV handler leaves a task; so a task saved
 * here can be resumed by PendSV and one saved by PendSV resumed here.
 * Restoring, it pops the next task's registers, the return address last.
 */
#include "FreeRTOS.h"
#include "task.h"

#if SWITCHSCOPE_SOFTWARE_SWITCH && defined(__ARM_ARCH_6M__)
#error "switch=software is Thumb-2 with BASEPRI: ARMv6-M (Cortex-M0/M0+) has neither; use switch=pendsv"
#endif

#if SWITCHSCOPE_SOFTWARE_SWITCH && !defined(__AVR__)

#define SS_ASM_TEXT(x) #x
#define SS_ASM_NUMBER(x) SS_ASM_TEXT(x)

volatile uint32_t ss_switch_deferred;

/* xPSR bits of a frame only an exception return restores: the IT state and
 * an interrupted LDM/STM's continuation, which a thread-mode return cannot
 * set, and bit 9, the padding word an exception entry added to align the
 * stack. Only an interrupt can stop a task with them; such a task is resumed
 * by FreeRTOS's SVC handler, which restores the current task. */
#define XPSR_RESTORED_BY_EXCEPTION 0x0600FE00

#if defined(__ARM_FEATURE_DSP)
#define RESTORE_APSR "msr APSR_nzcvqg, r1 \n" /* the Cortex-M4's GE flags too */
#else
#define RESTORE_APSR "msr APSR_nzcvq, r1 \n"
#endif

__attribute__((naked)) void ss_software_switch(void)
{
    __asm volatile(
        /* Save: the exception frame, then r4-r11. The caller's sp is 8-byte
         * aligned (AAPCS), so the frame needs no padding word. */
        "   sub sp, sp, #32                 \n"
        "   stmia sp, {r0-r3, r12, lr}      \n"
        "   bic r0, lr, #1                  \n" /* the task resumes where this call returns */
        "   mrs r1, apsr                    \n"
        "   orr r1, r1, #0x01000000         \n" /* xPSR's Thumb bit */
        "   strd r0, r1, [sp, #24]          \n"
        "   stmdb sp!, {r4-r11}             \n"
        "   mov r0, #" SS_ASM_NUMBER(configMAX_SYSCALL_INTERRUPT_PRIORITY) "\n"
        "   msr basepri, r0                 \n" /* as PendSV_Handler: no kernel call from an interrupt now */
        "   dsb                             \n"
        "   isb                             \n"
        "   ldr r3, =pxCurrentTCB           \n"
        "   ldr r2, [r3]                    \n"
        "   str sp, [r2]                    \n" /* the TCB's first member: its top of stack */
        "   bl vTaskSwitchContext           \n"
        /* Restore the task now current. */
        "   ldr r3, =pxCurrentTCB           \n"
        "   ldr r1, [r3]                    \n"
        "   ldr r0, [r1]                    \n" /* r4-r11 here, its exception frame above */
        "   ldr r1, [r0, #60]               \n" /* its xPSR */
        "   ldr r2, =" SS_ASM_NUMBER(XPSR_RESTORED_BY_EXCEPTION) "\n"
        "   tst r1, r2                      \n"
        "   bne 1f                          \n"
        "   ldr r2, [r0, #56]               \n" /* its return address, */
        "   orr r2, r2, #1                  \n" /* made a Thumb address for ldr pc */
        "   str r2, [r0, #56]               \n"
        RESTORE_APSR
        "   ldmia r0!, {r4-r11}             \n"
        "   mov sp, r0                      \n"
        "   mov r0, #0                      \n" /* mov, not movs: the flags are restored */
        "   msr basepri, r0                 \n"
        "   pop {r0-r3, r12, lr}            \n"
        "   ldr pc, [sp], #8                \n" /* and past xPSR: the sp it had */
        "1: svc 0                           \n"
        "   .ltorg                          \n");
}

#endif
