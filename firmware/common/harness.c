/*
 * The scenario harness: reads the run parameters, sends the description of the
 * build, calibrates the probe, streams samples and ends the run. All the
 * arithmetic on samples (wrap, overhead, units, statistics) is the host's.
 */
#include <string.h>
#include "switchscope/harness.h"
#include "switchscope/load.h"
#include "switchscope/record.h"

#define DEFAULT_SAMPLES 1000
#define CALIBRATION_PAIRS 8

struct probe_window probe;
static uint32_t samples_requested = DEFAULT_SAMPLES;
static uint32_t stamp_modulus;
static int stamp_counts_down;
static int full_records; /* stamps of another timer than the stamp timer: no compact records */

static void put_u32(uint8_t *at, uint32_t value)
{
    at[0] = (uint8_t)value;
    at[1] = (uint8_t)(value >> 8);
    at[2] = (uint8_t)(value >> 16);
    at[3] = (uint8_t)(value >> 24);
}

static void send_text(uint8_t type, const char *a, const char *b, const char *c, uint8_t ram_parts)
{
    const char *parts[3] = {a, b, c};
    record_send_text(type, parts, ram_parts);
}

/* The method: its name, and whether it stamps a timer (the harness calibrates it, and its timer may wrap
 * inside a window), of one size in every method's build (probe.h: one layout) */
static const struct {
    char name[7];
    char stamps;
} method SS_TEXT_STORAGE = {PROBE_METHOD, PROBE_CALIBRATES};

/* Whether the method stamps a timer, read as the compiler cannot foresee: every method's build has the code
 * that asks (one layout) */
static int method_stamps(void)
{
    return BOARD_TEXT_BYTE((const volatile char *)&method.stamps);
}

static void emit_meta(const char *key, const char *value)
{
    send_text(RECORD_META, key, SS_TEXT("="), value, 0);
}

/* A META record whose value is a number, formatted into RAM. */
static void emit_meta_number(const char *key, uint32_t value)
{
    char digits[11];
    char *p = digits + sizeof digits;
    *--p = '\0';
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    send_text(RECORD_META, key, SS_TEXT("="), p, 1 << 2);
}

static const char *parameters = "";

#ifndef BOARD_CACHES_CODE
#define BOARD_CACHES_CODE 0 /* a board with caches in front of its code says so (board_config.h) */
#endif
uint32_t harness_cold_caches; /* run parameter cold=1: PROBE_OPEN() empties the caches before each window */

/* A board whose code memory has no cache to empty (board.h). */
__attribute__((weak)) void board_empty_caches(void) {}

uint32_t harness_samples(void) { return samples_requested; }

uint32_t harness_parameter(const char *name, uint32_t fallback)
{
    size_t len = strlen(name);
    for (const char *p = parameters; (p = strstr(p, name)) != 0; p += len) {
        if ((p != parameters && p[-1] != ' ') || p[len] != '=')
            continue;
        uint32_t value = 0;
        const char *digit = p + len + 1;
        if (*digit < '0' || *digit > '9')
            return fallback;
        for (; *digit >= '0' && *digit <= '9'; digit++)
            value = value * 10 + (uint32_t)(*digit - '0');
        return value;
    }
    return fallback;
}

void harness_log(const char *text)
{
    send_text(RECORD_LOG, text, 0, 0, 0);
    board_flush(); /* a log is what a run that never ends shows last */
}

void harness_describe(const char *key, uint32_t value) { emit_meta_number(key, value); }

#if SWITCHSCOPE_PRINT_IN_WINDOW
/* What a benchmark that prints from its tasks does at every switch (the
 * in-target framework of the seeds prints "[BENCH.CONTEXT.SWITCHING] %lu %lu
 * %lu"): format the tick count and send a line, here as a LOG record. */
void harness_print_switch(void)
{
    char digits[11];
    char *p = digits + sizeof digits;
    uint32_t value = ss_tick_count();
    *--p = '\0';
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    send_text(RECORD_LOG, SS_TEXT("[BENCH.CONTEXT.SWITCHING] tick "), p, 0, 1 << 1);
}
#endif

