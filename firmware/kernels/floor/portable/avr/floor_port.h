/* The floor's port to the AVR (ATmega328P): what the scheduler has inline (floor.h says what each is). */
#ifndef FLOOR_PORT_H
#define FLOOR_PORT_H

#include <avr/interrupt.h>
#include <avr/io.h>

#define FLOOR_MAX_TASKS 4 /* rotate's most on the ATmega328P's 2 KB (its board.toml's max_tasks) */
#define FLOOR_STACK_BYTES 192

static inline uint8_t floor_interrupts_mask(void)
{
    uint8_t was = !(SREG & _BV(SREG_I));
    cli();
    return was;
}

static inline void floor_interrupts_restore(uint8_t was_masked)
{
    if (!was_masked)
        sei();
}

/* An interrupt handler's switch is the same call: its frame stays on the interrupted task's stack. */
#define FLOOR_HANDLER_SWITCHES_BY_CALL 1

static inline void floor_prepare_stack(ss_task *task, uint8_t *top, ss_task_fn fn, void *arg)
{
    uint16_t start = (uint16_t)(uintptr_t)floor_task_start; /* a word address, as call pushes */
    uint8_t *p = top - 1;
    *p-- = (uint8_t)start;        /* the return address: low byte above, */
    *p-- = (uint8_t)(start >> 8); /* high byte below, as call leaves it */
    uint8_t saved[18] = {0};      /* r2..r17, r28, r29 in push order */
    saved[0] = (uint8_t)(uintptr_t)fn;
    saved[1] = (uint8_t)((uintptr_t)fn >> 8);
    saved[2] = (uint8_t)(uintptr_t)arg;
    saved[3] = (uint8_t)((uintptr_t)arg >> 8);
    for (int i = 0; i < 18; i++)
        *p-- = saved[i];
    task->sp = (uintptr_t)p; /* the AVR's SP points below the last byte pushed */
}

static inline void floor_start_tick(void)
{
    /* the watchdog in interrupt mode, its shortest period (16 ms), as FreeRTOS's ATmega port ticks */
    WDTCSR = _BV(WDCE) | _BV(WDE);
    WDTCSR = _BV(WDIE);
}

#endif
