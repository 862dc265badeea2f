/* Two FreeRTOS tasks of one priority yielding to each other on Ibex. Each
 * yield is timed from the yielding task's `csrr mcycle` just before its
 * ecall (label yield_a_before / yield_b_before) to the other task's `csrr
 * mcycle` just after its own ecall returns (yield_b_after / yield_a_after):
 * the program prints what it read, and the harness logs the same labels'
 * retire cycles, which are the same numbers.
 *
 * Output: "yield <cycles>" per sample, then "done". Built with
 * -DYIELD_FOREVER it never stops (for timing the simulator itself). */
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"
#include "../output.h"

#define SAMPLES 64
#ifndef YIELD_FOREVER
#define YIELD_FOREVER 0
#endif

static volatile uint32_t yielded_at;  /* mcycle of the last yield's ecall */
static uint32_t samples[SAMPLES];
static volatile int taken;

void ibex_assert_failed(const char *file, int line) {
    put_string("assert failed: ");
    put_string(file);
    put_string(":");
    put_decimal((uint32_t)line);
    put_string("\n");
    __asm__ volatile("j halt");
}

static void report_and_halt(void) {
    for (int i = 0; i < SAMPLES; ++i) {
        put_string("yield ");
        put_decimal(samples[i]);
        put_string("\n");
    }
    put_string("done\n");
    __asm__ volatile("j halt");
}

/* The labels are global so the harness can watch them; each task's body is
 * written once (noinline, no unrolling), so each label names one address. */
#define YIELD_TIMED(before, after)                                              \
    do {                                                                        \
        uint32_t start, end;                                                    \
        __asm__ volatile(".globl " before "\n" before ": csrr %0, mcycle"       \
                         : "=r"(start)::"memory");                              \
        yielded_at = start;                                                     \
        taskYIELD();                                                            \
        __asm__ volatile(".globl " after "\n" after ": csrr %0, mcycle"         \
                         : "=r"(end)::"memory");                                \
        if (taken < SAMPLES) samples[taken++] = end - yielded_at;               \
        else if (!YIELD_FOREVER) report_and_halt();                             \
    } while (0)

static void __attribute__((noinline)) task_a(void *unused) {
    (void)unused;
    for (;;) YIELD_TIMED("yield_a_before", "yield_a_after");
}

static void __attribute__((noinline)) task_b(void *unused) {
    (void)unused;
    for (;;) YIELD_TIMED("yield_b_before", "yield_b_after");
}

int main(void) {
    xTaskCreate(task_a, "a", configMINIMAL_STACK_SIZE, NULL, 1, NULL);
    xTaskCreate(task_b, "b", configMINIMAL_STACK_SIZE, NULL, 1, NULL);
    vTaskStartScheduler();
    put_string("the scheduler returned\n");
    return 1;
}