/* Stamp counts from `earlier` to `later`, across one wrap of the timer. */
static uint32_t counts_between(uint32_t earlier, uint32_t later)
{
    uint32_t counts = stamp_counts_down ? earlier - later : later - earlier;
    if (stamp_modulus != 0 && counts >= stamp_modulus) /* 0: the timer wraps at 2^32 */
        counts += stamp_modulus;
    return counts;
}

void harness_begin(void)
{
    stamp_modulus = board_stamp_modulus();
    stamp_counts_down = board_stamp_counts_down();
    emit_meta_number(SS_TEXT("stamp_modulus"), stamp_modulus);
    emit_meta(SS_TEXT("stamp_direction"), stamp_counts_down ? SS_TEXT("down") : SS_TEXT("up"));
    emit_meta_number(SS_TEXT("stamp_clock_hz"), board_stamp_clock_hz());

    /* the scope calibrates with a bare pulse per window; markers cost nothing. Every method's build has
     * the loop (probe.h: one layout), and runs it where the method stamps; on a board with caches, every
     * method's build runs it, its points empty where the method does not stamp: the tasks then stand where
     * the probe's ticks leave them, and a window restores a context from the same stack lines in each build */
    int calibrates = method_stamps();
    for (int i = 0; (BOARD_CACHES_CODE || calibrates) && i < CALIBRATION_PAIRS; i++) {
        ss_wait_next_tick();
        PROBE_CALIBRATION_OPEN();
        PROBE_CALIBRATION_CLOSE();
        if (!BOARD_CACHES_CODE || calibrates) {
            uint8_t payload[9] = {RECORD_CALIB};
            put_u32(payload + 1, probe.start);
            put_u32(payload + 5, probe.end);
            record_send(payload, sizeof payload);
        }
    }
#if SWITCHSCOPE_LOAD_VOIP
    load_start(); /* calibrated without it */
#endif
#if BOARD_CACHES_CODE
    /* every method's build from here on the same instructions: from empty caches, its first window finds them as
     * every other method's does (the probe's calibration, which the others' builds skip, leaves its own lines) */
    board_empty_caches();
#endif
}

void harness_record(uint32_t seq, uint16_t tag)
{
    static uint32_t next_seq;
    static uint16_t last_tag;
    uint8_t flags = PROBE_TICK_FIRST != probe.tick_end ? SAMPLE_TICK_IN_WINDOW : 0;
    if (!probe.closed)
        flags |= SAMPLE_NOT_CLOSED;
    if (probe.wrapped && method_stamps()) /* every method's build reads the flag; only stamps can wrap */
        flags |= SAMPLE_STAMP_WRAPPED;
#if SWITCHSCOPE_LOAD_VOIP
    if (probe.load_start != probe.load_end)
        flags |= SAMPLE_LOAD_IN_WINDOW;
#endif
    uint32_t length = counts_between(probe.start, probe.end);
    int ordinary = !full_records && flags == 0 && tag == last_tag && seq == next_seq && (seq & 0xFF) != 0 && length <= 0xFFFF;
    next_seq = seq + 1;
    last_tag = tag;
    if (ordinary) { /* the compact record; every 256th sample and anything unusual goes in full */
        uint8_t compact[4] = {RECORD_SAMPLE_COMPACT, (uint8_t)seq, (uint8_t)length, (uint8_t)(length >> 8)};
        record_send(compact, sizeof compact);
        return;
    }
    uint8_t payload[16] = {RECORD_SAMPLE};
    put_u32(payload + 1, seq);
    put_u32(payload + 5, probe.start);
    put_u32(payload + 9, probe.end);
    payload[13] = (uint8_t)tag;
    payload[14] = (uint8_t)(tag >> 8);
    payload[15] = flags;
    record_send(payload, sizeof payload);
}

void harness_full_records(void) { full_records = 1; }

static void pace_describe(void);

void harness_end(uint32_t samples_sent)
{
    pace_describe();
    uint8_t payload[5] = {RECORD_END};
    put_u32(payload + 1, samples_sent);
    record_send(payload, sizeof payload);
    board_exit(0);
}

