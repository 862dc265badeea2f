"""The target's record stream (docs/wire-format.md): its record types and
flags, CRC-8 and COBS framing, and what a decoded stream holds (samples as
columns, the metadata, the problems met). wire.py decodes a stream into it.
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
LOAD_IN_WINDOW = 0x08  # load=voip: the load's interrupt fell into the window (kept, flagged interfered)

FIXED_LAYOUTS = {
    HELLO: struct.Struct("<B"),
    CALIB: struct.Struct("<II"),
    SAMPLE: struct.Struct("<IIIHB"),
    SAMPLE_COMPACT: struct.Struct("<BH"),
    END: struct.Struct("<I"),
}
TEXT_TYPES = (META, LOG, FAULT)


def _crc8_of_byte(value: int) -> int:
    crc = value
    for _ in range(8):
        crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


CRC8_TABLE = bytes(_crc8_of_byte(value) for value in range(256))  # the eight shifts of each byte, once


def crc8(data: bytes) -> int:
    """CRC-8 with polynomial 0x07 and initial value 0, as the target computes it."""
    crc = 0
    for byte in data:
        crc = CRC8_TABLE[crc ^ byte]
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
