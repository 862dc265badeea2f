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
#include "switchscope/load.h"

#ifndef SWITCHSCOPE_METHOD_SCOPE
#define SWITCHSCOPE_METHOD_SCOPE 0
#endif
#ifndef SWITCHSCOPE_METHOD_MARKER
#define SWITCHSCOPE_METHOD_MARKER 0
#endif
#ifndef SWITCHSCOPE_PRINT_IN_WINDOW
#define SWITCHSCOPE_PRINT_IN_WINDOW 0
#endif

/*
 * Notes the address of the next instruction in an ELF section the host reads,
 * .debug_switchscope_<kind>: not loaded, so no instruction and no memory on
 * the target (a .debug name, because the AVR linker discards other
 * unreferenced sections). The simulator can then watch that address. Every
 * copy of it the compiler makes notes its own address.
 */
#define SS_MARK(kind)                                     \
    __asm__ volatile("1:\n\t"                              \
                     ".pushsection .debug_switchscope_" kind "\n\t" \
                     ".long 1b\n\t"                        \
                     ".popsection" ::: "memory")

struct probe_window {
    uint32_t start;       /* timer count read at the opening */
    uint32_t end;         /* timer count read at the closing */
    uint32_t tick_start;  /* kernel tick count before the opening */
    uint32_t tick_end;    /* kernel tick count after the closing */
    uint32_t tick_pulse;  /* the scope: kernel tick count before the bare pulse */
    uint32_t closed;      /* set by the closing, cleared by the opening: a sample
                             recorded before its window closed has a stale stamp */
    uint32_t wrapped;     /* the stamp timer wrapped between the two stamps: their
                             difference is then short by a multiple of its period */
#if SWITCHSCOPE_LOAD_VOIP
    uint32_t load_start;  /* the load's interrupts before the opening */
    uint32_t load_end;    /* and after the closing */
#endif
};

extern struct probe_window probe;

/* load=voip: the load's interrupt count, noted outside the window on both
 * sides as the tick count is; nothing in other builds. */
#if SWITCHSCOPE_LOAD_VOIP
#define PROBE_LOAD_OPEN() (probe.load_start = ss_load_interrupts)
#define PROBE_LOAD_CLOSE() (probe.load_end = ss_load_interrupts)
#else
#define PROBE_LOAD_OPEN() ((void)0)
#define PROBE_LOAD_CLOSE() ((void)0)
#endif

#if SWITCHSCOPE_METHOD_MARKER
/*
 * The marker method: nothing runs. Each macro only marks its place (SS_MARK:
 * .debug_switchscope_open, .debug_switchscope_close), and the simulator
 * counts from the instruction at the opening address (included) to the one at
 * the closing address (excluded).
 * With SWITCHSCOPE_PRINT_IN_WINDOW the resumed task also prints a trace line
 * inside the window, as a benchmark that prints from its tasks does.
 */
#define PROBE_MARK(kind) SS_MARK(kind)

#define PROBE_OPEN()                         \
    do {                                     \
        if (__builtin_expect(harness_cold_caches, 1)) board_empty_caches(); \
        PROBE_LOAD_OPEN();                   \
        probe.tick_start = ss_tick_count();  \
        probe.closed = 0;                    \
        PROBE_MARK("open");                  \
    } while (0)

#if SWITCHSCOPE_PRINT_IN_WINDOW
void harness_print_switch(void);
#define PROBE_CLOSE()                        \
    do {                                     \
        harness_print_switch();              \
        PROBE_MARK("close");                 \
        probe.tick_end = ss_tick_count();    \
        PROBE_LOAD_CLOSE();                  \
        probe.closed = 1;                    \
    } while (0)
#define PROBE_METHOD "print"
#else
#define PROBE_CLOSE()                        \
    do {                                     \
        PROBE_MARK("close");                 \
        probe.tick_end = ss_tick_count();    \
        PROBE_LOAD_CLOSE();                  \
        probe.closed = 1;                    \
    } while (0)
#define PROBE_METHOD "marker"
#endif

#elif SWITCHSCOPE_METHOD_SCOPE
/*
 * The scope method (embOS's oscilloscope measurement, done by the simulator):
 * the window is a pulse on the board's scope pin, high at the opening (C) and
 * low at the closing (D). The harness sends a bare pulse (A, B) before each
 * window; the host takes tCS = tCD - tAB from the simulator's record of the
 * pin. The sample records then carry no stamps.
 */
#define PROBE_OPEN()                         \
    do {                                     \
        if (__builtin_expect(harness_cold_caches, 1)) board_empty_caches(); \
        PROBE_LOAD_OPEN();                   \
        probe.tick_start = ss_tick_count();  \
        probe.closed = 0;                    \
        BOARD_SCOPE_HIGH();                  \
    } while (0)

#define PROBE_CLOSE()                        \
    do {                                     \
        BOARD_SCOPE_LOW();                   \
        probe.tick_end = ss_tick_count();    \
        PROBE_LOAD_CLOSE();                  \
        probe.closed = 1;                    \
    } while (0)

#define PROBE_METHOD "scope"
#endif

/* The scope's bare pulse (A, B), sent before each window: the tick count is
 * also read before it (tick_pulse), and the window flagged from there,
 * because a tick between A and B lengthens tAB as surely as one between C
 * and D lengthens tCD. (The opening still reads it too: the code around the
 * window stays as the other methods' is, to the cycle.) */
#if SWITCHSCOPE_METHOD_SCOPE
#define PROBE_SCOPE_BARE_PULSE()             \
    do {                                     \
        probe.tick_pulse = ss_tick_count();  \
        BOARD_SCOPE_HIGH();                  \
        BOARD_SCOPE_LOW();                   \
    } while (0)
#define PROBE_TICK_FIRST (probe.tick_pulse)
#else
#define PROBE_SCOPE_BARE_PULSE() ((void)0)
#define PROBE_TICK_FIRST (probe.tick_start)
#endif

#if !SWITCHSCOPE_METHOD_MARKER && !SWITCHSCOPE_METHOD_SCOPE /* the probe */
#define PROBE_OPEN()                         \
    do {                                     \
        if (__builtin_expect(harness_cold_caches, 1)) board_empty_caches(); \
        PROBE_LOAD_OPEN();                   \
        probe.tick_start = ss_tick_count();  \
        probe.closed = 0;                    \
        BOARD_STAMP_WRAP_CLEAR();            \
        BOARD_STAMP_TO(probe.start);         \
    } while (0)

#define PROBE_CLOSE()                        \
    do {                                     \
        BOARD_STAMP_TO(probe.end);           \
        probe.wrapped = BOARD_STAMP_WRAPPED(); \
        probe.tick_end = ss_tick_count();    \
        PROBE_LOAD_CLOSE();                  \
        probe.closed = 1;                    \
    } while (0)

#define PROBE_METHOD "probe"
#endif

#endif
