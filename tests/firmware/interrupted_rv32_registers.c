/* RV32: a low task is interrupted with every register a C call may change
 * (ra, t0-t6, a0-a7) holding a value of its own. The interrupt wakes a high
 * task, which the handler switches to at once, so the low task stays kept
 * with its interrupt frame. Before the high task waits again (and so resumes
 * the low one) it takes an interrupt of its own that switches nothing: that
 * one's entry and mret overwrite mepc and leave mstatus.MPP at U, the state
 * the low task's resumption must not inherit. The low task checks that each
 * register came back, and its stack pointer: a wrong mepc sends it
 * elsewhere, a wrong MPP into user mode, where its next CSR access traps.
 * Tag 1: as it should be. */
#include "switchscope/board.h"
#include "switchscope/harness.h"

static ss_signal *wake;
static volatile uint8_t switching = 1; /* the handler wakes the high task; else it only counts */
static volatile uint32_t counted;

void switchscope_soft_irq(void)
{
    if (switching)
        ss_signal_give_from_isr(wake);
    else
        counted++;
}

/* Fills ra, t0-t6 and a0-a7 with values of their own, pends the software
 * interrupt, and returns the number of those registers (and sp) that differ
 * after it: 0 when the interrupt kept them all. */
uint32_t interrupted_registers_differ(void);
__asm__(".section .text.interrupted_registers_differ, \"ax\"\n"
        ".globl interrupted_registers_differ\n"
        "interrupted_registers_differ:\n"
        "    addi sp, sp, -16\n"
        "    sw ra, 12(sp)\n"
        "    sw s0, 8(sp)\n"
        "    sw s1, 4(sp)\n"
        "    sw s2, 0(sp)\n"
        "    mv s2, sp\n"
        "    lui s0, 0x20\n" /* BOARD_SOFT_IRQ_ADDRESS, 0x20014 */
        "    li s1, 1\n"
        "    li ra, 0x5a5a0001\n"
        "    li t0, 0x5a5a0005\n"
        "    li t1, 0x5a5a0006\n"
        "    li t2, 0x5a5a0007\n"
        "    li a0, 0x5a5a000a\n"
        "    li a1, 0x5a5a000b\n"
        "    li a2, 0x5a5a000c\n"
        "    li a3, 0x5a5a000d\n"
        "    li a4, 0x5a5a000e\n"
        "    li a5, 0x5a5a000f\n"
        "    li a6, 0x5a5a0010\n"
        "    li a7, 0x5a5a0011\n"
        "    li t3, 0x5a5a001c\n"
        "    li t4, 0x5a5a001d\n"
        "    li t5, 0x5a5a001e\n"
        "    li t6, 0x5a5a001f\n"
        "    sw s1, 0x14(s0)\n" /* the line rises the next cycle: taken in the nops */
        "    .rept 8\n nop\n .endr\n"
        "    li s0, 0\n"
        "    .irp reg_number, 1, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 28, 29, 30, 31\n"
        "    li s1, 0x5a5a0000 + \\reg_number\n"
        "    beq x\\reg_number, s1, 1f\n"
        "    addi s0, s0, 1\n"
        "1:\n"
        "    .endr\n"
        "    beq sp, s2, 2f\n"
        "    addi s0, s0, 1\n"
        "2:  mv a0, s0\n"
        "    lw ra, 12(sp)\n"
        "    lw s0, 8(sp)\n"
        "    lw s1, 4(sp)\n"
        "    lw s2, 0(sp)\n"
        "    addi sp, sp, 16\n"
        "    ret\n"
        ".text\n");

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        ss_signal_wait(wake);
        PROBE_CLOSE();
        uint32_t before = counted;
        switching = 0;
        board_soft_irq_pend(); /* an interrupt taken and returned from in this task */
        while (counted == before)
            ;
        switching = 1;
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

SCENARIO("interrupted_rv32_registers", setup);
