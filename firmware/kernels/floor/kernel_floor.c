/*
 * floor: the least a task switch can cost, with the porting layer's calls so
 * that every scenario runs. A task is its saved stack pointer, a ready flag
 * and a priority; the next task is found by looking at each task (at most
 * FLOOR_MAX_TASKS). A switch between tasks is a function call, so it saves
 * and restores exactly the registers the C ABI makes a called function keep:
 * r4-r11 and the return address on a Cortex-M, r2-r17 and r28-r29 and the
 * return address on an AVR, ra and s0-s11 on RV32 (the RISC-V psABI's ilp32
 * callee-saved registers); the stack pointer goes into the task.
 *
 * Interrupts are masked while the scheduler's state changes and across a
 * switch; the resumed task unmasks them. On the AVR an interrupt handler
 * switches the same way, with its own frame left on the interrupted task's
 * stack. A Cortex-M task cannot run in handler mode, so a switch an
 * interrupt asks for is made by PendSV: the interrupted task is kept as the
 * exception left it (its frame, then r4-r11; its saved stack pointer marked
 * by bit 0), and a task kept by a call is entered through an exception frame
 * made for it. A call-level switch to a task kept by an exception goes
 * through SVC, whose return restores it. On RV32 interrupts are mstatus.MIE,
 * and a trap leaves no mode behind that only its return can leave (there is
 * no handler mode): the interrupt handler switches as on the AVR, by the same
 * call, its frame left on the interrupted task's stack. The trap entry keeps
 * there what a C call may change (ra, t0-t6, a0-a7) and mepc, which another
 * task's trap would overwrite; every task, kept by a call or by an interrupt,
 * is resumed by floor_switch's return, which for one kept by an interrupt
 * goes back up through its handler to the trap exit that restores its frame
 * and returns with mret. No mark tells the two kinds apart: nothing but the
 * return differs, and the interrupted one's own path does that. mret also
 * takes mstatus.MPIE and MPP, which another task's trap and mret may have
 * left at 1 and U: every trap the entry keeps is an interrupt taken in M mode
 * with MIE set, so the exit sets MPP to M and MPIE to 1 rather than saving
 * them. The table is the board's (BOARD_VECTOR_TABLE: Ibex has vectored traps
 * only): the machine timer ticks, every other interrupt goes to
 * board_interrupt(), an exception fails the run by name.
 */
#include <stdint.h>
#include <string.h>
#include "switchscope/board.h"
#include "switchscope/harness.h"
#include "switchscope/kernel.h"

#define FLOOR_MAX_SIGNALS 4
#define FLOOR_MAX_MUTEXES 1
#define FLOOR_MAX_QUEUES 1
#define FLOOR_MAX_MESSAGE 64
#if defined(__AVR__)
#define FLOOR_MAX_TASKS 4 /* rotate's most on the ATmega328P's 2 KB (its board.toml's max_tasks) */
#define STACK_BYTES 192
#elif defined(BOARD_KERNEL_HEAP_BYTES) /* a board with little RAM says how much the kernel may have */
#define STACK_BYTES 1024
#define FLOOR_MAX_TASKS (BOARD_KERNEL_HEAP_BYTES / STACK_BYTES)
#else
#define FLOOR_MAX_TASKS 16 /* rotate's most */
#define STACK_BYTES 1024
#endif

struct ss_task {
    uintptr_t sp; /* first: the switch finds it at offset 0 */
    uint8_t ready;
    uint8_t priority;
};

struct ss_signal {
    uint8_t given;
    ss_task *waiter;
};

/* One waiter at most: the scenarios' need. The owner runs at the waiter's
 * priority while it is the more urgent (inheritance), at its own (base) after. */
struct ss_mutex {
    ss_task *owner;
    ss_task *waiter;
    uint8_t base;
};

/* One message: handed straight to a waiting receiver, else kept; copied by the C library's memcpy, as
 * FreeRTOS copies it. */
struct ss_queue {
    uint8_t bytes;
    uint8_t full;
    ss_task *receiver;
    uint8_t *receiver_buffer;
    ss_task *sender;
    uint8_t message[FLOOR_MAX_MESSAGE];
};

