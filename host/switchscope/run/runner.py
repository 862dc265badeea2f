"""Running firmware on a simulator and collecting its record stream.

A run is bounded: it ends when the firmware exits, or is stopped at a time
limit (and, on simavr, a cycle budget). Either way the caller gets what the
firmware sent, so a failure can be explained by its last words.
"""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from switchscope.catalog import Target
from switchscope.catalog.memory import MemorySettings
from switchscope.common.errors import SwitchscopeError, UnknownName
from switchscope.common.tools import die_with_parent, end_group
from switchscope.decode.event_log import EventLog
from switchscope.decode.recording import RunOutput
from switchscope.decode.wire import StreamDecoder
from switchscope.run import qemu, simavr, verilator
from switchscope.run.simavr import INTERRUPT_ENTRY_CYCLES
from switchscope.run.simulator import Request, Simulator

Progress = Callable[[int], None]  # called with the number of samples received so far

# The simulators a board.toml's [simulator] name can choose, each one module (run/simulator.py says what it provides)
SIMULATORS: dict[str, Simulator] = {module.NAME: module for module in (qemu, simavr, verilator)}
EVENTS_PER_SAMPLE_LIMIT = 8  # watch events a run may log per sample requested (a window needs 2 to 4)
# irq-latency: a sample waits up to a round of its sweep (4,096 steps), a pass of the loop's top logged at each
# of the loop's iterations (the shortest here, the floor kernel's, is about 100 steps)
LATENCY_EVENTS_PER_SAMPLE = 64
EVENTS_LIMIT_BASE = 10_000  # a sample waits at most two 15 ms ticks (480,000 cycles)
PIPE_BYTES = 1 << 20  # Linux's default /proc/sys/fs/pipe-max-size
DECODE_BYTES = 1 << 18

# Bounds a run: the time to boot and calibrate, and a generous allowance per
# sample (a sample takes about 0.1 ms of QEMU's or simavr's time; each
# simulator module states its own allowance, the RTL's being larger).
BASE_TIME_LIMIT_S = 20.0
BOARD_TIME_LIMIT_PER_SAMPLE_S = 0.002  # a board read over its port


def default_time_limit(samples: int, target: Target | None = None, memory: MemorySettings = MemorySettings()) -> float:
    """A run's bound when none is given: on a simulator, its own allowance per sample, grown as a slow memory
    makes each sample more cycles to simulate."""
    per_sample = simulator_of(target).TIME_LIMIT_PER_SAMPLE_S if target is not None else BOARD_TIME_LIMIT_PER_SAMPLE_S
    return BASE_TIME_LIMIT_S + samples * per_sample * memory.slowest_access


def check_within_longest_run(samples: int, target: Target, option: str = "--samples", timeout: bool = True) -> None:
    """Before any work, where no --timeout is given (`timeout`: whether the command takes one): a count whose run, at the simulator's allowance per sample,
    would outlast the longest run it allows (an RTL's LONGEST_RUN_S) is refused, saying how many fit: the run
    would be stopped at its time limit anyway, the time spent for nothing."""
    simulator = simulator_of(target)
    longest = getattr(simulator, "LONGEST_RUN_S", None)
    if longest is None or default_time_limit(samples, target) <= longest:
        return
    per_sample = simulator.TIME_LIMIT_PER_SAMPLE_S
    fitting = int((longest - BASE_TIME_LIMIT_S) / per_sample)
    raise SwitchscopeError(
        f"{option} {samples:,} on {target.name}: its {simulator.NAME} run is allowed {per_sample * 1000:g} ms a "
        f"sample, {default_time_limit(samples, target) / 3600:,.1f} hours for these, and switchscope bounds a "
        f"run there to {longest / 3600:g} hour{'s' if longest != 3600 else ''}: at most {fitting:,} fit",
        f"give {option} {fitting:,} or fewer" + (", or a --timeout in seconds to wait longer" if timeout else
                                                   " (switchscope run takes a --timeout to wait longer)"))


def simulator_of(target: Target) -> Simulator:
    """The module that runs the target's simulator, or a clear refusal naming the ones there are."""
    try:
        return SIMULATORS[target.simulator]
    except KeyError:
        raise UnknownName(f"{target.name} runs on '{target.simulator}', which is no simulator switchscope knows",
                          f"its board.toml's [simulator] name must be one of {', '.join(SIMULATORS)}") from None


def _collect(command: list[str], time_limit: float, progress: Progress | None, event_log: EventLog | None = None):
    """Run `command`, decoding its stdout as a record stream, for at most
    `time_limit` seconds, and feeding `event_log` what the simulator writes
    to its file as it grows. Returns (stream, return code or None if stopped,
    stderr, seconds)."""
    decoder = StreamDecoder()
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True, preexec_fn=die_with_parent)
    stderr = bytearray()
    returncode = None
    unread, decoded_at = bytearray(), started
    log_file = None

    def decode() -> None:
        nonlocal decoded_at, log_file
        decoder.feed(bytes(unread))
        unread.clear()
        decoded_at = time.monotonic()
        if progress:
            progress(len(decoder.stream.samples))
        if event_log is not None:
            if log_file is None and event_log.source.is_file():
                log_file = open(event_log.source, "rb")
            if log_file is not None:
                event_log.feed(log_file.read())

    try:
        _widen_pipe(process.stdout.fileno())
        streams = {process.stdout.fileno(): "out", process.stderr.fileno(): "err"}
        while streams:
            remaining = time_limit - (time.monotonic() - started)
            if remaining <= 0:
                break
            ready, _, _ = select.select(list(streams), [], [], min(remaining, 0.25))
            for fd in ready:
                chunk = os.read(fd, PIPE_BYTES)
                if not chunk:
                    del streams[fd]
                elif streams[fd] == "out":
                    unread.extend(chunk)
                else:
                    stderr += chunk
            # decoded in pieces of some size: each call has a fixed cost, and the simulator waits for nobody meanwhile
            if len(unread) >= DECODE_BYTES or time.monotonic() - decoded_at >= 0.2:
                decode()
        if streams:  # still open at the time limit: the firmware hangs or runs away
            end_group(process)  # the simulator and anything it started (its own process group)
        else:
            returncode = process.wait(timeout=10)
        decode()  # the rest, the event log's last lines included
    finally:  # also on an interruption: no simulator outlives the command
        if process.poll() is None:
            end_group(process)  # the simulator and anything it started (its own process group)
        process.stdout.close()
        process.stderr.close()
        if log_file is not None:
            log_file.close()
    return decoder.finish(), returncode, stderr.decode(errors="replace"), time.monotonic() - started


