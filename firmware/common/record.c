/* COBS framing and CRC-8 for the record stream; see docs/wire-format.md. */
#include "switchscope/record.h"
#include "switchscope/board.h"

/* CRC-8, polynomial 0x07, initial value 0: small and enough to catch a
 * corrupted byte in a record of a few dozen bytes. */
static uint8_t crc8(const uint8_t *data, size_t len)
{
    uint8_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 0x80) ? (uint8_t)((crc << 1) ^ 0x07) : (uint8_t)(crc << 1);
    }
    return crc;
}

void record_send(const uint8_t *payload, size_t len)
{
    uint8_t raw[RECORD_MAX_PAYLOAD + 1];
    uint8_t frame[RECORD_MAX_PAYLOAD + 4];
    if (len > RECORD_MAX_PAYLOAD)
        len = RECORD_MAX_PAYLOAD;
    for (size_t i = 0; i < len; i++)
        raw[i] = payload[i];
    raw[len] = crc8(payload, len);
    len++;

    /* COBS: each zero is replaced by the distance to the next one. */
    size_t out = 1, code_at = 0;
    uint8_t code = 1;
    for (size_t i = 0; i < len; i++) {
        if (raw[i] == 0) {
            frame[code_at] = code;
            code_at = out++;
            code = 1;
        } else {
            frame[out++] = raw[i];
            code++;
        }
    }
    frame[code_at] = code;
    frame[out++] = 0;
    board_write(frame, out);
}