static ss_task tasks[FLOOR_MAX_TASKS];
#if defined(__riscv)
#define STACK_ALIGN 16 /* the psABI's stack alignment */
#else
#define STACK_ALIGN 8 /* AAPCS's at a public interface */
#endif
static uint8_t stacks[FLOOR_MAX_TASKS][STACK_BYTES] __attribute__((aligned(STACK_ALIGN)));
static uint8_t task_count;
static ss_signal signals[FLOOR_MAX_SIGNALS];
static uint8_t signal_count;
static ss_mutex mutexes[FLOOR_MAX_MUTEXES];
static uint8_t mutex_count;
static ss_queue queues[FLOOR_MAX_QUEUES];
static uint8_t queue_count;
static volatile uint32_t ticks;
ss_task *volatile floor_current; /* read by the Cortex-M exception handlers */
ss_task *volatile floor_pending; /* the task an interrupt handler made ready to run */
static ss_task startup;          /* main's context, saved once and never resumed */

/* Saves the caller's registers the ABI keeps on its stack and its stack
 * pointer in `from`, and returns into `to` as it was saved. Interrupts masked. */
void floor_switch(ss_task *from, ss_task *to);
void floor_task_start(void);

static uint8_t interrupts_mask(void);
static void interrupts_restore(uint8_t was_masked);

/* ---- the switch, per core ---------------------------------------------- */
#if defined(__AVR__)
#include <avr/interrupt.h>
#include <avr/io.h>

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

static void prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint16_t start = (uint16_t)(uintptr_t)floor_task_start; /* a word address, as call pushes */
    uint8_t *p = top - 1;
    *p-- = (uint8_t)start;        /* the return address: low byte above, */
    *p-- = (uint8_t)(start >> 8); /* high byte below, as call leaves it */
    uint8_t saved[18] = {0};      /* r2..r17, r28, r29 in push order */
    saved[0] = (uint8_t)(uintptr_t)fn;
    saved[1] = (uint8_t)((uintptr_t)fn >> 8);
    saved[2] = (uint8_t)(uintptr_t)arg;
    saved[3] = (uint8_t)((uintptr_t)arg >> 8);
    for (int i = 0; i < 18; i++)
        *p-- = saved[i];
    task->sp = (uintptr_t)p; /* the AVR's SP points below the last byte pushed */
}

static uint8_t interrupts_mask(void)
{
    uint8_t was = !(SREG & _BV(SREG_I));
    cli();
    return was;
}

static void interrupts_restore(uint8_t was_masked)
{
    if (!was_masked)
        sei();
}

static void switch_to(ss_task *next);

/* An interrupt handler's switch is the same call: its frame stays on the interrupted task's stack. */
static void switch_from_handler(ss_task *next) { switch_to(next); }

ISR(WDT_vect) { ticks++; }

static void start_tick(void)
{
    /* the watchdog in interrupt mode, its shortest period (16 ms), as FreeRTOS's ATmega port ticks */
    WDTCSR = _BV(WDCE) | _BV(WDE);
    WDTCSR = _BV(WDIE);
}

#elif defined(__riscv) /* RV32 (Ibex) */

#define MSTATUS_MIE 0x8u
#define MIE_MTIE (1u << 7)
#define TICK_CYCLES (BOARD_CPU_CLOCK_HZ / 1000u) /* 1 kHz, as FreeRTOS's tick on this core */

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

static void prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint32_t *p = (uint32_t *)top - 16; /* the frame floor_switch leaves: ra, s0-s11, three words of padding */
    for (int i = 0; i < 16; i++)
        p[i] = 0;
    p[0] = (uint32_t)floor_task_start;
    p[1] = (uint32_t)fn;
    p[2] = (uint32_t)arg;
    task->sp = (uintptr_t)p;
}

static uint8_t interrupts_mask(void)
{
    uint32_t mstatus;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus)::"memory");
    return !(mstatus & MSTATUS_MIE);
}

static void interrupts_restore(uint8_t was_masked)
{
    if (!was_masked)
        __asm__ volatile("csrsi mstatus, 8" ::: "memory");
}

static void switch_to(ss_task *next);

static void switch_from_handler(ss_task *next) { switch_to(next); }

static uint64_t next_tick; /* mtimecmp's value: the machine timer's next interrupt */

static void set_mtimecmp(uint64_t when)
{
    volatile uint32_t *compare = (volatile uint32_t *)BOARD_MTIMECMP_ADDRESS;
    compare[1] = 0xFFFFFFFFu; /* no moment between the two halves' writes where the compare is early */
    compare[0] = (uint32_t)when;
    compare[1] = (uint32_t)(when >> 32);
}

