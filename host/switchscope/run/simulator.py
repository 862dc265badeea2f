"""What a simulator is to the runner: a module of run/ (qemu.py, simavr.py,
verilator.py) that provides the names of `Simulator` below, listed once in
runner.SIMULATORS under the name a board.toml's [simulator] gives it. The
runner starts the command a module makes, reads the record stream from its
stdout and the event log from the file the module named, ends it at the time
limit, and asks the module how the end reads; a fourth simulator is one more
such module.

Shared here: what a run asks of a simulator (Request), and the pieces more
than one simulator uses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from switchscope.catalog import Target
from switchscope.catalog.memory import MemorySettings
from switchscope.decode.recording import Edge, Events

PARAMETERS_SYMBOL = "board_host_parameters"  # the board's buffer a simulator writes the run's parameters into
PARAMETERS_MAGIC = "ss:"
CYCLES_PER_SAMPLE_BUDGET = 2_000_000  # a cycle-counting simulator's bound: far past any switch


@dataclass(frozen=True)
class Request:
    """One run, as runner.run was asked for it (see its docstring), with the files the simulator writes."""
    target: Target
    firmware_elf: Path
    parameters: list[str]
    samples: int
    event_log: Path  # where the watch events go (read while the simulator writes)
    pin_log: Path  # where a simulator that logs the scope pin itself writes its changes
    trace_log: Path  # where the trace window's instructions go
    event_limit: int  # watch events the log may hold before the simulator ends the run
    interrupt_entry_cycles: int  # simavr's correction (simavr.INTERRUPT_ENTRY_CYCLES unless shown otherwise)
    watches: tuple[tuple[int, str], ...] = ()
    watch_scope_pin: bool = False
    stop_after: int | None = None
    unit: str | None = None  # None: the target's own
    stamps: bool = False
    trace_window: int | None = None
    latency: bool = False
    switch_word: tuple[int, int, int] | None = None
    switch_path: tuple[int, ...] = ()
    memory: MemorySettings = MemorySettings()  # what the run asks of the target's flash model (target.flash)


class Simulator(Protocol):
    """The interface each simulator module provides (module attributes and functions)."""

    NAME: str  # what board.toml's [simulator] name calls it
    UNIT: str  # what the simulator itself counts: "instructions" or "cycles" (board.toml's [simulator] unit)
    ELF_MACHINE: str  # the architecture of the firmware it runs (elf.MACHINES); per target: elf_machine
    COUNTS: str  # how its unit is counted, in a sentence's words ("switchscope list")
    TRACES_WINDOWS: bool  # can log every instruction of one window with its count (Request.trace_window: breakdown)
    TIME_LIMIT_PER_SAMPLE_S: float  # a run's default time limit allows this much wall time per sample

    def elf_machine(self, target: Target) -> str:
        """The architecture of the target's firmware (elf.MACHINES): QEMU runs Cortex-M and RISC-V machines."""

    def start(self, request: Request) -> list[str]:
        """The command line that runs the firmware: parameters in, record stream on stdout, the watches
        logged to request.event_log up to its limit, and the run stopped after request.stop_after intervals."""

    def provenance(self, request: Request) -> tuple[str, str]:
        """(the simulator and its version, the options that shape its counts), for a result's record."""

    def scope_edges(self, request: Request, events: Events | None) -> tuple[list[Edge] | None, Events | None]:
        """With request.watch_scope_pin: the scope pin's edges, and the events without any that carried them."""

    def outcome(self, returncode: int, stderr: str) -> tuple[int | None, str | None]:
        """(the firmware's exit code, or None and why the simulator stopped it), from how the simulator ended."""


def edges(changes: list[tuple]) -> list[Edge]:
    """Only the real changes of level, from a pin that starts low: (time, level[, least, most]) each."""
    found, level = [], 0
    for time, new_level, *bounds in changes:
        if new_level != level:
            found.append(Edge(time, new_level, *bounds))
            level = new_level
    return found


def pin_log_edges(request: Request, events: Events | None) -> tuple[list[Edge] | None, Events | None]:
    """scope_edges of a simulator that logs the pin's changes itself ("<count> <pin> <level>" lines)."""
    if not request.pin_log.is_file():
        return None, events
    lines = request.pin_log.read_text().splitlines()
    return edges([(int(f[0]), int(f[2])) for f in (line.split() for line in lines)]), events
