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
#define SS_MARK_CODE(kind)                                   \
    "1:\n\t"                                                 \
    ".pushsection .debug_switchscope_" kind "\n\t"           \
    ".long 1b\n\t"                                           \
    ".popsection\n\t"
#define SS_MARK(kind) __asm__ volatile(SS_MARK_CODE(kind) ::: "memory")

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

/*
 * A window's opening and closing points. Each method has its own build, and
 * with fetches in lines (Ibex's aligned words, a flash's lines) where code
 * sits changes what a window costs: so at each point every method's code is
 * one asm statement of one size (the board's stamp's) with the board's
 * clobbers (BOARD_POINT_CLOBBERS), its code filled out to that size
 * (BOARD_POINT_FILL), and every other byte of every method's build is the
 * same. The fill lies outside the window: before the code at an opening,
 * after it at a closing. The C around the points is the same in every method:
 * outside the window, so no method's figure pays for it.
 */
#define SS_TEXT_OF_(x) #x
#define SS_TEXT_OF(x) SS_TEXT_OF_(x)
#ifndef BOARD_POINT_INPUTS
#define BOARD_POINT_INPUTS /* what a board's points read besides [to], the uint32_t a stamp stores into */
#endif
#define PROBE_POINT_(code, dest) \
    __asm__ volatile(BOARD_POINT(code) : : [to] "i"(&(dest)) BOARD_POINT_INPUTS : BOARD_POINT_CLOBBERS)
/* a point of `bytes` (a string) of code: filled before it at an opening, after it at a closing */
#define PROBE_OPENING_(bytes, code, dest) PROBE_POINT_(BOARD_POINT_FILL(bytes) code, dest)
#define PROBE_CLOSING_(bytes, code, dest) PROBE_POINT_(code BOARD_POINT_FILL(bytes), dest)
/* a point where the method has nothing to do: the fill alone */
#define PROBE_NOTHING_(dest) PROBE_OPENING_("0", "", dest)

#if SWITCHSCOPE_METHOD_MARKER
/*
 * The marker method: nothing runs. Each point only marks its place
 * (.debug_switchscope_open, .debug_switchscope_close), and the simulator
 * counts from the instruction at the opening address (included) to the one at
 * the closing address (excluded).
 */
#define PROBE_OPENING(dest) PROBE_OPENING_("0", SS_MARK_CODE("open"), dest)
#define PROBE_CLOSING(dest) PROBE_CLOSING_("0", SS_MARK_CODE("close"), dest)
#elif SWITCHSCOPE_METHOD_SCOPE
/*
 * The scope method (embOS's oscilloscope measurement, done by the simulator):
 * the window is a pulse on the board's scope pin, high at the opening (C) and
 * low at the closing (D). The harness sends a bare pulse (A, B) before each
 * window; the host takes tCS = tCD - tAB from the simulator's record of the
 * pin. The sample records then carry no stamps.
 */
#define PROBE_OPENING(dest) PROBE_OPENING_(SS_TEXT_OF(BOARD_SCOPE_HIGH_BYTES), BOARD_SCOPE_HIGH_CODE, dest)
#define PROBE_CLOSING(dest) PROBE_CLOSING_(SS_TEXT_OF(BOARD_SCOPE_LOW_BYTES), BOARD_SCOPE_LOW_CODE, dest)
#else
/* The probe: a stamp (BOARD_STAMP_CODE) is a whole point. */
#define PROBE_OPENING(dest) PROBE_POINT_(BOARD_STAMP_CODE, dest)
#define PROBE_CLOSING(dest) PROBE_POINT_(BOARD_STAMP_CODE, dest)
#endif

/* On a board whose code is fetched in units that wait (a cache's lines,
 * a slow RAM's words), where a unit starts near a point decides which method
 * pays its wait: the probe reads at its counter read, the scope at its store
 * and the marker at its mark, each a few bytes apart in the point. So such a
 * board places its points (board_config.h): BOARD_OPENING_ALIGN before each
 * opening, whose padding runs before the window, so that the point and the
 * window's first instruction lie as in the calibration's pair;
 * BOARD_CLOSING_ALIGN before each closing, so that no unit starts between
 * the point's first instruction and its reading. The closing's padding (a
 * nop or none) lies inside the window: every method's build runs the same,
 * so the methods agree on it. */
#ifdef BOARD_OPENING_ALIGN
#define PROBE_ALIGNED_POINT_(align, point, dest)                        \
    do {                                                                \
        __asm__ volatile(align ::: "memory");                           \
        point(dest);                                                    \
    } while (0)
