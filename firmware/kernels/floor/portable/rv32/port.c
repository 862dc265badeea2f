/*
 * The floor's switch on RV32 (Ibex): a function call, so it saves and
 * restores exactly the registers the RISC-V psABI's ilp32 makes a called
 * function keep, ra and s0-s11; the stack pointer goes into the task.
 *
 * Interrupts are mstatus.MIE, and a trap leaves no mode behind that only its
 * return can leave (there is no handler mode): the interrupt handler switches
 * as a task does, by the same call, its frame left on the interrupted task's
 * stack. The trap entry keeps there what a C call may change (ra, t0-t6,
 * a0-a7) and mepc, which another task's trap would overwrite; every task,
 * kept by a call or by an interrupt, is resumed by floor_switch's return,
 * which for one kept by an interrupt goes back up through its handler to the
 * trap exit that restores its frame and returns with mret. No mark tells the
 * two kinds apart: nothing but the return differs, and the interrupted one's
 * own path does that. mret also takes mstatus.MPIE and MPP, which another
 * task's trap and mret may have left at 1 and U: every trap the entry keeps
 * is an interrupt taken in M mode with MIE set, so the exit sets MPP to M and
 * MPIE to 1 rather than saving them. The table is the board's
 * (BOARD_VECTOR_TABLE: Ibex has vectored traps only): the machine timer
 * ticks, every other interrupt goes to board_interrupt(), an exception fails
 * the run by name.
 */
#include "floor.h"
#include "switchscope/harness_fail.h"

uint64_t floor_next_tick;

/*
 * ra and s0-s11 in a frame of 16 words (64 bytes: sp stays 16-byte aligned, as
 * the psABI wants at a call), then sp into `from`, and the same back from `to`.
 * Every other register is the caller's to keep (a0-a7, t0-t6) or the same for
 * every task (gp, tp).
 */
__attribute__((naked)) void floor_switch(ss_task *from, ss_task *to)
{
    (void)from;
    (void)to;
    __asm__ volatile(
        "addi sp, sp, -64\n"
        "sw ra, 0(sp)\n sw s0, 4(sp)\n sw s1, 8(sp)\n sw s2, 12(sp)\n"
        "sw s3, 16(sp)\n sw s4, 20(sp)\n sw s5, 24(sp)\n sw s6, 28(sp)\n"
        "sw s7, 32(sp)\n sw s8, 36(sp)\n sw s9, 40(sp)\n sw s10, 44(sp)\n sw s11, 48(sp)\n"
        "sw sp, 0(a0)\n"
        "lw sp, 0(a1)\n"
        "lw ra, 0(sp)\n lw s0, 4(sp)\n lw s1, 8(sp)\n lw s2, 12(sp)\n"
        "lw s3, 16(sp)\n lw s4, 20(sp)\n lw s5, 24(sp)\n lw s6, 28(sp)\n"
        "lw s7, 32(sp)\n lw s8, 36(sp)\n lw s9, 40(sp)\n lw s10, 44(sp)\n lw s11, 48(sp)\n"
        "addi sp, sp, 64\n"
        "ret\n");
}

/* A new task's first switch returns here, its function in s0 and its argument in s1. */
__attribute__((naked)) void floor_task_start(void)
{
    __asm__ volatile("csrsi mstatus, 8\n mv a0, s1\n jalr s0\n call floor_task_returned\n");
}

/* The machine timer's interrupt, called from floor_trap_entry. */
void floor_tick(void) __attribute__((used));
void floor_tick(void)
{
    floor_ticks++;
    floor_next_tick += FLOOR_TICK_CYCLES;
    floor_set_mtimecmp(floor_next_tick);
}

void floor_unexpected_trap(void) __attribute__((used, noreturn));
void floor_unexpected_trap(void) { harness_fail(SS_TEXT("floor: an exception (no handler for it)")); }

