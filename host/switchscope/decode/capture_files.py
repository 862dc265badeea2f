"""Reading one logic channel out of a capture file, as edges in seconds.

Formats: VCD (any tool's, read by capture_vcd.py), sigrok session files (.sr,
as sigrok-cli and PulseView save them) and sigrok CSV (sigrok-cli -O csv, with
or without a time column). Every problem with a file is a CaptureError that
says what is wrong and where; a compressed file is said as such.
"""

from __future__ import annotations

import configparser
import re
import zipfile
import zlib
from fractions import Fraction
from pathlib import Path

# the channel and the error are capture_vcd's, and every reader's: figures/capture.py takes them from here
from switchscope.decode.capture_vcd import MAX_TIME_DIGITS, CaptureError, Channel, read_vcd, unknown_channel

MAX_CHUNK_BYTES = 1 << 28  # sigrok writes its samples in chunks of a few MB
MAX_SESSION_BYTES = 1 << 32  # all chunks together: 4 G samples of 8 channels, more than any analyzer's memory
MAX_METADATA_BYTES = 1 << 20  # the metadata member is a few lines of text

_RATE = {"hz": 1, "khz": 10**3, "mhz": 10**6, "ghz": 10**9}


def _edges_from_levels(levels) -> list[tuple[Fraction, int]]:
    """Edges from an iterable of (seconds, level), the first level as the start state."""
    edges, previous = [], None
    for seconds, level in levels:
        if previous is not None and level != previous:
            edges.append((seconds, level))
        previous = level
    return edges


def samplerate(text: str) -> Fraction:
    match = re.fullmatch(r"\s*([0-9]{1,15}(?:\.[0-9]{1,15})?)\s*([kMG]?Hz)\s*", text, re.IGNORECASE)
    if not match:
        raise ValueError(f"not a sample rate: {text[:40]!r}")
    rate = Fraction(match.group(1)) * _RATE[match.group(2).lower()]
    if rate <= 0:
        raise ValueError(f"a sample rate of {text.strip()}")
    return rate


_DECIMAL = re.compile(r"[+-]?[0-9]{1,30}(\.[0-9]{1,30})?")


def _decimal(text: str, what: str) -> Fraction:
    """A plain decimal number as a capture writes it, refused if it is anything else (an
    exponent such as 1e2000000000 would take hours to expand)."""
    if not _DECIMAL.fullmatch(text.strip()):
        raise ValueError(f"not a plain decimal number for {what}: {text[:40]!r}")
    return Fraction(text.strip())


def _check_sizes(path: Path, archive: zipfile.ZipFile) -> None:
    """Refuse, before decompressing anything, members that would unpack to more than a capture
    holds (zipfile stops each member at the size it declares, so declared sizes bound the work)."""
    members = archive.infolist()
    metadata = next((m for m in members if m.filename == "metadata"), None)
    if metadata is not None and metadata.file_size > MAX_METADATA_BYTES:
        raise CaptureError(f"{path}: its metadata member unpacks to {metadata.file_size:,} bytes, more than a "
                           f"sigrok session's few lines ({MAX_METADATA_BYTES:,} at most): not a capture")
    for member in members:
        if member.file_size > MAX_CHUNK_BYTES:
            raise CaptureError(f"{path}: member {member.filename[:60]} unpacks to {member.file_size:,} bytes, more "
                               f"than any sigrok chunk ({MAX_CHUNK_BYTES:,})")
    total = sum(member.file_size for member in members)
    if total > MAX_SESSION_BYTES:
        raise CaptureError(f"{path}: its members unpack to {total:,} bytes in all, more than switchscope reads "
                           f"({MAX_SESSION_BYTES:,})", "export the part of the capture that holds the patterns")


def check_listed_once(path: Path, channel: str, places: list[str]) -> None:
    """A channel named twice is two pins under one name: which one the pin was recorded on cannot be told."""
    if len(places) > 1:
        raise CaptureError(f"{path}: channel '{channel}' is listed {len(places)} times ({', '.join(places)}), "
                           "so which one holds the pin cannot be told",
                           "name the analyzer's channels apart (each pin its own name) and export the capture again")


