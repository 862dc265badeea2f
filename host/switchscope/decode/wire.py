"""Decoding of the target's record stream (docs/wire-format.md).

The stream is a sequence of COBS frames, each ended by a zero byte, each
holding a type byte, little-endian fields and a CRC-8. Decoding never raises on
bad data: every problem becomes a StreamProblem that says which record and
which byte, and decoding resumes at the next frame. The format's names are
wire_format.py's, offered here too (`__all__`): readers of a stream import this module.
"""

from __future__ import annotations

import numpy as np

from switchscope.decode.wire_format import (
    CALIB, END, FAULT, HELLO, LOAD_IN_WINDOW, LOG, META, NOT_CLOSED, PROTOCOL_VERSION, SAMPLE, SAMPLE_COMPACT, STAMP_WRAPPED, Sample,
    Samples, Stream, StreamProblem, TICK_IN_WINDOW, cobs_decode, cobs_encode, crc8, encode_record, FIXED_LAYOUTS,
    TEXT_TYPES, CRC8_TABLE,
)

__all__ = ["CALIB", "END", "FAULT", "HELLO", "LOAD_IN_WINDOW", "LOG", "META", "NOT_CLOSED", "PROTOCOL_VERSION", "SAMPLE", "SAMPLE_COMPACT",
           "STAMP_WRAPPED", "Sample", "Samples", "Stream", "StreamProblem", "TICK_IN_WINDOW", "cobs_decode", "cobs_encode",
           "crc8", "encode_record", "StreamDecoder", "decode"]


