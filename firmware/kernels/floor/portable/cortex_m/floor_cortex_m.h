/*
 * What the floor's two Cortex-M ports (armv6m, armv7m) have alike inline: the
 * interrupt mask is PRIMASK, a handler's switch is PendSV's, the tick
 * SysTick's.
 *
 * A Cortex-M task cannot run in handler mode, so a switch an interrupt asks
 * for is made by PendSV: the interrupted task is kept as the exception left
 * it (its frame, then r4-r11; its saved stack pointer marked by bit 0), and a
 * task kept by a call is entered through an exception frame made for it. A
 * call-level switch to a task kept by an exception goes through SVC, whose
 * return restores it.
 */
#ifndef FLOOR_CORTEX_M_H
#define FLOOR_CORTEX_M_H

#define SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define SCB_SHPR3 (*(volatile uint32_t *)0xE000ED20u)
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define ICSR_PENDSVSET (1u << 28)

static inline uint8_t floor_interrupts_mask(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return (uint8_t)(primask & 1);
}

static inline void floor_interrupts_restore(uint8_t was_masked)
{
    if (!was_masked)
        __asm__ volatile("cpsie i" ::: "memory");
}

/* A task cannot run in handler mode: PendSV, once every other handler is done, switches to `next`. */
static inline void floor_switch_from_handler(ss_task *next)
{
    floor_pending = next;
    SCB_ICSR = ICSR_PENDSVSET;
}

static inline void floor_start_tick(void)
{
    SCB_SHPR3 |= 0xFFu << 16; /* PendSV the lowest priority: it runs once every other handler is done */
    SYST_RVR = BOARD_CPU_CLOCK_HZ / 100u - 1u; /* 100 Hz, as FreeRTOS's tick here */
    SYST_CVR = 0;
    SYST_CSR = 7; /* the core clock, its interrupt, on */
}

#endif
