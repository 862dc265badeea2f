/* The porting layer on FreeRTOS: a task handle is an ss_task, a binary
 * semaphore is an ss_signal. */
#include "FreeRTOS.h"
#include "semphr.h"
#include "task.h"
#include "switchscope/harness.h"
#include "switchscope/kernel.h"

#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

static UBaseType_t native_priority(unsigned priority)
{
    if (priority < 1 || priority >= configMAX_PRIORITIES)
        harness_fail("task priority outside 1..configMAX_PRIORITIES-1");
    return (UBaseType_t)priority;
}

ss_task *ss_task_create(const char *name, ss_task_fn fn, void *arg, unsigned priority)
{
    TaskHandle_t handle;
    if (xTaskCreate(fn, name, configMINIMAL_STACK_SIZE * 2, arg, native_priority(priority), &handle) != pdPASS)
        harness_fail("xTaskCreate failed: kernel heap too small");
    return (ss_task *)handle;
}

void ss_task_suspend_self(void) { vTaskSuspend(NULL); }
void ss_task_resume(ss_task *task) { vTaskResume((TaskHandle_t)task); }
void ss_task_set_priority(ss_task *task, unsigned priority)
{
    vTaskPrioritySet((TaskHandle_t)task, native_priority(priority));
}
void ss_yield(void) { taskYIELD(); }

ss_signal *ss_signal_create(void)
{
    SemaphoreHandle_t semaphore = xSemaphoreCreateBinary();
    if (!semaphore)
        harness_fail("xSemaphoreCreateBinary failed: kernel heap too small");
    return (ss_signal *)semaphore;
}

void ss_signal_wait(ss_signal *signal) { xSemaphoreTake((SemaphoreHandle_t)signal, portMAX_DELAY); }
void ss_signal_give(ss_signal *signal) { xSemaphoreGive((SemaphoreHandle_t)signal); }

void ss_signal_give_from_isr(ss_signal *signal)
{
    BaseType_t higher_priority_woken = pdFALSE;
    xSemaphoreGiveFromISR((SemaphoreHandle_t)signal, &higher_priority_woken);
    portYIELD_FROM_ISR(higher_priority_woken);
}

uint32_t ss_tick_count(void) { return (uint32_t)xTaskGetTickCount(); }
void ss_wait_next_tick(void) { vTaskDelay(1); }
void ss_kernel_start(void) { vTaskStartScheduler(); }

void ss_kernel_describe(void (*emit)(const char *key, const char *value))
{
    emit("kernel", "freertos");
    emit("kernel_version", tskKERNEL_VERSION_NUMBER);
    emit("config.configUSE_PREEMPTION", TEXT(configUSE_PREEMPTION));
    emit("config.configUSE_TIME_SLICING", TEXT(configUSE_TIME_SLICING));
    emit("config.configUSE_PORT_OPTIMISED_TASK_SELECTION", TEXT(configUSE_PORT_OPTIMISED_TASK_SELECTION));
    emit("config.configMAX_PRIORITIES", TEXT(configMAX_PRIORITIES));
    emit("config.configTICK_RATE_HZ", TEXT(configTICK_RATE_HZ));
    emit("config.configUSE_TRACE_FACILITY", TEXT(configUSE_TRACE_FACILITY));
    emit("config.configCHECK_FOR_STACK_OVERFLOW", TEXT(configCHECK_FOR_STACK_OVERFLOW));
    emit("config.configASSERT", SWITCHSCOPE_FREERTOS_ASSERT ? "1" : "0");
    emit("config.signal", "binary semaphore");
}

void vApplicationMallocFailedHook(void) { harness_fail("FreeRTOS heap exhausted"); }

#if SWITCHSCOPE_FREERTOS_ASSERT
void ss_freertos_assert_failed(const char *file, int line)
{
    (void)line;
    harness_fail(file);
}
#endif
