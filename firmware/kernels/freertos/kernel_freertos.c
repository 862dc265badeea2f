/* The porting layer on FreeRTOS: a task handle is an ss_task, a binary
 * semaphore is an ss_signal, a mutex (priority inheritance) an ss_mutex and a
 * queue of length one an ss_queue. FreeRTOS has no block pool: an ss_pool's
 * blocks come from its heap (heap_4's pvPortMalloc and vPortFree), as
 * Thread-Metric's FreeRTOS ports allocate them. */
#include "FreeRTOS.h"
#include "semphr.h"
#include "task.h"
#include "switchscope/board.h"
#include "switchscope/harness_fail.h"
#include "switchscope/kernel.h"

#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

/* SWITCHSCOPE_SAME_PRIORITY puts every task at priority 1: the "priorities
 * off" configuration of the BeRTOS table. */
#ifndef SWITCHSCOPE_SAME_PRIORITY
#define SWITCHSCOPE_SAME_PRIORITY 0
#endif

static UBaseType_t native_priority(unsigned priority)
{
    if (priority < 1 || priority >= configMAX_PRIORITIES)
        harness_fail(SS_TEXT("task priority outside 1..configMAX_PRIORITIES-1"));
    return SWITCHSCOPE_SAME_PRIORITY ? 1 : (UBaseType_t)priority;
}

/* The end of a handler that made a task ready: switch to it on the way out if it is the more urgent.
 * Always inlined, so that each handler's code is as if written out in it. */
static inline __attribute__((always_inline)) void yield_from_isr(BaseType_t higher_priority_woken)
{
#if !configUSE_PREEMPTION
    (void)higher_priority_woken; /* cooperative: the task switches when it yields */
#elif defined(__AVR__)
    if (higher_priority_woken)
        portYIELD_FROM_ISR(); /* the ATmega port's takes no argument */
#else
    portYIELD_FROM_ISR(higher_priority_woken);
#endif
}

ss_task *ss_task_create(const char *name, ss_task_fn fn, void *arg, unsigned priority)
{
    TaskHandle_t handle;
    if (xTaskCreate(fn, name, configMINIMAL_STACK_SIZE * 2, arg, native_priority(priority), &handle) != pdPASS)
        harness_fail(SS_TEXT("xTaskCreate failed: kernel heap too small"));
    return (ss_task *)handle;
}

void ss_task_suspend_self(void) { vTaskSuspend(NULL); }
void ss_task_resume(ss_task *task) { vTaskResume((TaskHandle_t)task); }
void ss_task_resume_from_isr(ss_task *task)
{
    BaseType_t higher_priority_woken = xTaskResumeFromISR((TaskHandle_t)task);
    yield_from_isr(higher_priority_woken);
}

void ss_task_set_priority(ss_task *task, unsigned priority)
{
    vTaskPrioritySet((TaskHandle_t)task, native_priority(priority));
}
void ss_yield(void) { taskYIELD(); }
unsigned ss_highest_priority(void) { return configMAX_PRIORITIES - 1; }

void ss_complete_switch(void)
{
#if !configUSE_PREEMPTION || SWITCHSCOPE_SAME_PRIORITY
    taskYIELD();
#endif
}

ss_signal *ss_signal_create(void)
{
    SemaphoreHandle_t semaphore = xSemaphoreCreateBinary();
    if (!semaphore)
        harness_fail(SS_TEXT("xSemaphoreCreateBinary failed: kernel heap too small"));
    return (ss_signal *)semaphore;
}

void ss_signal_wait(ss_signal *signal) { xSemaphoreTake((SemaphoreHandle_t)signal, portMAX_DELAY); }
void ss_signal_give(ss_signal *signal) { xSemaphoreGive((SemaphoreHandle_t)signal); }

void ss_signal_give_from_isr(ss_signal *signal)
{
    BaseType_t higher_priority_woken = pdFALSE;
    xSemaphoreGiveFromISR((SemaphoreHandle_t)signal, &higher_priority_woken);
    yield_from_isr(higher_priority_woken);
}

#if configUSE_MUTEXES
ss_mutex *ss_mutex_create(void)
{
    SemaphoreHandle_t mutex = xSemaphoreCreateMutex();
    if (!mutex)
        harness_fail(SS_TEXT("xSemaphoreCreateMutex failed: kernel heap too small"));
    return (ss_mutex *)mutex;
}

void ss_mutex_lock(ss_mutex *mutex) { xSemaphoreTake((SemaphoreHandle_t)mutex, portMAX_DELAY); }
void ss_mutex_unlock(ss_mutex *mutex) { xSemaphoreGive((SemaphoreHandle_t)mutex); }
#endif

ss_queue *ss_queue_create(unsigned bytes)
{
    QueueHandle_t queue = xQueueCreate(1, bytes);
    if (!queue)
        harness_fail(SS_TEXT("xQueueCreate failed: kernel heap too small"));
    return (ss_queue *)queue;
}

void ss_queue_send(ss_queue *queue, const void *message) { xQueueSend((QueueHandle_t)queue, message, portMAX_DELAY); }
void ss_queue_receive(ss_queue *queue, void *message) { xQueueReceive((QueueHandle_t)queue, message, portMAX_DELAY); }

ss_pool *ss_pool_create(unsigned bytes, unsigned blocks)
{
    (void)blocks; /* the heap holds them */
    return (ss_pool *)(uintptr_t)bytes;
}

void *ss_pool_allocate(ss_pool *pool)
{
    void *block = pvPortMalloc((size_t)(uintptr_t)pool);
    if (!block)
        harness_fail(SS_TEXT("pvPortMalloc failed: kernel heap too small"));
    return block;
}