/* The machine timer's interrupt, called from floor_trap_entry. */
void floor_tick(void) __attribute__((used));
void floor_tick(void)
{
    ticks++;
    next_tick += TICK_CYCLES;
    set_mtimecmp(next_tick);
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
 * at once, inside the call (switch_from_handler is switch_to): the frame
 * stays on this task's stack under floor_switch's, and the task is resumed,
 * by whichever task and however, by floor_switch's return into its handler,
 * which comes back here to restore the frame and mret.
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
extern const char floor_vectors[];

static void start_tick(void)
{
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)floor_vectors | 1u)); /* mode 1: vectored */
    volatile uint32_t *mtime = (volatile uint32_t *)BOARD_MTIME_ADDRESS;
    uint32_t high, low;
    do { /* the 64-bit count, its halves read consistently */
        high = mtime[1];
        low = mtime[0];
    } while (mtime[1] != high);
    next_tick = (((uint64_t)high << 32) | low) + TICK_CYCLES;
    set_mtimecmp(next_tick);
    __asm__ volatile("csrs mie, %0" ::"r"(MIE_MTIE)); /* taken once the first task sets mstatus.MIE */
}

#else /* Cortex-M: ARMv7-M (M3, M4) and ARMv6-M (M0, M0+) */
#include "switchscope/cortex_m.h"

/*
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
#if defined(__ARM_FP)
#define FLOOR_FPU 1
#define FPU_ASM(text) text
#define NO_FPU_ASM(text)
#else
#define FLOOR_FPU 0
#define FPU_ASM(text)
#define NO_FPU_ASM(text) text
#endif

#define SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define SCB_SHPR3 (*(volatile uint32_t *)0xE000ED20u)
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define ICSR_PENDSVSET (1u << 28)

#if CORTEX_M_ARMV6M
/*
 * ARMv6-M (Cortex-M0, M0+), Thumb-1: PUSH and POP reach r0-r7 and lr/pc only,
 * and there is no STMDB, so r8-r11 go through r4-r7 once those are on the
 * stack. A task kept by a call, low address first: r8-r11, r4-r7, the return
 * address; one kept by an exception: r8-r11, r4-r7, then the frame the
 * exception stacked. The same nine words in the same order below either
 * kind's resume point, so one restore serves both.
 */
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

/* A new task's first switch returns here, its function in r4 and its argument in r5. */
__attribute__((naked)) void floor_task_start(void)
{
    __asm__ volatile("cpsie i\n mov r0, r5\n blx r4\n bl floor_task_returned\n");
}

static void prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint32_t *p = (uint32_t *)top - 9; /* r8-r11, r4-r7 and the return address, as floor_switch leaves them */
    for (int i = 0; i < 9; i++)
        p[i] = 0;
    p[4] = (uint32_t)fn;
    p[5] = (uint32_t)arg;
    p[8] = (uint32_t)floor_task_start;
    task->sp = (uintptr_t)p;
}
#else /* ARMv7-M (Cortex-M3, M4) */
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

/* A new task's first switch returns here, its function in r4 and its argument in r5. */
__attribute__((naked)) void floor_task_start(void)
{
    __asm__ volatile("cpsie i\n mov r0, r5\n blx r4\n bl floor_task_returned\n");
}

#if FLOOR_FPU
/* PendSV returns here into a task kept by a call with s16-s31 saved (its stack pointer at them): VPOP in
 * thread mode gives it its FP context back, then it returns as floor_switch would have. */
__attribute__((naked, used)) void floor_fp_resume(void)
{
    __asm__ volatile("vpop {s16-s31}\n pop {r4-r11, pc}\n");
}
#endif

static void prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint32_t *p = (uint32_t *)top - 9; /* r4-r11 and the return address, as push {r4-r11, lr} leaves them */
    for (int i = 0; i < 9; i++)
        p[i] = 0;
    p[0] = (uint32_t)fn;
    p[1] = (uint32_t)arg;
    p[8] = (uint32_t)floor_task_start;
    task->sp = (uintptr_t)p;
}

#endif

static uint8_t interrupts_mask(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return (uint8_t)(primask & 1);
}

static void interrupts_restore(uint8_t was_masked)
{
    if (!was_masked)
        __asm__ volatile("cpsie i" ::: "memory");
}

static void switch_from_handler(ss_task *next)
{
    floor_pending = next;
    SCB_ICSR = ICSR_PENDSVSET;
}

void SysTick_Handler(void) { ticks++; }

