/* A low task is interrupted in one of two states only an exception return
 * restores: inside an IT block (even windows), or with its stack pointer 4
 * bytes off 8-byte alignment, so that the exception entry adds its padding
 * word (odd windows). The interrupt wakes a high task (PendSV saves the low
 * one), which then waits again and so resumes the low task. The low task
 * checks that the rest of its IT block ran as its condition says (the
 * instruction that should run ran, the one that should not did not) and
 * that its stack pointer came back. Tag 1: as it should be. */
#include "switchscope/board.h"
#include "switchscope/harness.h"

static ss_signal *wake;

void switchscope_soft_irq(void) { ss_signal_give_from_isr(wake); }

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        ss_signal_wait(wake);
        PROBE_CLOSE();
    }
}

static uint16_t window(uint32_t seq)
{
    uint32_t ran = 0, skipped = 0, misalign = seq & 1;
    PROBE_OPEN();
    __asm volatile(
        "   ldr r0, =0xE000EF00      \n" /* NVIC_STIR: the interrupt is taken after the store */
        "   mov r1, %[irq]           \n"
        "   cmp %[misalign], #0      \n"
        "   bne 1f                   \n"
        "   cmp r1, r1               \n" /* equal */
        "   itte eq                  \n"
        "   streq r1, [r0]           \n"
        "   addeq %[ran], %[ran], #1 \n" /* still inside the IT block when the task resumes */
        "   addne %[skipped], %[skipped], #1 \n"
        "   b 2f                     \n"
        "1: mov r2, sp               \n"
        "   sub sp, sp, #4           \n"
        "   str r1, [r0]             \n"
        "   add sp, sp, #4           \n"
        "   cmp r2, sp               \n"
        "   it eq                    \n"
        "   addeq %[ran], %[ran], #1 \n"
        "2:                          \n"
        : [ran] "+r"(ran), [skipped] "+r"(skipped)
        : [misalign] "r"(misalign), [irq] "i"(BOARD_SOFT_IRQ_NUMBER)
        : "r0", "r1", "r2", "cc", "memory");
    if (ran != 1 || skipped != 0)
        harness_fail(SS_TEXT("the IT block or the stack pointer went wrong across the switch"));
    return 1;
}

static void low_task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void)
{
    wake = ss_signal_create();
    ss_task_create("high", high_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

SCENARIO("interrupted_it_block", setup);