/*
 * Pacing. Neither a window nor the work between two windows may see the
 * kernel tick: a tick between them can hand the processor to another task of
 * the measuring task's priority and upset the scenario's order of switches.
 * Waiting for the tick before each window (run parameter per_tick=1) makes
 * sure of it at the cost of a tick period per sample. By default the harness
 * starts the next window at once while the time left before the next tick is
 * more than twice the longest iteration (window, record, loop) seen so far,
 * with an eighth of the tick period to spare, and waits for the tick
 * otherwise. The tick period is measured once, in stamp counts, because the
 * kernel's tick need not come from the stamp timer (the ATmega328P's comes
 * from the watchdog). The first window always follows a tick.
 */
static struct {
    int per_tick;
    uint32_t tick_period; /* stamp counts */
    uint32_t since_tick;  /* stamp counts from the last tick to `stamp` */
    uint32_t stamp;       /* the stamp timer at the last check */
    uint32_t tick;        /* the kernel tick count at the last check */
    uint32_t longest;     /* the longest iteration without a tick */
    uint32_t waits;       /* windows that waited for a tick */
} pace;

static void pace_after_tick(void)
{
    pace.tick = ss_tick_count();
    pace.stamp = board_stamp_now();
    pace.since_tick = 0;
}

/* Polls through one whole tick period: a few hundred thousand cycles at most, once. */
static void pace_measure_tick_period(void)
{
    ss_wait_next_tick();
    pace_after_tick();
    while (ss_tick_count() == pace.tick) {
        uint32_t now = board_stamp_now();
        pace.since_tick += counts_between(pace.stamp, now);
        pace.stamp = now;
    }
    pace.tick_period = pace.since_tick;
}

/* Returns once the next window and its record fit before the next tick. */
static void pace_next_window(uint32_t seq)
{
    uint32_t now = board_stamp_now();
    uint32_t tick = ss_tick_count();
    if (!pace.per_tick && seq > 0 && tick == pace.tick) {
        uint32_t iteration = counts_between(pace.stamp, now);
        if (iteration > pace.longest)
            pace.longest = iteration;
        pace.since_tick += iteration;
        pace.stamp = now;
        uint32_t usable = pace.tick_period - pace.tick_period / 8;
        if (pace.since_tick < usable && 2 * pace.longest < usable - pace.since_tick)
            return;
    }
    board_flush(); /* the time waited for the tick is free */
    ss_wait_next_tick();
    pace_after_tick();
    pace.waits++;
}

/* How the windows were paced, for the host: how many waited for a tick. */
static void pace_describe(void)
{
    emit_meta_number(SS_TEXT("tick_waits"), pace.waits);
    emit_meta_number(SS_TEXT("tick_period_counts"), pace.tick_period);
}

void harness_run(uint16_t (*window)(uint32_t seq))
{
    harness_begin();
    pace.per_tick = harness_parameter("per_tick", 0) != 0;
    if (!pace.per_tick)
        pace_measure_tick_period();
    for (uint32_t seq = 0; seq < samples_requested; seq++) {
        pace_next_window(seq);
        PROBE_SCOPE_BARE_PULSE(); /* A, B */
        harness_record(seq, window(seq));
    }
    harness_end(samples_requested);
}

int main(void)
{
    board_init();
    const uint8_t hello[2] = {RECORD_HELLO, RECORD_PROTOCOL_VERSION};
    record_send(hello, sizeof hello);
    parameters = board_parameters();
    samples_requested = harness_parameter("samples", DEFAULT_SAMPLES);
    if (samples_requested == 0)
        samples_requested = DEFAULT_SAMPLES;
    harness_cold_caches = harness_parameter("cold", 0) != 0;
    board_describe(emit_meta);
    ss_kernel_describe(emit_meta);
    emit_meta(SS_TEXT("scenario"), scenario.name);
    emit_meta(SS_TEXT("method"), method.name);
    emit_meta_number(SS_TEXT("samples"), samples_requested);
    if (harness_cold_caches) /* said only when asked, so that every other stream stays as it was */
        emit_meta_number(SS_TEXT("cold_caches"), harness_cold_caches);
    scenario.setup();
#if SWITCHSCOPE_LOAD_VOIP
    load_describe(emit_meta, emit_meta_number);
    load_setup();
#endif
    ss_kernel_start();
    harness_fail(SS_TEXT("kernel start returned"));
}