void ss_pool_free(ss_pool *pool, void *block)
{
    (void)pool;
    vPortFree(block);
}

uint32_t ss_tick_count(void) { return (uint32_t)xTaskGetTickCount(); }
void ss_wait_next_tick(void) { vTaskDelay(1); }
#if defined(__riscv)
/* RISC-V cores with vectored traps only (Ibex): every entry of a table at a
 * 256-byte boundary enters the port's one trap handler, which reads mcause,
 * but the latency timer's, which the board stamps first (board_config.h,
 * BOARD_VECTOR_TABLE). mtvec takes it before the scheduler starts (mode 1:
 * vectored). */
__asm__(BOARD_VECTOR_TABLE("ss_freertos_vectors", "freertos_risc_v_trap_handler"));

/* The port's handler for every interrupt but the machine timer's (its tick),
 * called from its trap handler with mcause, on the interrupt stack, interrupts
 * masked: the board's. A handler that made a higher-priority task ready
 * switches to it on the way out (portYIELD_FROM_ISR: vTaskSwitchContext
 * here, the port's context restore then returns into the new task). */
void freertos_risc_v_application_interrupt_handler(uint32_t mcause);
void freertos_risc_v_application_interrupt_handler(uint32_t mcause) { board_interrupt(mcause); }
extern const char ss_freertos_vectors[];

void ss_kernel_start(void)
{
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)ss_freertos_vectors | 1u));
    vTaskStartScheduler();
}
#else
void ss_kernel_start(void) { vTaskStartScheduler(); }
#endif

void ss_kernel_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("kernel"), SS_TEXT("freertos"));
    emit(SS_TEXT("kernel_version"), SS_TEXT(tskKERNEL_VERSION_NUMBER));
    emit(SS_TEXT("config.configUSE_PREEMPTION"), SS_TEXT(TEXT(configUSE_PREEMPTION)));
    emit(SS_TEXT("config.configUSE_TIME_SLICING"), SS_TEXT(TEXT(configUSE_TIME_SLICING)));
    emit(SS_TEXT("config.configUSE_PORT_OPTIMISED_TASK_SELECTION"), SS_TEXT(TEXT(configUSE_PORT_OPTIMISED_TASK_SELECTION)));
#if configUSE_PORT_OPTIMISED_TASK_SELECTION
    /* The port counts leading zeros with __builtin_clz: one instruction where the core has one (ARMv7-M's CLZ,
     * RISC-V's Zbb clz), else a call of libgcc's software count, whose cycles are in every switch's. */
#if defined(__riscv) && !defined(__riscv_zbb)
    emit(SS_TEXT("config.count_leading_zeros"), SS_TEXT("software CLZ (libgcc __clzsi2: no clz instruction)"));
#else
    emit(SS_TEXT("config.count_leading_zeros"), SS_TEXT("CLZ instruction"));
#endif
#endif
    emit(SS_TEXT("config.configMAX_PRIORITIES"), SS_TEXT(TEXT(configMAX_PRIORITIES)));
    emit(SS_TEXT("config.configTICK_RATE_HZ"), SS_TEXT(TEXT(configTICK_RATE_HZ)));
    emit(SS_TEXT("config.configUSE_TRACE_FACILITY"), SS_TEXT(TEXT(configUSE_TRACE_FACILITY)));
    emit(SS_TEXT("config.configCHECK_FOR_STACK_OVERFLOW"), SS_TEXT(TEXT(configCHECK_FOR_STACK_OVERFLOW)));
#if !defined(__riscv) /* a Cortex-M port's ceiling (BASEPRI); the RISC-V port masks every interrupt (mstatus.MIE) */
    emit(SS_TEXT("config.configMAX_SYSCALL_INTERRUPT_PRIORITY"), SS_TEXT(TEXT(configMAX_SYSCALL_INTERRUPT_PRIORITY)));
#endif
    emit(SS_TEXT("config.configASSERT"), SS_TEXT(TEXT(SWITCHSCOPE_FREERTOS_ASSERT)));
    emit(SS_TEXT("config.configUSE_MUTEXES"), SS_TEXT(TEXT(configUSE_MUTEXES)));
    emit(SS_TEXT("config.signal"), SS_TEXT("binary semaphore"));
#if defined(SWITCHSCOPE_USES_POOL) /* said only where a pool is used: every other build stays as it was */
    emit(SS_TEXT("config.pool"), SS_TEXT("heap_4 (pvPortMalloc, vPortFree)"));
#endif
#if defined(__riscv)
    emit(SS_TEXT("config.switch"), SS_TEXT("ecall")); /* the port's own: a trap, its handler switches */
#else
    emit(SS_TEXT("config.switch"), SWITCHSCOPE_SOFTWARE_SWITCH ? SS_TEXT("software") : SS_TEXT("pendsv"));
#endif
    emit(SS_TEXT("config.priorities"), SWITCHSCOPE_SAME_PRIORITY ? SS_TEXT("off") : SS_TEXT("on"));
}

void vApplicationMallocFailedHook(void) { harness_fail(SS_TEXT("FreeRTOS heap exhausted")); }
void vApplicationIdleHook(void) { board_idle(); }

#if configCHECK_FOR_STACK_OVERFLOW
void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task;
    (void)name;
    harness_fail(SS_TEXT("task stack overflow"));
}
#endif

#if SWITCHSCOPE_FREERTOS_ASSERT
void ss_freertos_assert_failed(const char *file, int line)
{
    (void)line;
    harness_fail(file); /* a board text: see configASSERT */
}
#endif
