"""Decoding of the target's record stream (docs/wire-format.md).

The stream is a sequence of COBS frames, each ended by a zero byte, each
holding a type byte, little-endian fields and a CRC-8. Decoding never raises on
bad data: every problem becomes a StreamProblem that says which record and
which byte, and decoding resumes at the next frame.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1

HELLO, META, CALIB, SAMPLE, LOG, FAULT, END = 0x01, 0x02, 0x03, 0x10, 0x20, 0x7E, 0x7F
TICK_IN_WINDOW = 0x01
NOT_CLOSED = 0x02  # recorded before the task that closes the window had run

_FIXED_LAYOUTS = {
    HELLO: struct.Struct("<B"),
    CALIB: struct.Struct("<II"),
    SAMPLE: struct.Struct("<IIIHB"),
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

    @property
    def tick_in_window(self) -> bool:
        return bool(self.flags & TICK_IN_WINDOW)

    @property
    def not_closed(self) -> bool:
        return bool(self.flags & NOT_CLOSED)


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
    samples: list[Sample] = field(default_factory=list)
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


class StreamDecoder:
    """Incremental decoder: feed() bytes as they arrive, then finish()."""

    def __init__(self) -> None:
        self.stream = Stream()
        self._pending = bytearray()
        self._pending_offset = 0
        self._next_seq = 0

    def feed(self, data: bytes) -> None:
        self._pending += data
        start = 0  # the frames are cut out by position and the buffer shortened once
        while True:
            zero = self._pending.find(0, start)
            if zero < 0:
                break
            self._decode_frame(bytes(self._pending[start:zero]), self._pending_offset + start)
            start = zero + 1
        del self._pending[:start]
        self._pending_offset += start

    def finish(self) -> Stream:
        self.stream.trailing_bytes = len(self._pending)
        if self._pending:
            self._problem(self._pending_offset, f"stream ends inside a record ({len(self._pending)} bytes after the last complete one)")
        return self.stream

    def _problem(self, offset: int, what: str) -> None:
        self.stream.problems.append(StreamProblem(self.stream.records, offset, what))

    def _decode_frame(self, frame: bytes, offset: int) -> None:
        if not frame:
            return  # a lone delimiter: the target may send one to resynchronise
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
        elif kind == SAMPLE:
            sample = Sample(*fields)
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
