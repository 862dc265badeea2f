"""The simulator's watch log, read while the simulator writes it:
"<count> <name>" lines from the QEMU plugin or the simavr runner (with a
third field, the instructions before it, and a fourth and fifth, the least
and the most cycles the core's manual allows, when QEMU counts cycles),
ended by "<count> end" or, at the log's limit, "<count> limit".

A run of a million samples logs millions of events: they are parsed as
columns, piece by piece as the log grows, on a core the simulator leaves
free, so that little is left to read when the run ends."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from switchscope.common.errors import FirmwareFailed
from switchscope.decode.recording import Events

_ENDINGS = (b"end", b"limit")


class EventLog:
    """Feed it the log's bytes as they come (any cut, even inside a line);
    `finish()` gives the events and whether the log stopped at its limit."""

    def __init__(self, source: Path):
        self.source = source
        self._partial = b""
        self._fields = 0  # taken from the first line
        self._columns: list[tuple[np.ndarray, ...]] = []  # per piece: time, name index, instructions, least, most
        self._names: dict[bytes, int] = {}
        self._limited = False

    def feed(self, data: bytes) -> None:
        data = self._partial + data
        cut = data.rfind(b"\n") + 1
        self._partial = data[cut:]
        if cut:
            self._parse(data[:cut].splitlines())

    def finish(self) -> tuple[Events, bool]:
        # the simulator ends every line it writes: a last line without its end was cut when the simulator was
        # stopped (killed at the run's time limit, its buffer lost mid-line), and is no event
        self._partial = b""
        fields = self._fields or 2
        pieces = self._columns or [tuple(np.zeros(0, dtype=np.int64) for _ in range(5))]
        time, name_index, instructions, least, most = (np.concatenate(column) for column in zip(*pieces))
        # the names in sorted order, however the pieces fell
        names = sorted(self._names, key=self._names.get)
        order = np.argsort(np.array(names, dtype=object)) if names else np.zeros(0, dtype=np.int64)
        rank = np.empty(len(names), dtype=np.int64)
        rank[order] = np.arange(len(names))
        sorted_names = [names[i].decode() for i in order.tolist()]
        bounded = fields > 4
        return Events(time, rank[name_index] if len(name_index) else name_index, sorted_names,
                      instructions if fields > 2 else np.full(len(time), -1, dtype=np.int64),
                      least if bounded else None, most if bounded else None), self._limited

    def _parse(self, lines: list[bytes]) -> None:
        while lines and (len(lines[-1].split(b" ")) < 2 or lines[-1].split(b" ")[1] in _ENDINGS):
            self._limited = self._limited or lines[-1].endswith(b" limit")
            lines.pop()
        if not lines:
            return
        if not self._fields:
            self._fields = len(lines[0].split(b" "))
        fields = self._fields
        try:
            table = np.array(b" ".join(lines).split(b" "), dtype=bytes).reshape(-1, fields)
            columns = [table[:, i].astype(np.int64) if i < fields else np.full(len(table), -1, dtype=np.int64)
                       for i in (0, 2, 3, 4)]
        except ValueError:
            raise FirmwareFailed(f"the simulator's watch log {self.source} is malformed",
                                 "this is a bug: report it") from None
        names, local_index = np.unique(table[:, 1], return_inverse=True)
        to_global = np.array([self._names.setdefault(name, len(self._names)) for name in names.tolist()],
                             dtype=np.int64)
        time, instructions, least, most = columns
        self._columns.append((time, to_global[local_index.reshape(-1)], instructions, least, most))


def read_event_log(path: Path) -> tuple[Events, bool]:
    """A whole log at once (a run's that has ended)."""
    log = EventLog(path)
    log.feed(path.read_bytes())
    return log.finish()