static void start_tick(void)
{
    SCB_SHPR3 |= 0xFFu << 16; /* PendSV the lowest priority: it runs once every other handler is done */
    SYST_RVR = BOARD_CPU_CLOCK_HZ / 100u - 1u; /* 100 Hz, as FreeRTOS's tick here */
    SYST_CVR = 0;
    SYST_CSR = 7; /* the core clock, its interrupt, on */
}
#endif

/* ---- the scheduler ------------------------------------------------------ */

void floor_task_returned(void) { harness_fail(SS_TEXT("floor: a task returned from its function")); }

/* The most urgent ready task; among equals, the first after `after` in the ring. */
static ss_task *most_urgent(ss_task *after)
{
    ss_task *best = 0, *end = tasks + task_count, *task = after ? after : end - 1;
    for (uint8_t left = task_count; left; left--) {
        if (++task == end)
            task = tasks;
        if (task->ready && (!best || task->priority > best->priority))
            best = task;
    }
    if (!best)
        harness_fail(SS_TEXT("floor: no task is ready"));
    return best;
}

/* From a task: switch to `next` if it is not the running task; interrupts masked. */
static void switch_to(ss_task *next)
{
    if (next == floor_current)
        return;
    ss_task *previous = floor_current;
    floor_current = next;
    floor_switch(previous, next);
}

/* After `task` became ready or more urgent: run it at once if it is more urgent than the running one
 * (which is the most urgent of the others). */
static void preempt_if_more_urgent(ss_task *task, int from_handler)
{
    if (task->ready && task->priority > floor_current->priority) {
        if (from_handler)
            switch_from_handler(task);
        else
            switch_to(task);
    }
}

ss_task *ss_task_create(const char *name, ss_task_fn fn, void *arg, unsigned priority)
{
    (void)name;
    if (task_count == FLOOR_MAX_TASKS)
        harness_fail(SS_TEXT("floor: more tasks than FLOOR_MAX_TASKS"));
    uint8_t was = interrupts_mask();
    ss_task *task = &tasks[task_count];
    prepare_stack(task, stacks[task_count] + STACK_BYTES, fn, arg);
    task->priority = (uint8_t)priority;
    task->ready = 1;
    task_count++;
    if (floor_current)
        preempt_if_more_urgent(task, 0);
    interrupts_restore(was);
    return task;
}

void ss_task_suspend_self(void)
{
    uint8_t was = interrupts_mask();
    floor_current->ready = 0;
    switch_to(most_urgent(floor_current));
    interrupts_restore(was);
}

void ss_task_resume(ss_task *task)
{
    uint8_t was = interrupts_mask();
    task->ready = 1;
    preempt_if_more_urgent(task, 0);
    interrupts_restore(was);
}

void ss_task_set_priority(ss_task *task, unsigned priority)
{
    uint8_t was = interrupts_mask();
    uint8_t lowered_self = task == floor_current && priority < task->priority;
    task->priority = (uint8_t)priority;
    if (lowered_self) /* another task may now be the more urgent */
        switch_to(most_urgent(floor_current));
    else
        preempt_if_more_urgent(task, 0);
    interrupts_restore(was);
}

/* The running task is the most urgent ready one: the next ready task of its priority in the ring, if any. */
void ss_yield(void)
{
    uint8_t was = interrupts_mask();
    ss_task *end = tasks + task_count, *task = floor_current;
    for (uint8_t left = task_count - 1; left; left--) {
        if (++task == end)
            task = tasks;
        if (task->ready && task->priority == floor_current->priority) {
            switch_to(task);
            break;
        }
    }
    interrupts_restore(was);
}

void ss_complete_switch(void) {} /* every call above switches at once */

ss_signal *ss_signal_create(void)
{
    if (signal_count == FLOOR_MAX_SIGNALS)
        harness_fail(SS_TEXT("floor: more signals than FLOOR_MAX_SIGNALS"));
    return &signals[signal_count++];
}

void ss_signal_wait(ss_signal *signal)
{
    uint8_t was = interrupts_mask();
    if (signal->given) {
        signal->given = 0;
    } else {
        signal->waiter = floor_current;
        floor_current->ready = 0;
        switch_to(most_urgent(floor_current));
    }
    interrupts_restore(was);
}

static void give(ss_signal *signal, int from_handler)
{
    ss_task *waiter = signal->waiter;
    if (!waiter) {
        signal->given = 1;
        return;
    }
    signal->waiter = 0;
    waiter->ready = 1;
    preempt_if_more_urgent(waiter, from_handler);
}

