/*
 * What a board supplies: output, parameters from the host, the stamp timer,
 * a software-triggered interrupt and a way to end the run.
 */
#ifndef SWITCHSCOPE_BOARD_H
#define SWITCHSCOPE_BOARD_H

#include <stddef.h>
#include <stdint.h>

void board_init(void);

/* Write bytes to the host link (UART); blocks until queued. A board may hold
 * them back to send them in batches (the QEMU boards do): board_flush() sends
 * what it holds; the harness calls it where it waits, after a text record,
 * and before the run ends. */
void board_write(const uint8_t *data, size_t len);
void board_flush(void);

/* The run parameters the host passed ("samples=1000 ..."), or "" if none. */
const char *board_parameters(void);

/* The stamp timer: its current count, its modulus (the count wraps to 0
 * after modulus-1 when counting up, or to modulus-1 after 0 counting down),
 * its direction and its input clock. BOARD_STAMP_TO(dest) is defined by
 * board_config.h as a fixed register read so that the probe costs as little as it can. */
uint32_t board_stamp_modulus(void);
/* The stamp timer's count, read by a plain call: the harness paces its windows
 * with it, outside them. Not the probe's instruction sequence, so that a
 * simulator logging the probe's reads does not see these. */
uint32_t board_stamp_now(void);
int board_stamp_counts_down(void);
uint32_t board_stamp_clock_hz(void);

/* Pend the software interrupt whose handler is switchscope_soft_irq(). */
void board_soft_irq_pend(void);

/* The scenario's handler for the software interrupt (weak default: a fault). */
void switchscope_soft_irq(void);

/*
 * The latency timer (the irq-latency scenarios; a board that has one says so
 * in board.toml, [latency_timer]): a peripheral timer, one-shot, whose expiry
 * asserts the interrupt whose handler is switchscope_latency_irq(). _arm
 * makes it expire `counts` counts of its clock after the instruction that
 * starts it, at the priority the build asks for (SWITCHSCOPE_IRQ_PRIORITY_HIGH:
 * above every level a kernel masks; otherwise the software interrupt's, which
 * the kernel masks in its critical sections); _stop, from the handler, clears
 * the interrupt and stops the timer.
 */
void board_latency_timer_arm(uint32_t counts);
void board_latency_timer_stop(void);
void switchscope_latency_irq(void);
/* The probe's two stamps of an interrupt's latency, in the timer's counts:
 * the count at which the armed timer expires, and the count the board's entry
 * code (the first the interrupt runs, before switchscope_latency_irq) read,
 * a fixed number of instructions in ([latency_timer] read_offset). */
extern uint32_t board_latency_expiry;
extern volatile uint32_t board_latency_read;
/* Latency-timer counts until the kernel's tick next asserts its interrupt,
 * for the sweep's tick round; 0 where the board cannot tell. */
uint32_t board_latency_counts_to_tick(void);

/* Empty the caches in front of the board's code memory (a flash accelerator's
 * instruction and data caches), so that the next window fetches its code and
 * its literals as after an eviction: the worst case a hard real-time
 * application meets. The run parameter cold=1 sets harness_cold_caches, and
 * every method's PROBE_OPEN() then calls this first, outside the window. A
 * board without such caches leaves it to the weak default, which does nothing.
 * PROBE_OPEN() tests the flag as if it were set (__builtin_expect): GCC would
 * otherwise lay the call out of line, after the window's code, and a short
 * branch to it across a long window (the ruler's 1000 no-ops, whose length
 * GCC cannot see) would not reach. */
void board_empty_caches(void);
extern uint32_t harness_cold_caches;

/* Called by the kernel's idle task: may sleep until the next interrupt, so
 * that a simulator can skip ahead. */
void board_idle(void);

/* Stop the machine; 0 means the run completed. Never returns. */
void board_exit(int code) __attribute__((noreturn));

/* Identify the board (name, cpu, clock) to the host as key=value pairs. */
void board_describe(void (*emit)(const char *key, const char *value));

#include "board_config.h"

/*
 * Constant texts (names, messages) live where the board keeps them cheapest:
 * in flash on targets whose flash is not in the data address space.
 * SS_TEXT("...") makes one, SS_TEXT_STORAGE places a named array of one, and
 * BOARD_TEXT_BYTE(p) reads a character of one. A board that needs nothing
 * special leaves them undefined.
 */
#ifndef SS_TEXT
#define SS_TEXT(literal) (literal)
#define SS_TEXT_STORAGE
#define BOARD_TEXT_BYTE(p) (*(p))
#endif

#endif
