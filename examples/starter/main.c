/*
 * The starting point of your own FreeRTOS application on a board switchscope
 * simulates, as `switchscope new-project` writes it: replace these tasks with
 * yours. The Makefile beside it builds app.elf with switchscope's support for
 * the board (start-up code, linker script, the UART: board.h) and FreeRTOS as
 * switchscope builds it; `switchscope measure app.elf --target TARGET
 * --switches --kernel freertos` then times its every task switch. The
 * project's README.md says what the simulated machine has and lacks.
 *
 * Here a sender hands numbers to a more urgent receiver through a queue
 * (each send switches to the receiver, each receive back), and sleeps a tick
 * now and then, so that the idle task and the tick switch too.
 */
#include <stddef.h>
#include <stdint.h>
#include "FreeRTOS.h"
#include "queue.h"
#include "task.h"
#include "switchscope/board.h"

#define STACK_WORDS (configMINIMAL_STACK_SIZE * 2)

static QueueHandle_t numbers;
static volatile uint32_t received;

/* A line on the board's UART (the simulator prints it). */
static void say(const char *text)
{
    size_t length = 0;
    while (text[length])
        length++;
    board_write((const uint8_t *)text, length);
    board_flush();
}

static void sender(void *arg)
{
    (void)arg;
    uint16_t number = 0;
    say("sender: running\n");
    for (;;) {
        number++;
        xQueueSend(numbers, &number, portMAX_DELAY);
        if ((number & 63u) == 0)
            vTaskDelay(1); /* the idle task runs until the next tick */
    }
}

static void receiver(void *arg)
{
    (void)arg;
    uint16_t number;
    for (;;) {
        xQueueReceive(numbers, &number, portMAX_DELAY);
        received += number & 1u;
    }
}

#if defined(__riscv)
/* A RISC-V application points mtvec at its trap handler itself: on Ibex (vectored traps only) a table
 * whose every vector enters the port's freertos_risc_v_trap_handler (board_config.h). The port's
 * handler calls this one for every interrupt but its tick: the board's dispatch. */
__asm__(BOARD_VECTOR_TABLE("app_vectors", "freertos_risc_v_trap_handler"));
extern const char app_vectors[];
void freertos_risc_v_application_interrupt_handler(uint32_t mcause);
void freertos_risc_v_application_interrupt_handler(uint32_t mcause) { board_interrupt(mcause); }
#endif

/* Task names of at most 7 characters: FreeRTOS keeps configMAX_TASK_NAME_LEN (8) bytes, its NUL included. */
int main(void)
{
    board_init();
    say("app: started\n");
    numbers = xQueueCreate(2, sizeof(uint16_t));
    xTaskCreate(receiver, "receive", STACK_WORDS, 0, 2, 0);
    xTaskCreate(sender, "send", STACK_WORDS, 0, 1, 0);
#if defined(__riscv)
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)app_vectors | 1u)); /* mode 1: vectored */
#endif
    vTaskStartScheduler();
    for (;;)
        ;
}

/* What FreeRTOS's configuration (FreeRTOSConfig.h) asks the application for. */
void vApplicationIdleHook(void) {}
void vApplicationMallocFailedHook(void)
{
    say("app: FreeRTOS heap exhausted\n");
    board_exit(5);
}

/* The board support reports a fault through these: say it, and stop. */
void harness_fail(const char *reason)
{
    (void)reason; /* on the AVR a text in flash, not RAM */
    say("app: board fault\n");
    board_exit(3);
}

void harness_fail_formatted(const char *reason)
{
    say(reason);
    say("\n");
    board_exit(3);
}
