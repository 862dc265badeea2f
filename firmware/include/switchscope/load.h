/*
 * A load beside the measured tasks (--config load=voip): a peripheral timer,
 * not the kernel tick, interrupts every SWITCHSCOPE_LOAD_PERIOD_US and its
 * handler puts one audio sample into a frame; each full frame wakes one of
 * SWITCHSCOPE_LOAD_TASKS encoding tasks, which encodes it with G.711 mu-law.
 * The Cortex-M3 study's loaded application, in a few lines (load_voip.c).
 *
 * The handler counts its interrupts; the probe notes the count on both sides
 * of a window, and a window an interrupt fell into is kept and flagged
 * interfered (SAMPLE_LOAD_IN_WINDOW), unlike one the tick fell into.
 */
#ifndef SWITCHSCOPE_LOAD_H
#define SWITCHSCOPE_LOAD_H

#include <stdint.h>
#include "switchscope/config_value.h"

#ifndef SWITCHSCOPE_LOAD
#define SWITCHSCOPE_LOAD none
#endif
#define LOAD_IS_none 0
#define LOAD_IS_voip 1
#define SWITCHSCOPE_LOAD_VOIP SWITCHSCOPE_IS(LOAD_IS_, SWITCHSCOPE_LOAD)

#ifndef SWITCHSCOPE_LOAD_PERIOD_US
#define SWITCHSCOPE_LOAD_PERIOD_US 125 /* one sample at 8 kHz, G.711's rate */
#endif
#ifndef SWITCHSCOPE_LOAD_TASKS
#define SWITCHSCOPE_LOAD_TASKS 1
#endif

extern volatile uint32_t ss_load_interrupts; /* the load timer's interrupts so far */

/* Called only with load=voip, so that other builds stay as they were. */
void load_setup(void); /* before the kernel starts: the encoding tasks */
void load_start(void); /* once calibrated: the timer */
/* The load's options as key=value pairs: emit for a text, emit_number for a number. */
void load_describe(void (*emit)(const char *key, const char *value),
                   void (*emit_number)(const char *key, uint32_t value));

/* The board's load timer (board_config.h names its BOARD_LOAD_IRQ_NUMBER). */
void board_load_timer_start(uint32_t period_us);
void board_load_timer_acknowledge(void);

#endif