/*
 * Ibex's traps are vectored only: the board's table (BOARD_VECTOR_TABLE) sends
 * every one to floor_trap_entry, the latency timer's through the board's stamp
 * first (and the NMI's, with irq_priority=high, never here); mcause tells them
 * apart.
 *
 * The entry keeps on the interrupted task's stack what a C call may change
 * (ra, t0-t6, a0-a7) and mepc: 17 words in a frame of 20 (80 bytes, sp stays
 * 16-byte aligned). The machine timer (mcause 0x80000007) ticks; any other
 * interrupt goes to board_interrupt(mcause), whose handler may switch tasks
 * at once, inside the call (floor_switch_from_handler is floor_switch_to):
 * the frame stays on this task's stack under floor_switch's, and the task is
 * resumed, by whichever task and however, by floor_switch's return into its
 * handler, which comes back here to restore the frame and mret.
 *
 * mepc is the only trap state kept: another task's trap overwrites it in
 * between. mstatus is not saved: mret takes MIE from MPIE and the privilege
 * from MPP, and sets MPIE to 1 and MPP to the least privileged mode, U on Ibex
 * (the privileged spec's MRET; ibex_cs_registers.sv, csr_restore_mret_i), so a
 * trap and mret in another task leave MPP wrong for this one. Every trap that
 * reaches the exit is an interrupt taken in M mode with MIE set (an exception
 * ends the run), so the right values are always MPP M and MPIE 1: set before
 * mret, they cost neither a store nor a load.
 */
#define FLOOR_MSTATUS_MPP_M_MPIE "0x1880" /* MPP (bits 11-12) 3, M mode; MPIE (bit 7) 1 */
__asm__(BOARD_VECTOR_TABLE("floor_vectors", "floor_trap_entry"));
__asm__(".section .text.floor_trap_entry, \"ax\"\n"
        ".globl floor_trap_entry\n"
        ".type floor_trap_entry, @function\n"
        "floor_trap_entry:\n"
        "    addi sp, sp, -80\n"
        "    sw ra, 0(sp)\n"
        "    sw t0, 4(sp)\n"
        "    sw t1, 8(sp)\n"
        "    sw t2, 12(sp)\n"
        "    sw a0, 16(sp)\n"
        "    sw a1, 20(sp)\n"
        "    sw a2, 24(sp)\n"
        "    sw a3, 28(sp)\n"
        "    sw a4, 32(sp)\n"
        "    sw a5, 36(sp)\n"
        "    sw a6, 40(sp)\n"
        "    sw a7, 44(sp)\n"
        "    sw t3, 48(sp)\n"
        "    sw t4, 52(sp)\n"
        "    sw t5, 56(sp)\n"
        "    sw t6, 60(sp)\n"
        "    csrr t0, mepc\n"
        "    sw t0, 64(sp)\n"
        "    csrr a0, mcause\n"
        "    bgez a0, 3f\n" /* an exception: the run ends there */
        "    li t0, 0x80000007\n"
        "    beq a0, t0, 1f\n"
        "    call board_interrupt\n"          /* may switch away and come back */
        "    j 2f\n"
        "1:  call floor_tick\n"
        "2:  lw t0, 64(sp)\n"
        "    csrw mepc, t0\n"
        "    li t0, " FLOOR_MSTATUS_MPP_M_MPIE "\n"
        "    csrs mstatus, t0\n"
        "    lw ra, 0(sp)\n"
        "    lw t0, 4(sp)\n"
        "    lw t1, 8(sp)\n"
        "    lw t2, 12(sp)\n"
        "    lw a0, 16(sp)\n"
        "    lw a1, 20(sp)\n"
        "    lw a2, 24(sp)\n"
        "    lw a3, 28(sp)\n"
        "    lw a4, 32(sp)\n"
        "    lw a5, 36(sp)\n"
        "    lw a6, 40(sp)\n"
        "    lw a7, 44(sp)\n"
        "    lw t3, 48(sp)\n"
        "    lw t4, 52(sp)\n"
        "    lw t5, 56(sp)\n"
        "    lw t6, 60(sp)\n"
        "    addi sp, sp, 80\n"
        "    mret\n"
        "3:  j floor_unexpected_trap\n"
        ".size floor_trap_entry, . - floor_trap_entry\n"
        ".text\n");