def read_sigrok_session(path: Path, channel: str) -> Channel:
    try:
        archive = zipfile.ZipFile(path)
        _check_sizes(path, archive)
        if "metadata" not in archive.namelist():
            raise CaptureError(f"{path} is a zip archive with no metadata member, and every sigrok session has one "
                               "(its sample rate and channel names): not a sigrok session, or one damaged",
                               "save the capture again from PulseView or sigrok-cli (-o capture.sr)")
        metadata = configparser.ConfigParser(interpolation=None)
        metadata.read_string(archive.read("metadata").decode())
        device = metadata["device 1"]
        names = [device[f"probe{i}"] for i in range(1, int(device.get("total probes", "0")) + 1)]
        if channel not in names:
            raise unknown_channel(path, channel, names)
        check_listed_once(path, channel, [f"probe{i}" for i, name in enumerate(names, 1) if name == channel])
        rate = samplerate(device["samplerate"])
        unit = int(device.get("unitsize", "1"))
        if not 1 <= unit <= 8 or names.index(channel) >= 8 * unit:
            raise CaptureError(f"{path}: a unit size of {unit} bytes cannot hold channel '{channel}' "
                               f"(probe {names.index(channel) + 1})")
        prefix = device.get("capturefile", "logic-1")
        chunks = sorted((n for n in archive.namelist() if n == prefix or n.startswith(prefix + "-")),
                        key=lambda n: int(n.rsplit("-", 1)[1]) if n != prefix else 0)
        byte, bit = divmod(names.index(channel), 8)
        to_level = bytes((value >> bit) & 1 for value in range(256))

        def edges_in_samples():
            """(sample index, level) at every change, found by byte searches:
            a capture holds tens of millions of samples and a few edges."""
            first, previous = 0, None
            for chunk in chunks:
                data = archive.read(chunk)
                if len(data) % unit:
                    raise CaptureError(f"{path}: chunk {chunk} ends inside a sample (truncated)")
                levels = data[byte::unit].translate(to_level)
                if not levels:
                    continue
                if previous is None:
                    previous = levels[0]
                joined = bytes([previous]) + levels
                changes = []
                for pattern, level in ((b"\x00\x01", 1), (b"\x01\x00", 0)):
                    at = joined.find(pattern)
                    while at >= 0:
                        changes.append((first + at, level))
                        at = joined.find(pattern, at + 1)
                yield from sorted(changes)
                first += len(levels)
                previous = levels[-1]

        edges = [(index / rate, level) for index, level in edges_in_samples()]
    except (zipfile.BadZipFile, zlib.error, KeyError, OSError, EOFError, ValueError, NotImplementedError,
            RuntimeError, configparser.Error) as error:
        if isinstance(error, CaptureError):
            raise
        raise CaptureError(f"{path} is not a complete sigrok session file ({error}): truncated or damaged?") from None
    return Channel(channel, edges, 1 / rate, f"sigrok session, {device['samplerate']}")


# the time column's heading states its unit (sigrok-cli picks one to suit the rate), in the words it writes
_TIME_UNITS = {"seconds": Fraction(1), "milliseconds": Fraction(1, 10**3), "microseconds": Fraction(1, 10**6),
               "nanoseconds": Fraction(1, 10**9), "picoseconds": Fraction(1, 10**12)}


