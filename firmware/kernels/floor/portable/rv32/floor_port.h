/* The floor's port to RV32 (Ibex): what the scheduler has inline (floor.h says what each is). */
#ifndef FLOOR_PORT_H
#define FLOOR_PORT_H

#define FLOOR_STACK_ALIGN 16 /* the psABI's stack alignment */

#define FLOOR_MSTATUS_MIE 0x8u
#define FLOOR_MIE_MTIE (1u << 7)
#define FLOOR_TICK_CYCLES (BOARD_CPU_CLOCK_HZ / 1000u) /* 1 kHz, as FreeRTOS's tick on this core */

extern uint64_t floor_next_tick; /* mtimecmp's value: the machine timer's next interrupt */
extern const char floor_vectors[];

static inline uint8_t floor_interrupts_mask(void)
{
    uint32_t mstatus;
    __asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus)::"memory");
    return !(mstatus & FLOOR_MSTATUS_MIE);
}

static inline void floor_interrupts_restore(uint8_t was_masked)
{
    if (!was_masked)
        __asm__ volatile("csrsi mstatus, 8" ::: "memory");
}

/* An interrupt handler's switch is the same call: its frame stays on the interrupted task's stack. */
#define FLOOR_HANDLER_SWITCHES_BY_CALL 1

static inline void floor_prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint32_t *p = (uint32_t *)top - 16; /* the frame floor_switch leaves: ra, s0-s11, three words of padding */
    for (int i = 0; i < 16; i++)
        p[i] = 0;
    p[0] = (uint32_t)floor_task_start;
    p[1] = (uint32_t)fn;
    p[2] = (uint32_t)arg;
    task->sp = (uintptr_t)p;
}

static inline void floor_set_mtimecmp(uint64_t when)
{
    volatile uint32_t *compare = (volatile uint32_t *)BOARD_MTIMECMP_ADDRESS;
    compare[1] = 0xFFFFFFFFu; /* no moment between the two halves' writes where the compare is early */
    compare[0] = (uint32_t)when;
    compare[1] = (uint32_t)(when >> 32);
}

static inline void floor_start_tick(void)
{
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)floor_vectors | 1u)); /* mode 1: vectored */
    volatile uint32_t *mtime = (volatile uint32_t *)BOARD_MTIME_ADDRESS;
    uint32_t high, low;
    do { /* the 64-bit count, its halves read consistently */
        high = mtime[1];
        low = mtime[0];
    } while (mtime[1] != high);
    floor_next_tick = (((uint64_t)high << 32) | low) + FLOOR_TICK_CYCLES;
    floor_set_mtimecmp(floor_next_tick);
    __asm__ volatile("csrs mie, %0" ::"r"(FLOOR_MIE_MTIE)); /* taken once the first task sets mstatus.MIE */
}

#endif
