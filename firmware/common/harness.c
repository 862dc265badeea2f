/*
 * The scenario harness: reads the run parameters, sends the description of the
 * build, calibrates the probe, streams samples and ends the run. All the
 * arithmetic on samples (wrap, overhead, units, statistics) is the host's.
 */
#include <string.h>
#include "switchscope/harness.h"
#include "switchscope/record.h"

#define DEFAULT_SAMPLES 1000
#define CALIBRATION_PAIRS 8

struct probe_window probe;
static uint32_t samples_requested = DEFAULT_SAMPLES;

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

void harness_log(const char *text) { send_text(RECORD_LOG, text, 0, 0, 0); }

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

void harness_begin(void)
{
    emit_meta_number(SS_TEXT("stamp_modulus"), board_stamp_modulus());
    emit_meta(SS_TEXT("stamp_direction"), board_stamp_counts_down() ? SS_TEXT("down") : SS_TEXT("up"));
    emit_meta_number(SS_TEXT("stamp_clock_hz"), board_stamp_clock_hz());

    if (SWITCHSCOPE_METHOD_SCOPE || SWITCHSCOPE_METHOD_MARKER)
        return; /* the scope calibrates with a bare pulse per window; markers cost nothing */
    for (int i = 0; i < CALIBRATION_PAIRS; i++) {
        ss_wait_next_tick();
        PROBE_OPEN();
        PROBE_CLOSE();
        uint8_t payload[9] = {RECORD_CALIB};
        put_u32(payload + 1, probe.start);
        put_u32(payload + 5, probe.end);
        record_send(payload, sizeof payload);
    }
}

void harness_record(uint32_t seq, uint16_t tag)
{
    uint8_t payload[16] = {RECORD_SAMPLE};
    uint8_t flags = probe.tick_start != probe.tick_end ? SAMPLE_TICK_IN_WINDOW : 0;
    if (!probe.closed)
        flags |= SAMPLE_NOT_CLOSED;
    put_u32(payload + 1, seq);
    put_u32(payload + 5, probe.start);
    put_u32(payload + 9, probe.end);
    payload[13] = (uint8_t)tag;
    payload[14] = (uint8_t)(tag >> 8);
    payload[15] = flags;
    record_send(payload, sizeof payload);
}

void harness_end(uint32_t samples_sent)
{
    uint8_t payload[5] = {RECORD_END};
    put_u32(payload + 1, samples_sent);
    record_send(payload, sizeof payload);
    board_exit(0);
}

void harness_run(uint16_t (*window)(uint32_t seq))
{
    harness_begin();
    for (uint32_t seq = 0; seq < samples_requested; seq++) {
        ss_wait_next_tick();
        if (SWITCHSCOPE_METHOD_SCOPE) {
            BOARD_SCOPE_HIGH(); /* A */
            BOARD_SCOPE_LOW();  /* B */
        }
        harness_record(seq, window(seq));
    }
    harness_end(samples_requested);
}

void harness_fail(const char *reason)
{
    send_text(RECORD_FAULT, reason, 0, 0, 0);
    board_exit(3);
}

void harness_fail_formatted(const char *reason)
{
    send_text(RECORD_FAULT, 0, 0, reason, 1 << 2);
    board_exit(3);
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
    board_describe(emit_meta);
    ss_kernel_describe(emit_meta);
    emit_meta(SS_TEXT("scenario"), scenario.name);
    emit_meta(SS_TEXT("method"), SS_TEXT(PROBE_METHOD));
    emit_meta_number(SS_TEXT("samples"), samples_requested);
    scenario.setup();
    ss_kernel_start();
    harness_fail(SS_TEXT("kernel start returned"));
}
