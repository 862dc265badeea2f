/*
 * FreeRTOS configuration for switchscope. Every option that changes the
 * switch path can be overridden from the build (-DconfigX=...) and is
 * reported with each result by ss_kernel_describe().
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "switchscope/board.h"
#include "switchscope/config_value.h"

#define configCPU_CLOCK_HZ BOARD_CPU_CLOCK_HZ

#ifndef configUSE_PREEMPTION
#define configUSE_PREEMPTION 1
#endif
#ifndef configUSE_TIME_SLICING
#define configUSE_TIME_SLICING 1
#endif
#if defined(__AVR__)
/* The ATmega port has no optimised task selection, and ticks from the
 * watchdog's shortest period, 15 ms (portUSE_WDTO in its portmacro.h). */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#ifndef configMAX_PRIORITIES
#define configMAX_PRIORITIES 4
#endif
#define configTICK_RATE_HZ 66
#else
#if defined(__ARM_ARCH_6M__)
/* ARMv6-M has no CLZ: the ARM_CM0 port selects the next task by the generic
 * search (kernel.toml refuses optimised_selection=on there, with the reason). */
#if defined(configUSE_PORT_OPTIMISED_TASK_SELECTION) && configUSE_PORT_OPTIMISED_TASK_SELECTION
#error "optimised task selection needs CLZ, which ARMv6-M (Cortex-M0/M0+) lacks"
#endif
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#endif
#ifndef configUSE_PORT_OPTIMISED_TASK_SELECTION
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
#endif
#ifndef configMAX_PRIORITIES
#define configMAX_PRIORITIES 8
#endif
/* 100 Hz: under QEMU's -icount shift=8 an instruction takes 256 ns of
 * virtual time, so a 10 ms tick leaves the kernel about as many instructions
 * between ticks (39,000) as a 1 kHz tick leaves a real 25 MHz Cortex-M3, and
 * the harness as many windows per tick. */
#if defined(__riscv)
/* The RTL's cycles are real time at BOARD_CPU_CLOCK_HZ: a 1 kHz tick, as a
 * chip at that clock would run, is 50,000 cycles at 50 MHz. */
#ifndef configTICK_RATE_HZ
#define configTICK_RATE_HZ 1000
#endif
#endif
#ifndef configTICK_RATE_HZ
#define configTICK_RATE_HZ 100
#endif
#endif
#ifndef configUSE_TRACE_FACILITY
#define configUSE_TRACE_FACILITY 0
#endif
#ifndef configCHECK_FOR_STACK_OVERFLOW
#define configCHECK_FOR_STACK_OVERFLOW 0
#endif
/* --config switch=software|pendsv (switch_software.c, portmacro.h) */
#ifndef SWITCHSCOPE_SWITCH
#define SWITCHSCOPE_SWITCH pendsv
#endif
#define SWITCH_IS_pendsv 0
#define SWITCH_IS_software 1
#define SWITCHSCOPE_SOFTWARE_SWITCH SWITCHSCOPE_IS(SWITCH_IS_, SWITCHSCOPE_SWITCH)
/* Assertions add checks to the switch path; off unless asked for. */
#ifndef SWITCHSCOPE_FREERTOS_ASSERT
#define SWITCHSCOPE_FREERTOS_ASSERT 0
#endif
#if SWITCHSCOPE_FREERTOS_ASSERT
void ss_freertos_assert_failed(const char *file, int line);
#define configASSERT(x) \
    if (!(x))           \
    ss_freertos_assert_failed(SS_TEXT(__FILE__), __LINE__)
#endif

#if defined(__AVR__)
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_16_BITS
#define configMINIMAL_STACK_SIZE 85
#define configTOTAL_HEAP_SIZE 1100
#else
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configMINIMAL_STACK_SIZE 128
#if defined(BOARD_KERNEL_HEAP_BYTES) /* a board with little RAM says how much the kernel may have */
#define configTOTAL_HEAP_SIZE BOARD_KERNEL_HEAP_BYTES
#else
#define configTOTAL_HEAP_SIZE (24 * 1024)
#endif
#endif
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configUSE_IDLE_HOOK 1 /* calls board_idle() */
#define configUSE_TICK_HOOK 0
#define configUSE_MALLOC_FAILED_HOOK 1
/* Mutexes only where a scenario locks one (deadlock-break, sem-shuffle with
 * lock=mutex): they give every task a base priority, which changes
 * vTaskPrioritySet's path (rotate's). */
#define LOCK_IS_mutex 1
#define LOCK_IS_semaphore 0
#if defined(SWITCHSCOPE_USES_MUTEX) || (defined(SWITCHSCOPE_USES_LOCK) && SWITCHSCOPE_IS(LOCK_IS_, SWITCHSCOPE_LOCK))
#define configUSE_MUTEXES 1
#else
#define configUSE_MUTEXES 0
#endif
#define configUSE_COUNTING_SEMAPHORES 0
#define configUSE_TIMERS 0
#define configUSE_CO_ROUTINES 0
#define configMAX_TASK_NAME_LEN 8
#define configQUEUE_REGISTRY_SIZE 0

/* Cortex-M NVIC priorities, as the upper bits of a byte: the kernel runs at
 * the lowest; interrupts that call the kernel must not be above 0xA0. */
#define configKERNEL_INTERRUPT_PRIORITY 0xFF
#if defined(__ARM_ARCH_6M__)
/* ARMv6-M has no BASEPRI: the ARM_CM0 port's critical sections set PRIMASK,
 * which masks every interrupt, so no ceiling exists (0: none, as reported). */
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0
/* The ARMv8-M-style ARM_CM0 port of V11 asks for these: no MPU (the nRF51
 * has none), and no check of the vector table through VTOR, which the
 * Cortex-M0 lacks (the board's table holds the port's handlers by name). */
#define configENABLE_MPU 0
#define configCHECK_HANDLER_INSTALLATION 0
#else
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0xA0
#endif

#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_vTaskPrioritySet 1
#define INCLUDE_vTaskDelete 0

#if defined(__riscv)
/* The RISC-V port: the tick from the board's machine timer (mtime counts the
 * core's clock), interrupts on a stack of their own. No addresses for the
 * port: machine_timer.c sets the timer up (vPortSetupTimerInterrupt) with
 * the board's, which its linker script gives (board_config.h). */
#define configMTIME_BASE_ADDRESS 0
#define configMTIMECMP_BASE_ADDRESS 0
#define configISR_STACK_SIZE_WORDS 256
#endif

/* The port's handlers under the names the board's vector table uses. */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

#endif
