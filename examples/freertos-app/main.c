/*
 * An application, not a benchmark: what `switchscope measure --switches`
 * measures as it would a user's firmware, with nothing added for it.
 *
 * A periodic timer interrupt (the board's spare timer) wakes the producer;
 * the producer sends a reading through a queue to the consumer, which is
 * more urgent and runs at once; a background task, the least urgent,
 * counts when nothing else runs; FreeRTOS's own idle task and tick complete
 * the picture. It runs until the simulator is stopped.
 *
 * Built with switchscope's board support (startup, the timer) and FreeRTOS
 * as switchscope builds it: `switchscope measure --build-example --target
 * mps2-an385` (or atmega328p, ibex) builds it and prints where the ELF is.
 */
#include <stdint.h>
#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"
#include "switchscope/board.h"

#define TIMER_PERIOD_COUNTS 20000u /* of the timer's clock: about every 0.8 ms (mps2-an385), 1.25 ms (atmega328p) */
#define STACK_WORDS (configMINIMAL_STACK_SIZE * 2)

static SemaphoreHandle_t tick_of_timer;
static QueueHandle_t readings;
static volatile uint32_t consumed, background_rounds;

/* The timer's interrupt: re-armed, it wakes the producer. */
void switchscope_latency_irq(void)
{
    BaseType_t woken = pdFALSE;
    board_latency_timer_stop();
    board_latency_timer_arm(TIMER_PERIOD_COUNTS);
    xSemaphoreGiveFromISR(tick_of_timer, &woken);
#if defined(__AVR__)
    if (woken)
        portYIELD_FROM_ISR(); /* the ATmega port's takes no argument */
#else
    portYIELD_FROM_ISR(woken);
#endif
}

static void producer(void *arg)
{
    (void)arg;
    uint16_t reading = 0;
    for (;;) {
        xSemaphoreTake(tick_of_timer, portMAX_DELAY);
        reading = (uint16_t)(reading * 75u + 74u); /* something to send */
        xQueueSend(readings, &reading, portMAX_DELAY);
    }
}

static void consumer(void *arg)
{
    (void)arg;
    uint16_t reading;
    for (;;) {
        xQueueReceive(readings, &reading, portMAX_DELAY);
        consumed += reading & 1u;
    }
}

static void background(void *arg)
{
    (void)arg;
    for (;;) {
        background_rounds++;
        taskYIELD(); /* gives way to the idle task, its equal */
    }
}

#if defined(__riscv)
/* A RISC-V application points mtvec at its trap handler itself: on Ibex (vectored traps only) a table
 * whose every vector jumps to the port's freertos_risc_v_trap_handler, the spare timer's excepted (the
 * board's entry, which goes on to it; board_config.h). The port's handler calls this one for every
 * interrupt but its tick: the board's dispatch, which runs switchscope_latency_irq. */
__asm__(BOARD_VECTOR_TABLE("app_vectors", "freertos_risc_v_trap_handler"));
extern const char app_vectors[];
void freertos_risc_v_application_interrupt_handler(uint32_t mcause);
void freertos_risc_v_application_interrupt_handler(uint32_t mcause) { board_interrupt(mcause); }
#endif

/* Task names of at most 7 characters: FreeRTOS keeps configMAX_TASK_NAME_LEN (8) bytes, its NUL included. */
int main(void)
{
    board_init();
    tick_of_timer = xSemaphoreCreateBinary();
    readings = xQueueCreate(2, sizeof(uint16_t));
    xTaskCreate(consumer, "consume", STACK_WORDS, 0, 3, 0);
    xTaskCreate(producer, "produce", STACK_WORDS, 0, 2, 0);
    xTaskCreate(background, "backgnd", STACK_WORDS, 0, tskIDLE_PRIORITY, 0);
    board_latency_timer_arm(TIMER_PERIOD_COUNTS);
#if defined(__riscv)
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)app_vectors | 1u)); /* mode 1: vectored */
#endif
    vTaskStartScheduler();
    for (;;)
        ;
}

/* What FreeRTOS's configuration asks the application for. */
void vApplicationIdleHook(void) {}
void vApplicationMallocFailedHook(void) { board_exit(5); }

/* The board support reports a fault through these; the example has no stream to report on: it stops. */
void harness_fail(const char *reason)
{
    (void)reason;
    board_exit(3);
}

void harness_fail_formatted(const char *reason)
{
    (void)reason;
    board_exit(3);
}
