"""Decoding of the target's record stream (docs/wire-format.md).

The stream is a sequence of COBS frames, each ended by a zero byte, each
holding a type byte, little-endian fields and a CRC-8. Decoding never raises on
bad data: every problem becomes a StreamProblem that says which record and
which byte, and decoding resumes at the next frame.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

PROTOCOL_VERSION = 2

HELLO, META, CALIB, SAMPLE, SAMPLE_COMPACT, LOG, FAULT, END = 0x01, 0x02, 0x03, 0x10, 0x11, 0x20, 0x7E, 0x7F
TICK_IN_WINDOW = 0x01
NOT_CLOSED = 0x02  # recorded before the task that closes the window had run
STAMP_WRAPPED = 0x04  # the stamp timer wrapped inside the window: its stamps' difference is short by its period

_FIXED_LAYOUTS = {
    HELLO: struct.Struct("<B"),
    CALIB: struct.Struct("<II"),
    SAMPLE: struct.Struct("<IIIHB"),
    SAMPLE_COMPACT: struct.Struct("<BH"),
    END: struct.Struct("<I"),
}
_TEXT_TYPES = (META, LOG, FAULT)


def _crc8_of_byte(value: int) -> int:
    crc = value
    for _ in range(8):
        crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


_CRC8_TABLE = bytes(_crc8_of_byte(value) for value in range(256))  # the eight shifts of each byte, once


def crc8(data: bytes) -> int:
    """CRC-8 with polynomial 0x07 and initial value 0, as the target computes it."""
    crc = 0
    for byte in data:
        crc = _CRC8_TABLE[crc ^ byte]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """COBS-encode `data` (without the trailing zero delimiter)."""
    out = bytearray([0])
    code_at, code = 0, 1
    for byte in data:
        if byte == 0:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
        else:
            out.append(byte)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at, code = len(out), 1
                out.append(0)
    out[code_at] = code
    return bytes(out)


def cobs_decode(frame: bytes) -> bytes:
    """Decode one COBS frame; raises ValueError if it is malformed."""
    out = bytearray()
    i = 0
    while i < len(frame):
        code = frame[i]
        if code == 0:
            raise ValueError("zero byte inside a frame")
        end = i + code
        if end > len(frame):
            raise ValueError("frame shorter than its COBS code says")
        out += frame[i + 1 : end]
        i = end
        if code < 0xFF and i < len(frame):
            out.append(0)
    return bytes(out)


def encode_record(payload: bytes) -> bytes:
    """A complete frame for `payload` (type byte first), as the target sends it."""
    return cobs_encode(payload + bytes([crc8(payload)])) + b"\x00"


@dataclass
class Sample:
    seq: int
    start: int
    end: int
    tag: int
    flags: int
    length: int = -1  # the window in stamp counts, as a compact record gives it; -1: from start and end

    @property
    def tick_in_window(self) -> bool:
        return bool(self.flags & TICK_IN_WINDOW)

    @property
    def not_closed(self) -> bool:
        return bool(self.flags & NOT_CLOSED)


class Samples:
    """A stream's samples as columns (numpy int64 arrays) in arrival order:
    seq, start, end, tag, flags and length (see Sample). Iterating or
    indexing gives Sample objects; the analysis uses the columns."""

    COLUMNS = ("seq", "start", "end", "tag", "flags", "length")

    def __init__(self) -> None:
        self._parts: list[np.ndarray] = []  # each (len(COLUMNS), n)
        self._rows: list[tuple[int, ...]] = []  # appended one by one, not yet a part
        self._count = 0

    def append(self, sample: Sample) -> None:
        self._rows.append((sample.seq, sample.start, sample.end, sample.tag, sample.flags, sample.length))
        self._count += 1

    def extend_columns(self, columns: np.ndarray) -> None:
        self._flush()
        self._parts.append(columns)
        self._count += columns.shape[1]

    def _flush(self) -> None:
        if self._rows:
            self._parts.append(np.array(self._rows, dtype=np.int64).T.reshape(len(self.COLUMNS), -1))
            self._rows = []

    def _table(self) -> np.ndarray:
        self._flush()
        if len(self._parts) != 1:
            self._parts = [np.concatenate(self._parts, axis=1) if self._parts
                           else np.zeros((len(self.COLUMNS), 0), dtype=np.int64)]
        return self._parts[0]

    def column(self, name: str) -> np.ndarray:
        return self._table()[self.COLUMNS.index(name)]

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> Sample:
        return Sample(*(int(value) for value in self._table()[:, index]))

    def __iter__(self):
        for row in self._table().T.tolist():
            yield Sample(*row)

    def __eq__(self, other) -> bool:
        if isinstance(other, Samples):
            return np.array_equal(self._table(), other._table())
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    def __repr__(self) -> str:
        return f"Samples({self._count})"


@dataclass
class StreamProblem:
    record: int  # index of the record (frame) in the stream, from 0
    offset: int  # byte offset of the frame's first byte
    what: str

    def __str__(self) -> str:
        return f"record {self.record} (byte {self.offset}): {self.what}"


@dataclass
class Stream:
    """Everything decoded from one run's output."""

    protocol: int | None = None
    meta: dict[str, str] = field(default_factory=dict)
    calibration: list[tuple[int, int]] = field(default_factory=list)
    samples: Samples = field(default_factory=Samples)
    logs: list[str] = field(default_factory=list)
    fault: str | None = None
    end_count: int | None = None
    problems: list[StreamProblem] = field(default_factory=list)
    resets: int = 0  # HELLO records after the first: the firmware started again
    records: int = 0
    trailing_bytes: int = 0  # bytes after the last complete frame

    @property
    def complete(self) -> bool:
        return self.end_count is not None

    def last_output(self, lines: int = 10) -> list[str]:
        """The last things the firmware said, for error messages."""
        said = [f"log: {text}" for text in self.logs]
        if self.samples:
            said.append(f"last sample: seq {self.samples[-1].seq}")
        if self.fault:
            said.append(f"fault: {self.fault}")
        return said[-lines:]


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


_CRC8_ARRAY = np.frombuffer(_CRC8_TABLE, dtype=np.uint8)
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
        if kind in _TEXT_TYPES:
            text = body.decode("utf-8", errors="replace")
            if kind == META:
                key, _, value = text.partition("=")
                s.meta[key] = value
            elif kind == LOG:
                s.logs.append(text)
            else:
                s.fault = text
            return
        layout = _FIXED_LAYOUTS.get(kind)
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
