/*
 * The timer probe. A window opens with PROBE_OPEN() immediately before the
 * call that causes a switch and closes with PROBE_CLOSE() immediately after the
 * other task resumes. Each stamp is a fixed instruction sequence supplied by the
 * board (BOARD_STAMP_TO); calibration times PROBE_OPEN() followed at once by
 * PROBE_CLOSE(), the very same instructions, so the host can subtract exactly
 * what the probe itself adds. The kernel tick count is read outside the
 * window on both sides, to flag windows the tick interrupt fell into.
 */
#ifndef SWITCHSCOPE_PROBE_H
#define SWITCHSCOPE_PROBE_H

#include <stdint.h>
#include "switchscope/board.h"
#include "switchscope/kernel.h"

#ifndef SWITCHSCOPE_METHOD_SCOPE
#define SWITCHSCOPE_METHOD_SCOPE 0
#endif

struct probe_window {
    uint32_t start;       /* timer count read at the opening */
    uint32_t end;         /* timer count read at the closing */
    uint32_t tick_start;  /* kernel tick count before the opening */
    uint32_t tick_end;    /* kernel tick count after the closing */
};

extern struct probe_window probe;

#if SWITCHSCOPE_METHOD_SCOPE
/*
 * The scope method (embOS's oscilloscope measurement, done by the simulator):
 * the window is a pulse on the board's scope pin, high at the opening (C) and
 * low at the closing (D). The harness sends a bare pulse (A, B) before each
 * window; the host takes tCS = tCD - tAB from the simulator's record of the
 * pin. The sample records then carry no stamps.
 */
#define PROBE_OPEN()                         \
    do {                                     \
        probe.tick_start = ss_tick_count();  \
        BOARD_SCOPE_HIGH();                  \
    } while (0)

#define PROBE_CLOSE()                        \
    do {                                     \
        BOARD_SCOPE_LOW();                   \
        probe.tick_end = ss_tick_count();    \
    } while (0)

#define PROBE_METHOD "scope"
#else
#define PROBE_OPEN()                         \
    do {                                     \
        probe.tick_start = ss_tick_count();  \
        BOARD_STAMP_TO(probe.start);         \
    } while (0)

#define PROBE_CLOSE()                        \
    do {                                     \
        BOARD_STAMP_TO(probe.end);           \
        probe.tick_end = ss_tick_count();    \
    } while (0)

#define PROBE_METHOD "probe"
#endif

#endif
