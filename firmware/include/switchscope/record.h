/*
 * The wire format from target to host (docs/wire-format.md): every record is
 * a type byte, little-endian fields and a CRC-8, COBS-encoded and ended by a
 * zero byte, so the host finds record boundaries even after garbage.
 */
#ifndef SWITCHSCOPE_RECORD_H
#define SWITCHSCOPE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define RECORD_PROTOCOL_VERSION 2

enum record_type {
    RECORD_HELLO = 0x01,  /* u8 protocol version */
    RECORD_META = 0x02,   /* text "key=value" */
    RECORD_CALIB = 0x03,  /* u32 start, u32 end: back-to-back probe */
    RECORD_SAMPLE = 0x10, /* u32 seq, u32 start, u32 end, u16 tag, u8 flags */
    RECORD_SAMPLE_COMPACT = 0x11, /* u8 seq (low byte), u16 length: flags 0, the last tag */
    RECORD_LOG = 0x20,    /* text */
    RECORD_FAULT = 0x7E,  /* text */
    RECORD_END = 0x7F,    /* u32 samples sent */
};

enum sample_flags {
    SAMPLE_TICK_IN_WINDOW = 0x01, /* the kernel tick fired inside the window */
    SAMPLE_NOT_CLOSED = 0x02,     /* recorded before the other task closed the window */
    SAMPLE_STAMP_WRAPPED = 0x04,  /* the stamp timer wrapped inside the window: its length is unknown */
    SAMPLE_LOAD_IN_WINDOW = 0x08, /* load=voip: the load's interrupt fell into the window (kept, flagged) */
};

#define RECORD_MAX_PAYLOAD 96

/* Encode and send one record whose payload starts with its type byte. */
void record_send(const uint8_t *payload, size_t len);

/* Send a text record: the type, then the three texts one after the other
 * (any may be 0), cut at RECORD_MAX_PAYLOAD bytes. A text is a board text
 * (SS_TEXT, in flash on targets with separate program memory) unless its bit
 * (1 << index) is set in ram_parts. */
void record_send_text(uint8_t type, const char *const parts[3], uint8_t ram_parts);

#endif