def _cobs_decode_frames(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """COBS-decode n frames of one length L at once (an n x L byte array):
    the n x (L - 1) decoded bytes and which frames were well formed."""
    count, length = frames.shape
    rows = np.arange(count)
    position = np.zeros(count, dtype=np.int64)
    is_code = np.zeros((count, length + 1), dtype=bool)
    for _ in range(length):  # each step follows one COBS code; a frame of L bytes has at most L
        active = position < length
        if not active.any():
            break
        is_code[rows[active], position[active]] = True
        position[active] += frames[rows[active], position[active]]
    decoded = np.where(is_code[:, 1:length], 0, frames[:, 1:])
    return decoded.astype(np.uint8), position == length


def _crc8_rows(rows: np.ndarray) -> np.ndarray:
    crc = np.zeros(rows.shape[0], dtype=np.uint8)
    for column in rows.T:
        crc = _CRC8_ARRAY[crc ^ column]
    return crc


_CRC8_ARRAY = np.frombuffer(CRC8_TABLE, dtype=np.uint8)
_COMPACT_FRAME = 6  # type, seq, u16 length, CRC: five bytes, one COBS code
_FULL_FRAME = 18  # type, 15 bytes of fields, CRC: seventeen bytes, one COBS code


class StreamDecoder:
    """Incremental decoder: feed() bytes as they arrive, then finish().

    The frames of each piece fed are cut at once; the sample records of a
    piece whose samples all arrived intact and in order are decoded together
    as arrays, and every other record, or every record of a piece with any
    problem among its samples, one at a time: both ways give the same Stream."""

    def __init__(self) -> None:
        self.stream = Stream()
        self._pending = bytearray()
        self._pending_offset = 0
        self._next_seq = 0
        self._last_tag = 0  # the tag of the last full sample record: compact ones repeat it

    def feed(self, data: bytes) -> None:
        self._pending += data
        buffer = np.frombuffer(bytes(self._pending), dtype=np.uint8)
        zeros = np.flatnonzero(buffer == 0)
        if not len(zeros):
            return
        starts = np.concatenate(([0], zeros[:-1] + 1))
        lengths = zeros - starts
        keep = lengths > 0  # a lone delimiter: the target may send one to resynchronise
        starts, lengths = starts[keep], lengths[keep]
        if not self._decode_together(buffer, starts, lengths):
            for start, length in zip(starts.tolist(), lengths.tolist()):
                self._decode_frame(bytes(buffer[start:start + length]), self._pending_offset + start)
        consumed = int(zeros[-1]) + 1
        del self._pending[:consumed]
        self._pending_offset += consumed

    def finish(self) -> Stream:
        self.stream.trailing_bytes = len(self._pending)
        if self._pending:
            self._problem(self._pending_offset, f"stream ends inside a record ({len(self._pending)} bytes after the last complete one)")
        return self.stream

    def _decode_together(self, buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> bool:
        """Decode the piece's sample records as arrays and the rest one by one,
        if every frame of a sample record's length is well formed and the
        samples continue the sequence without a gap; otherwise change nothing
        and return False."""
        is_sample = np.zeros(len(starts), dtype=bool)
        fields = {}
        for frame_length, kind in ((_COMPACT_FRAME, SAMPLE_COMPACT), (_FULL_FRAME, SAMPLE)):
            which = np.flatnonzero(lengths == frame_length)
            if not len(which):
                continue
            frames = buffer[starts[which, None] + np.arange(frame_length)]
            decoded, well_formed = _cobs_decode_frames(frames)
            if not well_formed.all() or (_crc8_rows(decoded[:, :-1]) != decoded[:, -1]).any():
                return False
            mine = decoded[:, 0] == kind
            is_sample[which[mine]] = True
            fields[kind] = (which[mine], decoded[mine])
        if not is_sample.any():
            return self._decode_others(buffer, starts, lengths, is_sample, np.zeros(0, dtype=np.int64))
        order = np.flatnonzero(is_sample)  # frame indices of the samples, in stream order
        count = len(order)
        seq = self._next_seq + np.arange(count, dtype=np.int64)
        table = np.zeros((len(Samples.COLUMNS), count), dtype=np.int64)
        table[0] = seq
        full_at = np.zeros(count, dtype=bool)
        if SAMPLE in fields:
            where, rows = fields[SAMPLE]
            at = np.searchsorted(order, where)
            words = rows[:, 1:16].astype(np.int64)
            little = lambda first, size: sum(words[:, first + i] << (8 * i) for i in range(size))
            if (little(0, 4) != seq[at]).any():
                return False
            table[1, at], table[2, at] = little(4, 4), little(8, 4)
            table[3, at], table[4, at], table[5, at] = little(12, 2), words[:, 14], -1
            full_at[at] = True
        if SAMPLE_COMPACT in fields:
            where, rows = fields[SAMPLE_COMPACT]
            at = np.searchsorted(order, where)
            if (rows[:, 1] != (seq[at] & 0xFF)).any():
                return False
            table[5, at] = rows[:, 2].astype(np.int64) | rows[:, 3].astype(np.int64) << 8
            # a compact record repeats the tag of the last full one before it
            last_full = np.maximum.accumulate(np.where(full_at, np.arange(count), -1))
            table[3, at] = np.where(last_full[at] >= 0, table[3][np.maximum(last_full[at], 0)], self._last_tag)
        self.stream.samples.extend_columns(table)
        if full_at.any():
            self._last_tag = int(table[3][np.flatnonzero(full_at)[-1]])
        return self._decode_others(buffer, starts, lengths, is_sample, order)

    def _decode_others(self, buffer, starts, lengths, is_sample, sample_frames) -> bool:
        """The records of a piece that are not samples, one by one, each seeing
        the sequence as it stood when it arrived."""
        first_seq, first_record = self._next_seq, self.stream.records
        for index in np.flatnonzero(~is_sample).tolist():
            self.stream.records = first_record + index
            self._next_seq = first_seq + int(np.searchsorted(sample_frames, index))
            start, length = int(starts[index]), int(lengths[index])
            self._decode_frame(bytes(buffer[start:start + length]), self._pending_offset + start)
        self.stream.records = first_record + len(starts)
        self._next_seq = first_seq + len(sample_frames)
        return True

    def _problem(self, offset: int, what: str) -> None:
        self.stream.problems.append(StreamProblem(self.stream.records, offset, what))

    def _decode_frame(self, frame: bytes, offset: int) -> None:
        try:
            raw = cobs_decode(frame)
        except ValueError as error:
            self._problem(offset, f"garbled record: {error}")
            self.stream.records += 1
            return
        if len(raw) < 2 or crc8(raw[:-1]) != raw[-1]:
            self._problem(offset, "garbled record: checksum mismatch")
            self.stream.records += 1
            return
        self._decode_payload(raw[:-1], offset)
        self.stream.records += 1

    def _decode_payload(self, payload: bytes, offset: int) -> None:
        kind, body = payload[0], payload[1:]
        s = self.stream
        if kind in TEXT_TYPES:
            text = body.decode("utf-8", errors="replace")
            if kind == META:
                key, _, value = text.partition("=")
                s.meta[key] = value
            elif kind == LOG:
                s.logs.append(text)
            else:
                s.fault = text
            return
        layout = FIXED_LAYOUTS.get(kind)
        if layout is None:
            self._problem(offset, f"unknown record type 0x{kind:02x}")
            return
        if len(body) != layout.size:
            self._problem(offset, f"record type 0x{kind:02x} has {len(body)} bytes, expected {layout.size}")
            return
        fields = layout.unpack(body)
        if kind == HELLO:
            if s.protocol is not None:
                s.resets += 1
            s.protocol = fields[0]
            if fields[0] != PROTOCOL_VERSION:
                self._problem(offset, f"protocol version {fields[0]}, this host speaks {PROTOCOL_VERSION}: rebuild the firmware")
        elif kind == CALIB:
            s.calibration.append(fields)
        elif kind in (SAMPLE, SAMPLE_COMPACT):
            if kind == SAMPLE:
                sample = Sample(*fields)
                self._last_tag = sample.tag
            else:  # the low byte of the sequence number: the first number from the expected one that has it
                low, length = fields
                sample = Sample(self._next_seq + ((low - self._next_seq) & 0xFF), 0, 0, self._last_tag, 0, length)
            if sample.seq < self._next_seq:
                self._problem(offset, f"sample {sample.seq} repeated (expected {self._next_seq}); dropped")
                return
            if sample.seq > self._next_seq:
                self._problem(offset, f"samples {self._next_seq}..{sample.seq - 1} lost")
            self._next_seq = sample.seq + 1
            s.samples.append(sample)
        elif kind == END:
            s.end_count = fields[0]
            if fields[0] != self._next_seq:
                self._problem(offset, f"target sent {fields[0]} samples, the stream holds up to sequence {self._next_seq - 1}")


def decode(data: bytes) -> Stream:
    decoder = StreamDecoder()
    decoder.feed(data)
    return decoder.finish()