#define PROBE_ALIGNED_OPENING_(point, dest) PROBE_ALIGNED_POINT_(BOARD_OPENING_ALIGN, point, dest)
#define PROBE_ALIGNED_CLOSING_(point, dest) PROBE_ALIGNED_POINT_(BOARD_CLOSING_ALIGN, point, dest)
#else
#define PROBE_ALIGNED_OPENING_(point, dest) point(dest)
#define PROBE_ALIGNED_CLOSING_(point, dest) point(dest)
#endif

/* Every method's opening, and the calibration's, in one shape. With cache=cold
 * (harness_cold_caches) the board first empties its flash caches, before the
 * window; the call is laid in line (expected taken) so that the code around
 * the point keeps its branch forms in every build. */
#define PROBE_OPEN_AT_(point)                \
    do {                                     \
        if (__builtin_expect(harness_cold_caches, 1)) board_empty_caches(); \
        PROBE_LOAD_OPEN();                   \
        probe.tick_start = ss_tick_count();  \
        probe.closed = 0;                    \
        BOARD_STAMP_WRAP_CLEAR();            \
        PROBE_ALIGNED_OPENING_(point, probe.start); \
    } while (0)

#define PROBE_CLOSE_AT_(point)               \
    do {                                     \
        PROBE_ALIGNED_CLOSING_(point, probe.end); \
        probe.wrapped = BOARD_STAMP_WRAPPED(); \
        probe.tick_end = ss_tick_count();    \
        PROBE_LOAD_CLOSE();                  \
        probe.closed = 1;                    \
    } while (0)

#define PROBE_OPEN() PROBE_OPEN_AT_(PROBE_OPENING)
/*
 * With SWITCHSCOPE_PRINT_IN_WINDOW (the marker's "print" build) the resumed
 * task also prints a trace line inside the window, as a benchmark that prints
 * from its tasks does.
 */
#if SWITCHSCOPE_PRINT_IN_WINDOW
void harness_print_switch(void);
#define PROBE_CLOSE()                        \
    do {                                     \
        harness_print_switch();              \
        PROBE_CLOSE_AT_(PROBE_CLOSING);      \
    } while (0)
#else
#define PROBE_CLOSE() PROBE_CLOSE_AT_(PROBE_CLOSING)
#endif

/* The probe's calibration (harness_begin): its opening at once followed by
 * its closing; in the other methods' builds the same code with their points
 * filled, which the harness never runs. */
#if !SWITCHSCOPE_METHOD_MARKER && !SWITCHSCOPE_METHOD_SCOPE
#define PROBE_CALIBRATION_OPEN() PROBE_OPEN()
#define PROBE_CALIBRATION_CLOSE() PROBE_CLOSE()
#define PROBE_CALIBRATES 1
#else
#define PROBE_CALIBRATION_OPEN() PROBE_OPEN_AT_(PROBE_NOTHING_)
#define PROBE_CALIBRATION_CLOSE() PROBE_CLOSE_AT_(PROBE_NOTHING_)
#define PROBE_CALIBRATES 0
#endif

#if SWITCHSCOPE_METHOD_MARKER && SWITCHSCOPE_PRINT_IN_WINDOW
#define PROBE_METHOD "print"
#elif SWITCHSCOPE_METHOD_MARKER
#define PROBE_METHOD "marker"
#elif SWITCHSCOPE_METHOD_SCOPE
#define PROBE_METHOD "scope"
#else
#define PROBE_METHOD "probe"
#endif

/* The scope's bare pulse (A, B), sent before each window: the tick count is
 * also read before it (tick_pulse), and the window flagged from there,
 * because a tick between A and B lengthens tAB as surely as one between C
 * and D lengthens tCD. (The opening still reads it too: the code around the
 * window stays as the other methods' is, to the cycle.) The other methods'
 * builds run the same code with their points filled, outside the window. */
#if SWITCHSCOPE_METHOD_SCOPE
#define PROBE_TICK_FIRST (probe.tick_pulse)
#define PROBE_BARE_OPENING(dest) PROBE_OPENING(dest)
#define PROBE_BARE_CLOSING(dest) PROBE_CLOSING(dest)
#else
#define PROBE_TICK_FIRST (probe.tick_start)
#define PROBE_BARE_OPENING(dest) PROBE_NOTHING_(dest)
#define PROBE_BARE_CLOSING(dest) PROBE_NOTHING_(dest)
#endif
#define PROBE_SCOPE_BARE_PULSE()                              \
    do {                                                      \
        probe.tick_pulse = ss_tick_count();                   \
        PROBE_ALIGNED_OPENING_(PROBE_BARE_OPENING, probe.start); \
        PROBE_ALIGNED_CLOSING_(PROBE_BARE_CLOSING, probe.end); \
    } while (0)

#endif
