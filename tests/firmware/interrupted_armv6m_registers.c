/* ARMv6-M (Thumb-1, where r8-r11 only reach memory through r0-r7): a low task
 * is interrupted with r0-r12 and lr each holding a value of its own. The
 * interrupt wakes a high task, to which the kernel switches at once, so the
 * low task is kept with its exception frame; the high task, which had waited
 * with r4-r11 set to values of its own (kept by a call), checks them, then
 * waits again and so resumes the low task, which checks every register and
 * its stack pointer. A register lost fails the run by name. Tag 1: every
 * register came back. */
#include "switchscope/board.h"
#include "switchscope/harness.h"

static ss_signal *wake;

void switchscope_soft_irq(void) { ss_signal_give_from_isr(wake); }

/* Sets r0-r12 and lr, pends the software interrupt, and returns how many of
 * them (and sp) differ after it: 0 when the interrupt and the switches it
 * caused kept them all. */
uint32_t interrupted_registers_differ(void);
uint32_t interrupted_registers_sp;
uint32_t registers_differ(const uint32_t *saved);

__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.interrupted_registers_differ, \"ax\", %progbits\n"
        ".global interrupted_registers_differ\n"
        ".thumb_func\n"
        "interrupted_registers_differ:\n"
        "    push {r4-r7, lr}\n"
        "    mov r4, r8\n mov r5, r9\n mov r6, r10\n mov r7, r11\n"
        "    push {r4-r7}\n"
        "    mov r0, r12\n"
        "    push {r0}\n" /* the caller's r12, not its to keep: the stack stays 8-byte aligned */
        "    mov r0, sp\n"
        "    ldr r1, =interrupted_registers_sp\n"
        "    str r0, [r1]\n"
        "    ldr r0, =0x5a5a0008\n mov r8, r0\n"
        "    ldr r0, =0x5a5a0009\n mov r9, r0\n"
        "    ldr r0, =0x5a5a000a\n mov r10, r0\n"
        "    ldr r0, =0x5a5a000b\n mov r11, r0\n"
        "    ldr r0, =0x5a5a000c\n mov r12, r0\n"
        "    ldr r0, =0x5a5a000e\n mov lr, r0\n"
        "    ldr r0, =0x5a5a0000\n"
        "    ldr r1, =0x5a5a0001\n"
        "    ldr r2, =0x5a5a0002\n"
        "    ldr r3, =0x5a5a0003\n"
        "    ldr r4, =0x5a5a0004\n"
        "    ldr r5, =0x5a5a0005\n"
        "    ldr r6, =0xE000E200\n" /* NVIC_ISPR0: r6 and r7 keep the address and the interrupt's bit */
        "    ldr r7, =0x80000000\n" /* BOARD_SOFT_IRQ_NUMBER 31 */
        "    str r7, [r6]\n"
        "    .rept 8\n nop\n .endr\n"
        "    push {r0-r7}\n"        /* what came back, for registers_differ: r12, lr, r8-r11, r0-r7 */
        "    mov r0, r8\n mov r1, r9\n mov r2, r10\n mov r3, r11\n"
        "    push {r0-r3}\n"
        "    mov r0, r12\n"
        "    mov r1, lr\n"
        "    push {r0, r1}\n"
        "    mov r0, sp\n"
        "    bl registers_differ\n"
        "    add sp, #56\n"
        "    pop {r1}\n"
        "    mov r12, r1\n"
        "    pop {r4-r7}\n"
        "    mov r8, r4\n mov r9, r5\n mov r10, r6\n mov r11, r7\n"
        "    pop {r4-r7, pc}\n"
        "    .ltorg\n"
        ".text\n");

/* saved: r12, lr, r8-r11, r0-r7 (14 words, pushed from the stack pointer the function kept). */
uint32_t registers_differ(const uint32_t *saved)
{
    static const unsigned order[14] = {12, 14, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7};
    uint32_t differ = 0;
    for (unsigned i = 0; i < 14; i++) {
        uint32_t expected = 0x5a5a0000u + order[i];
        if (order[i] == 6)
            expected = 0xE000E200u;
        else if (order[i] == 7)
            expected = 0x80000000u;
        differ += saved[i] != expected;
    }
    differ += (uint32_t)(saved + 14) != interrupted_registers_sp;
    return differ;
}

/* Sets r4-r11, waits for `signal` (a call-level switch away and back), and
 * returns how many of them differ after: 0 when the kernel kept them. */
uint32_t callee_saved_differ_after_wait(ss_signal *signal);
__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.callee_saved_differ_after_wait, \"ax\", %progbits\n"
        ".global callee_saved_differ_after_wait\n"
        ".thumb_func\n"
        "callee_saved_differ_after_wait:\n"
        "    push {r4-r7, lr}\n"
        "    mov r4, r8\n mov r5, r9\n mov r6, r10\n mov r7, r11\n"
        "    push {r4-r7}\n"
        "    ldr r1, =0x6b6b0008\n mov r8, r1\n"
        "    ldr r1, =0x6b6b0009\n mov r9, r1\n"
        "    ldr r1, =0x6b6b000a\n mov r10, r1\n"
        "    ldr r1, =0x6b6b000b\n mov r11, r1\n"
        "    ldr r4, =0x6b6b0004\n"
        "    ldr r5, =0x6b6b0005\n"
        "    ldr r6, =0x6b6b0006\n"
        "    ldr r7, =0x6b6b0007\n"
        "    bl ss_signal_wait\n"
        "    movs r0, #0\n"
        "    .irp n, 4, 5, 6, 7\n"
        "    ldr r1, =0x6b6b0000 + \\n\n"
        "    cmp r\\n, r1\n"
        "    beq 1f\n"
        "    adds r0, #1\n"
        "1:\n"
        "    .endr\n"
        "    .irp n, 8, 9, 10, 11\n"
        "    mov r2, r\\n\n"
        "    ldr r1, =0x6b6b0000 + \\n\n"
        "    cmp r2, r1\n"
        "    beq 1f\n"
        "    adds r0, #1\n"
        "1:\n"
        "    .endr\n"
        "    pop {r4-r7}\n"
        "    mov r8, r4\n mov r9, r5\n mov r10, r6\n mov r11, r7\n"
        "    pop {r4-r7, pc}\n"
        "    .ltorg\n"
        ".text\n");

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        if (callee_saved_differ_after_wait(wake))
            harness_fail(SS_TEXT("a register the task's wait should have kept came back changed"));
        PROBE_CLOSE();
    }
}

static uint16_t window(uint32_t seq)
{
    (void)seq;
    PROBE_OPEN();
    if (interrupted_registers_differ())
        harness_fail(SS_TEXT("a register the interrupt should have kept came back changed"));
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

SCENARIO("interrupted_armv6m_registers", setup);