def _csv_rows(path: Path):
    """(line number, line) of every non-empty line, streamed; a last line with no end is truncation."""
    with path.open(errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.endswith("\n"):
                raise CaptureError(f"{path}, line {number}: the file ends in the middle of a line (truncated)")
            if line.strip():
                yield number, line.strip()


def read_sigrok_csv(path: Path, channel: str) -> Channel:
    """Two passes over the file, each streamed: memory does not grow with its length."""
    rate, names, header = None, [], None
    for number, line in _csv_rows(path):
        if line.startswith(";"):
            if m := re.match(r";\s*Samplerate:\s*(.+)", line):
                try:
                    rate = samplerate(m.group(1))
                except ValueError as error:
                    raise CaptureError(f"{path}, line {number}: {error}") from None
            elif m := re.match(r";\s*Channels \(\d+/\d+\):\s*(.+)", line):
                names = [n.strip() for n in m.group(1).split(",")]
            continue
        header = [c.strip() for c in line.split(",")]
        break
    if header is None:
        raise CaptureError(f"{path} holds no CSV data")
    time_unit = _TIME_UNITS.get(header[0].lower())
    time_column = time_unit is not None
    if not time_column and names and len(header) == len(names) + 1:
        raise CaptureError(f"{path}: its first column, '{header[0][:20]}', is not a channel and does not state "
                           f"a time unit ({', '.join(_TIME_UNITS)})",
                           "export it again with sigrok-cli -O csv:time=true, or without the time column")
    logic_names = names or header[1 if time_column else 0:]
    if channel not in logic_names:
        raise unknown_channel(path, channel, logic_names)
    check_listed_once(path, channel, [f"column {index + (2 if time_column else 1)}"
                                      for index, name in enumerate(logic_names) if name == channel])
    if rate is None:
        raise CaptureError(f"{path} does not say its sample rate",
                           "export it with sigrok-cli -O csv (its header comment carries the rate)")
    column = logic_names.index(channel) + (1 if time_column else 0)
    if column >= len(header):
        raise CaptureError(f"{path}: the header has {len(header)} columns, too few for channel '{channel}'")

    def data_rows():
        seen_header = False
        for number, line in _csv_rows(path):
            if line.startswith(";"):
                continue
            if not seen_header:
                seen_header = True
                continue
            cells = line.split(",")
            if len(cells) != len(header):
                raise CaptureError(f"{path}, line {number}: {len(cells)} columns where the header has {len(header)}")
            yield number, cells

    to_seconds = _csv_time_reader(data_rows(), rate, time_unit) if time_column else None

    def levels():
        last = None
        for index, (number, cells) in enumerate(data_rows()):
            try:
                level = {"0": 0, "1": 1}[cells[column].strip()]
                # without a time column, rows are consecutive samples
                seconds = to_seconds(cells[0]) if to_seconds else index / rate
            except KeyError:
                raise CaptureError(f"{path}, line {number}: not a sample (time, then 0 or 1 per channel): "
                                   f"{','.join(cells)[:80]!r}") from None
            except ValueError as error:
                raise CaptureError(f"{path}, line {number}: {error}") from None
            if last is not None and seconds <= last:  # rows out of order would pair the wrong edges
                raise CaptureError(f"{path}, line {number}: time goes back or stands still, from "
                                   f"{float(last):.9g} s to {float(seconds):.9g} s: the rows are out of time order",
                                   "export the capture again (sigrok-cli -O csv writes rows in time order)")
            last = seconds
            yield seconds, level

    return Channel(channel, _edges_from_levels(levels()), 1 / rate, f"sigrok CSV, {float(rate) / 1e6:g} MHz")


def _csv_time_reader(rows, rate: Fraction, time_unit: Fraction):
    """How to turn a sigrok CSV time cell into seconds. The stated sample rate
    is the authority, and two ways of writing a sample's time are read:
    sigrok-cli 0.5.2 writes n times the sample period cut to a whole unit
    (n x 62 ns at 16 MHz, whose period is 62.5 ns), recognised when every time
    of the file is a multiple of that cut period; otherwise each time must be n
    whole periods to within the last digit it is written with. Either way the
    time is taken as exactly n / rate. A time that is no sample's, or a column
    too coarse to tell one sample from the next, is refused, never guessed."""
    period = 1 / (rate * time_unit)  # the sample period in the column's unit
    cut = int(period)
    if cut and period != cut and all(  # a first pass over the file, streamed
            cells[0].strip().isascii() and cells[0].strip().isdigit() and len(cells[0].strip()) <= MAX_TIME_DIGITS
            and int(cells[0]) % cut == 0 for _, cells in rows):
        return lambda cell: Fraction(int(cell) // cut) / rate

    def to_seconds(cell: str) -> Fraction:
        written = cell.strip()
        time = _decimal(written, "a time")
        resolution = Fraction(1, 10**len(written.partition(".")[2]))
        if resolution > period:  # equal still tells each sample from the next
            raise ValueError(f"the time column's last digit ({resolution} of its unit) is coarser than one "
                             f"sample period ({float(period):g}): export it without the time column")
        sample = round(time / period)
        if sample < 0 or abs(sample * period - time) >= resolution:
            raise ValueError(f"{written} is not the time of a whole sample at the stated rate")
        return Fraction(sample) / rate

    return to_seconds


# what a compressed file begins with, and how to unpack it
_COMPRESSED = ((b"\x1f\x8b", "gzip", "gunzip"), (b"BZh", "bzip2", "bunzip2"), (b"\xfd7zXZ\x00", "xz", "unxz"),
               (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"))


def read(path: Path, channel: str) -> Channel:
    """The channel's edges from a capture; the format is told by the file's content."""
    if not path.is_file():
        raise CaptureError(f"no capture file {path}")
    with path.open("rb") as f:
        head_bytes = f.read(4096)
    if head_bytes.startswith(b"PK\x03\x04"):
        return read_sigrok_session(path, channel)
    for magic, kind, unpack in _COMPRESSED:
        if head_bytes.startswith(magic):
            raise CaptureError(f"{path} is {kind}-compressed: {unpack} it first",
                               f"then give the unpacked file: {unpack} -k {path}")
    head = head_bytes.decode(errors="replace")
    if "$timescale" in head or "$var" in head or "$date" in head or "$comment" in head:
        return read_vcd(path, channel)
    if head.lstrip().startswith(";") or "," in head:
        return read_sigrok_csv(path, channel)
    raise CaptureError(f"{path}: not a VCD, sigrok session (.sr) or sigrok CSV file")
