/* FreeRTOS configuration for the Ibex prototype (simple_system): the
 * machine timer at 0x30000 (mtime) and 0x30008 (mtimecmp) counts core
 * cycles, so configCPU_CLOCK_HZ / configTICK_RATE_HZ is the tick period in
 * cycles (50,000 here, as a 50 MHz core with a 1 kHz tick). */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configMTIME_BASE_ADDRESS 0x30000
#define configMTIMECMP_BASE_ADDRESS 0x30008
#define configCPU_CLOCK_HZ 50000000
#define configTICK_RATE_HZ 1000
#define configISR_STACK_SIZE_WORDS 256

#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configMAX_PRIORITIES 4
#define configMINIMAL_STACK_SIZE 256
#define configTOTAL_HEAP_SIZE (16 * 1024)
#define configMAX_TASK_NAME_LEN 8
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configSUPPORT_STATIC_ALLOCATION 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configUSE_MUTEXES 0
#define configUSE_TIMERS 0
#define configUSE_TRACE_FACILITY 0
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configUSE_MALLOC_FAILED_HOOK 0
#define INCLUDE_vTaskDelay 1

void ibex_assert_failed(const char *file, int line);
#define configASSERT(x) \
    if (!(x)) ibex_assert_failed(__FILE__, __LINE__)

#endif