void ss_signal_give(ss_signal *signal)
{
    uint8_t was = interrupts_mask();
    give(signal, 0);
    interrupts_restore(was);
}

void ss_signal_give_from_isr(ss_signal *signal) { give(signal, 1); }

ss_mutex *ss_mutex_create(void)
{
    if (mutex_count == FLOOR_MAX_MUTEXES)
        harness_fail(SS_TEXT("floor: more mutexes than FLOOR_MAX_MUTEXES"));
    return &mutexes[mutex_count++];
}

static void take_mutex(ss_mutex *mutex, ss_task *task)
{
    mutex->owner = task;
    mutex->base = task->priority;
}

void ss_mutex_lock(ss_mutex *mutex)
{
    uint8_t was = interrupts_mask();
    if (!mutex->owner) {
        take_mutex(mutex, floor_current);
    } else {
        if (mutex->waiter)
            harness_fail(SS_TEXT("floor: a second task waits for a mutex"));
        mutex->waiter = floor_current;
        floor_current->ready = 0;
        if (floor_current->priority > mutex->owner->priority)
            mutex->owner->priority = floor_current->priority; /* inherited */
        switch_to(most_urgent(floor_current)); /* back here owning it */
    }
    interrupts_restore(was);
}

void ss_mutex_unlock(ss_mutex *mutex)
{
    uint8_t was = interrupts_mask();
    ss_task *waiter = mutex->waiter;
    floor_current->priority = mutex->base; /* what it inherited, given back */
    mutex->owner = 0;
    if (waiter) {
        mutex->waiter = 0;
        take_mutex(mutex, waiter);
        waiter->ready = 1;
        switch_to(most_urgent(floor_current));
    }
    interrupts_restore(was);
}

ss_queue *ss_queue_create(unsigned bytes)
{
    if (queue_count == FLOOR_MAX_QUEUES || bytes < 1 || bytes > FLOOR_MAX_MESSAGE)
        harness_fail(SS_TEXT("floor: one queue, of 1 to FLOOR_MAX_MESSAGE bytes"));
    ss_queue *queue = &queues[queue_count++];
    queue->bytes = (uint8_t)bytes;
    return queue;
}

void ss_queue_send(ss_queue *queue, const void *message)
{
    uint8_t was = interrupts_mask();
    if (queue->full) { /* one sender at a time: it waits for the receiver to empty the queue */
        queue->sender = floor_current;
        floor_current->ready = 0;
        switch_to(most_urgent(floor_current));
    }
    ss_task *receiver = queue->receiver;
    if (receiver) {
        memcpy(queue->receiver_buffer, message, queue->bytes);
        queue->receiver = 0;
        receiver->ready = 1;
        preempt_if_more_urgent(receiver, 0);
    } else {
        memcpy(queue->message, message, queue->bytes);
        queue->full = 1;
    }
    interrupts_restore(was);
}

void ss_queue_receive(ss_queue *queue, void *message)
{
    uint8_t was = interrupts_mask();
    if (queue->full) {
        memcpy(message, queue->message, queue->bytes);
        queue->full = 0;
        ss_task *sender = queue->sender;
        if (sender) {
            queue->sender = 0;
            sender->ready = 1;
            preempt_if_more_urgent(sender, 0);
        }
    } else {
        queue->receiver = floor_current;
        queue->receiver_buffer = message;
        floor_current->ready = 0;
        switch_to(most_urgent(floor_current)); /* back here with the message */
    }
    interrupts_restore(was);
}

uint32_t ss_tick_count(void)
{
    uint8_t was = interrupts_mask();
    uint32_t now = ticks;
    interrupts_restore(was);
    return now;
}

void ss_wait_next_tick(void)
{
    uint32_t tick = ss_tick_count();
    while (ss_tick_count() == tick)
        ;
}

void ss_kernel_start(void)
{
    interrupts_mask();
    floor_current = most_urgent(0);
    start_tick();
    floor_switch(&startup, floor_current); /* the task unmasks interrupts */
    harness_fail(SS_TEXT("floor: the start returned"));
}

void ss_kernel_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("kernel"), SS_TEXT("floor"));
    emit(SS_TEXT("kernel_version"), SS_TEXT("1"));
    emit(SS_TEXT("config.switch"), SS_TEXT("call: the ABI's callee-saved registers"));
    emit(SS_TEXT("config.priorities"), SS_TEXT("on"));
    emit(SS_TEXT("config.mutex"), SS_TEXT("priority inheritance, one waiter"));
}
