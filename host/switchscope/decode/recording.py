"""What a run on a simulator recorded: the firmware's record stream, the
watched addresses reached (with their counts, and in model cycles the range
the core's manual allows), the scope pin's edges, and how the run ended. The
run stage fills it; the methods read it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from switchscope.common.errors import FirmwareFailed
from switchscope.decode.wire import Stream


@dataclass(frozen=True)
class Edge:
    time: int  # in the target's unit (instructions or cycles) since the start
    level: int
    least: int | None = None  # cycles from a timing model: the least and the most the core's manual allows
    most: int | None = None


@dataclass(frozen=True)
class Event:
    time: int  # in the run's unit since the start: instructions before, or the cycle at which, it ran
    name: str
    instructions: int | None = None  # counting cycles on QEMU: the instructions before it too
    least: int | None = None  # counting cycles on QEMU: the least and the most cycles the core's manual allows
    most: int | None = None


class Events:
    """The watch log as columns: for each event in order its count (`time`),
    its name (an index into `names`) and, counting cycles on QEMU, the
    instructions before it (-1 where not logged) and the least and the most
    cycles the core's manual allows for the same instructions (`least`,
    `most`: None where the log has none). Iterating gives Event objects."""

    def __init__(self, time: np.ndarray, name_index: np.ndarray, names: list[str], instructions: np.ndarray,
                 least: np.ndarray | None = None, most: np.ndarray | None = None):
        self.time, self.name_index, self.names, self.instructions = time, name_index, names, instructions
        self.least, self.most = least, most

    @property
    def bounded(self) -> bool:
        return self.least is not None

    def __len__(self) -> int:
        return len(self.time)

    def __iter__(self):
        least = self.least.tolist() if self.bounded else [None] * len(self)
        most = self.most.tolist() if self.bounded else [None] * len(self)
        for time, index, instructions, low, high in zip(self.time.tolist(), self.name_index.tolist(),
                                                        self.instructions.tolist(), least, most):
            yield Event(time, self.names[index], instructions if instructions >= 0 else None, low, high)

    def is_named(self, name: str) -> np.ndarray:
        return self.name_index == (self.names.index(name) if name in self.names else -1)

    def _only(self, keep: np.ndarray) -> "Events":
        return Events(self.time[keep], self.name_index[keep], self.names, self.instructions[keep],
                      self.least[keep] if self.bounded else None, self.most[keep] if self.bounded else None)

    def named(self, name: str) -> "Events":
        """The events of one name, in order."""
        return self._only(self.is_named(name))

    def without(self, names) -> "Events | None":
        keep = ~np.isin(self.name_index, [i for i, name in enumerate(self.names) if name in names])
        return self._only(keep) if keep.any() else None


@dataclass
class RunOutput:
    stream: Stream
    exit_code: int | None  # the firmware's exit code; None when it was stopped
    stopped: str | None  # why the run was stopped, if it was
    stderr: str
    wall_seconds: float
    simulator: str  # name and version of the simulator
    options: str  # the simulator options that shape the measurement
    command: list[str] = field(default_factory=list)
    edges: list[Edge] | None = None  # the scope pin's changes, when it was watched
    events: Events | None = None  # the watched addresses reached, in order, when any were watched
    events_limited: bool = False  # the run was ended because the watch log reached its limit
    trace: list[str] | None = None  # with a trace asked for: the plugin's lines of the traced window

    def check_completed(self, what: str) -> None:
        """Raise FirmwareFailed unless the run ended normally with a complete stream."""
        stream = self.stream
        said = "\n".join(f"    {line}" for line in stream.last_output()) or "    (nothing)"
        received = f"{len(stream.samples)} samples received before it stopped"
        if self.stopped:
            raise FirmwareFailed(
                f"{what}: {self.stopped} ({received}). Its last output:\n{said}",
                "a scenario that never ends is a bug in it or in the kernel port; --timeout raises the limit for long runs",
            )
        if stream.fault:
            raise FirmwareFailed(f"{what}: the firmware failed: {stream.fault} ({received}). Its last output:\n{said}")
        if stream.resets:
            raise FirmwareFailed(f"{what}: the firmware restarted {stream.resets} time(s) ({received}): it ran away "
                                 f"and reached its reset vector. Its last output:\n{said}")
        if self.exit_code != 0:
            tail = "\n".join(f"    {line}" for line in self.stderr.strip().splitlines()[-8:]) or "    (nothing)"
            raise FirmwareFailed(
                f"{what}: the simulator exited with code {self.exit_code} ({received}).\n"
                f"  simulator said:\n{tail}\n  firmware's last output:\n{said}"
            )
        if not stream.complete:
            problems = "; ".join(str(p) for p in stream.problems[-3:]) or "no end record"
            raise FirmwareFailed(f"{what}: the sample stream is incomplete ({received}): {problems}")
