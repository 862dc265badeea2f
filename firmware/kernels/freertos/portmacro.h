/*
 * FreeRTOS's own portmacro.h for the CPU (found next on the include path),
 * and, with --config switch=software on a Cortex-M, the software task-level
 * switch of switch_software.c in place of PendSV: a yield from task code
 * saves and restores every register itself, with no exception; a yield from
 * an interrupt handler still pends PendSV, as FreeRTOS's own port does.
 */
#ifndef SWITCHSCOPE_PORTMACRO_H
#define SWITCHSCOPE_PORTMACRO_H

#include_next <portmacro.h>

#if SWITCHSCOPE_SOFTWARE_SWITCH && !defined(__AVR__)
void ss_software_switch(void);
void vPortExitCritical(void);
extern volatile uint32_t ss_switch_deferred;

static inline uint32_t ss_ipsr(void)
{
    uint32_t value;
    __asm volatile("mrs %0, ipsr" : "=r"(value));
    return value;
}

static inline uint32_t ss_basepri(void)
{
    uint32_t value;
    __asm volatile("mrs %0, basepri" : "=r"(value)::"memory");
    return value;
}

/* From an interrupt handler: PendSV. From a task inside a critical section
 * (BASEPRI raised), the switch waits for the section's end, where PendSV
 * would have been taken. Otherwise: the software switch, now. */
static inline void ss_port_yield(void)
{
    if (ss_ipsr() != 0) {
        portNVIC_INT_CTRL_REG = portNVIC_PENDSVSET_BIT;
        __asm volatile("dsb" ::: "memory");
        __asm volatile("isb");
    } else if (ss_basepri() != 0) {
        ss_switch_deferred = 1;
    } else {
        ss_software_switch();
    }
}

static inline void ss_port_exit_critical(void)
{
    vPortExitCritical();
    if (ss_switch_deferred && ss_basepri() == 0) {
        ss_switch_deferred = 0;
        ss_software_switch();
    }
}

#undef portYIELD
#define portYIELD() ss_port_yield()
#undef portEXIT_CRITICAL
#define portEXIT_CRITICAL() ss_port_exit_critical()
#endif

#endif
