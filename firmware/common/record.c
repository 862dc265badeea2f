/*
 * COBS framing and CRC-8 for the record stream; see docs/wire-format.md.
 * Frames are encoded while they are sent, with no buffer: the smallest
 * targets give a task a stack of under 200 bytes.
 */
#include "switchscope/record.h"
#include "switchscope/board.h"

static uint8_t crc8_update(uint8_t crc, uint8_t byte)
{
    /* CRC-8, polynomial x^8 + x^2 + x + 1 (0x07), initial value 0, four bits
     * a step: the four bits shifted out, n, come back as n * (x^2 + x + 1),
     * which is below x^8 and so needs no table. */
    crc ^= byte;
    uint8_t high = crc >> 4;
    crc = (uint8_t)(crc << 4) ^ high ^ (uint8_t)(high << 1) ^ (uint8_t)(high << 2);
    high = crc >> 4;
    return (uint8_t)(crc << 4) ^ high ^ (uint8_t)(high << 1) ^ (uint8_t)(high << 2);
}

static void put(uint8_t byte) { board_write(&byte, 1); }

void record_send(const uint8_t *payload, size_t len)
{
    uint8_t crc = 0;
    for (size_t i = 0; i < len; i++)
        crc = crc8_update(crc, payload[i]);

    /* COBS over payload followed by crc: each run of non-zero bytes is sent
     * after a code byte giving its length + 1; the zero itself is dropped. */
    size_t total = len + 1;
#define BYTE_AT(i) ((i) < len ? payload[i] : crc)
    for (size_t start = 0; start <= total;) {
        size_t end = start;
        while (end < total && BYTE_AT(end) != 0)
            end++;
        put((uint8_t)(end - start + 1));
        for (size_t i = start; i < end; i++)
            put(BYTE_AT(i));
        start = end + 1;
    }
#undef BYTE_AT
    put(0);
}

/* Walks the characters of three texts as one, cut so that a record's
 * payload never exceeds RECORD_MAX_PAYLOAD. */
struct text_cursor {
    const char *const *parts;
    uint8_t ram_parts;
    int part;
    const char *at;
    size_t taken;
};

static void text_begin(struct text_cursor *t, const char *const parts[3], uint8_t ram_parts)
{
    t->parts = parts;
    t->ram_parts = ram_parts;
    t->part = 0;
    t->at = parts[0];
    t->taken = 0;
}

static int text_next(struct text_cursor *t, uint8_t *byte)
{
    while (t->part < 3) {
        if (t->at && t->taken < RECORD_MAX_PAYLOAD - 1) {
            char c = (t->ram_parts >> t->part) & 1 ? *t->at : BOARD_TEXT_BYTE(t->at);
            if (c) {
                *byte = (uint8_t)c;
                t->at++;
                t->taken++;
                return 1;
            }
        }
        if (++t->part < 3)
            t->at = t->parts[t->part];
    }
    return 0;
}

void record_send_text(uint8_t type, const char *const parts[3], uint8_t ram_parts)
{
    struct text_cursor text;
    uint8_t byte, crc = crc8_update(0, type);
    size_t len = 1;
    for (text_begin(&text, parts, ram_parts); text_next(&text, &byte); len++)
        crc = crc8_update(crc, byte);

    /* Type and text are never zero, so the only zero can be the CRC: one run
     * of non-zero bytes, ended by the CRC or by the zero CRC itself. */
    put((uint8_t)(crc ? len + 2 : len + 1));
    put(type);
    for (text_begin(&text, parts, ram_parts); text_next(&text, &byte);)
        put(byte);
    put(crc ? crc : 1);
    put(0);
}