def _widen_pipe(fd: int) -> None:
    """A larger pipe from the simulator: it blocks less often while the decoder works."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (OSError, AttributeError):
        pass  # over /proc/sys/fs/pipe-max-size, or not Linux: the default pipe serves


def run(target: Target, firmware_elf: Path, parameters: list[str], samples: int, time_limit: float,
        progress: Progress | None = None, watch_scope_pin: bool = False,
        watches: list[tuple[int, str]] = (), stop_after: int | None = None,
        interrupt_entry_cycles: int = INTERRUPT_ENTRY_CYCLES, unit: str | None = None,
        stamps: bool = False, trace_window: int | None = None, latency: bool = False,
        more_events: int = 0, switch_word: tuple[int, int, int] | None = None,
        switch_path: tuple[int, ...] = (), memory: MemorySettings = MemorySettings()) -> RunOutput:
    """Run the firmware on the target's simulator until it exits, or until `time_limit` seconds pass.

    `watches`: (code address, name) pairs; every time execution reaches one the
    simulator records the name and the count (instructions executed before it,
    or the cycle it starts at). `watch_scope_pin`: also record every change of
    the board's scope pin (on QEMU from the watches named pin1 and pin0 at the
    pin's two stores, which the scope method supplies). `unit`: what the watches
    count; "cycles" on QEMU counts through the plugin's timing model. `stamps`:
    with cycles on QEMU, also log every read of the stamp timer as "stamp".
    `stop_after`: end the run once that many intervals are complete, from a
    watch named "from" to one named "to". `trace_window` (QEMU): every
    instruction of that interval (0: the first opened), with its count.
    `latency` (the irq-latency scenarios): also log each assertion of the
    board's latency timer as "assert@<address>" (board.toml, [latency_timer]).
    `more_events`: watch events the run may log beyond its samples' allowance
    (the irq-latency tick round's samples each wait a tick period).
    `switch_word` (cycles): (address of a kernel's current-task variable,
    offset of a task's name in what it points to, the name's bytes, 0 for
    none): also log the flow task switches are made of, each with the
    variable's value: on QEMU the exception entries, tail-chains and returns
    to thread mode, and the calls of the `switch_path` functions that are no
    exception handler (a switch made in software); on simavr the interrupts,
    the calls of the `switch_path` functions and the returns to a task
    (entry@, nest@, chain@ and resume@ events); `stop_after` then counts
    switches.
    `memory`: what the run asks of the target's flash model (its wait states, accelerator, cold caches),
    where the target has one and the run counts cycles.
    `interrupt_entry_cycles` exists to show the simavr correction; leave it
    alone otherwise."""
    simulator = simulator_of(target)
    event_limit = (EVENTS_LIMIT_BASE + (LATENCY_EVENTS_PER_SAMPLE if latency else EVENTS_PER_SAMPLE_LIMIT) * samples
                   + more_events)
    with tempfile.TemporaryDirectory(prefix="switchscope-") as scratch:
        request = Request(
            target=target, firmware_elf=firmware_elf, parameters=list(parameters), samples=samples,
            event_log=Path(scratch) / "events.txt", pin_log=Path(scratch) / "pins.txt",
            trace_log=Path(scratch) / "trace.txt", event_limit=event_limit,
            interrupt_entry_cycles=interrupt_entry_cycles, watches=tuple(watches), watch_scope_pin=watch_scope_pin,
            stop_after=stop_after, unit=unit, stamps=stamps, trace_window=trace_window, latency=latency,
            switch_word=switch_word, switch_path=tuple(switch_path), memory=memory)
        command = simulator.start(request)
        name, options = simulator.provenance(request)
        log = EventLog(request.event_log)
        stream, returncode, stderr, seconds = _collect(command, time_limit, progress, log)
        events, events_limited = log.finish() if request.event_log.is_file() else (None, False)
        trace = request.trace_log.read_text().splitlines() if request.trace_log.is_file() else None
        edges = None
        if watch_scope_pin:
            edges, events = simulator.scope_edges(request, events)

    exit_code, stopped = returncode, None
    if returncode is None:
        stopped = f"the firmware did not finish within {time_limit:.0f} s and was stopped"
    else:
        exit_code, stopped = simulator.outcome(returncode, stderr)
    return RunOutput(stream=stream, exit_code=exit_code, stopped=stopped, stderr=stderr, wall_seconds=seconds,
                     simulator=name, options=options, command=command, edges=edges, events=events,
                     events_limited=events_limited, trace=trace)
