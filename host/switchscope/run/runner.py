"""Running firmware on a simulator and collecting its record stream.

A run is bounded: it ends when the firmware exits, or is stopped at a time
limit (and, on simavr, a cycle budget). Either way the caller gets what the
firmware sent, so a failure can be explained by its last words.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import re
import select
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

from switchscope.build import native
from switchscope.catalog import Target
from switchscope.common.errors import FirmwareFailed
from switchscope.common.tools import require, version_line
from switchscope.decode import elf
from switchscope.decode.event_log import EventLog
from switchscope.decode.recording import Edge, RunOutput
from switchscope.decode.wire import StreamDecoder
from switchscope.run import verilator

Progress = Callable[[int], None]  # called with the number of samples received so far

QEMU = "qemu-system-arm"
PARAMETERS_SYMBOL = "board_host_parameters"
PARAMETERS_MAGIC = "ss:"
LATENCY_ARM_SYMBOL = "board_latency_timer_arm"  # board.h: where the irq-latency scenarios arm the latency timer
SCOPE_EDGE_EVENTS = {"pin1": 1, "pin0": 0}  # QEMU: the watches at the scope pin's two stores (Scope.watches)
CYCLES_PER_SAMPLE_BUDGET = 2_000_000
EVENTS_PER_SAMPLE_LIMIT = 8  # watch events a run may log per sample requested (a window needs 2 to 4)
# irq-latency: a sample waits up to a round of its sweep (4,096 steps), a pass of the loop's top logged at each
# of the loop's iterations (the shortest here, the floor kernel's, is about 100 steps)
LATENCY_EVENTS_PER_SAMPLE = 64
EVENTS_LIMIT_BASE = 10_000  # a sample waits at most two 15 ms ticks (480,000 cycles)
INTERRUPT_ENTRY_CYCLES = 4  # ATmega328P datasheet; simavr 1.6 charges 0 (see switchscope_simavr.c)
PR_SET_PDEATHSIG = 1  # linux/prctl.h
PIPE_BYTES = 1 << 20  # Linux's default /proc/sys/fs/pipe-max-size
DECODE_BYTES = 1 << 18


# Run here, a board that can send its record stream in batches through semihosting does (mps2-an385's board.c);
# its image read over its UART as a board's sends it there.
BATCHED_STREAM = "stream=semihosting"


def qemu_command(qemu: str, target: Target, firmware_elf: Path, parameters: list[str]) -> list[str]:
    # Semihosting carries the parameters in and the exit code out; commas in a
    # QEMU option value are escaped by doubling.
    args = "".join(f",arg={p.replace(',', ',,')}" for p in parameters)
    return [
        qemu, "-machine", target.name, "-display", "none", "-monitor", "none", "-serial", "stdio",
        "-semihosting-config", f"enable=on,target=native{args}",
        # Virtual time advances 2**shift ns per instruction and never with the host clock:
        # the timers then count instructions, and every run is identical.
        "-icount", f"shift={target.icount_shift},sleep=off",
        "-kernel", str(firmware_elf),
    ]


def simavr_command(runner: Path, target: Target, firmware_elf: Path, parameters: list[str], samples: int,
                   interrupt_entry_cycles: int) -> list[str]:
    command = [
        str(runner), "--mcu", target.cpu, "--frequency", str(target.f_cpu_hz), "--firmware", str(firmware_elf),
        "--max-cycles", str((samples + 50) * CYCLES_PER_SAMPLE_BUDGET),
        "--exit-register", hex(target.exit_register),
        "--interrupt-entry-cycles", str(interrupt_entry_cycles),
    ]
    address = elf.symbols(firmware_elf).get(PARAMETERS_SYMBOL)
    if address is not None:  # a switchscope firmware; a user's own has no parameters
        command += ["--parameters-at", hex(address), "--parameters", PARAMETERS_MAGIC + " ".join(parameters)]
    return command


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
            _end(process)
        else:
            returncode = process.wait(timeout=10)
        decode()  # the rest, the event log's last lines included
    finally:  # also on an interruption: no simulator outlives the command
        if process.poll() is None:
            _end(process)
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


def die_with_parent(signal_number: int = signal.SIGKILL) -> None:
    """In a child process (a simulator before it starts, a sweep's worker):
    Linux sends it `signal_number` when the process that started it dies,
    however that dies, even by SIGKILL, which leaves no chance to clean up."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal_number)
    except (OSError, AttributeError):
        pass  # not Linux: the parent's own clean-up still ends it


def _end(process: subprocess.Popen) -> None:
    """Kill the simulator and anything it started (its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run(target: Target, firmware_elf: Path, parameters: list[str], samples: int, time_limit: float,
        progress: Progress | None = None, watch_scope_pin: bool = False,
        watches: list[tuple[int, str]] = (), stop_after: int | None = None,
        interrupt_entry_cycles: int = INTERRUPT_ENTRY_CYCLES, unit: str | None = None,
        stamps: bool = False, trace_window: int | None = None, latency: bool = False,
        more_events: int = 0, switch_word: tuple[int, int, int] | None = None,
        switch_path: tuple[int, ...] = ()) -> RunOutput:
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
    `interrupt_entry_cycles` exists to show the simavr correction; leave it
    alone otherwise."""
    watches = list(watches)
    event_limit = (EVENTS_LIMIT_BASE + (LATENCY_EVENTS_PER_SAMPLE if latency else EVENTS_PER_SAMPLE_LIMIT) * samples
                   + more_events)
    with tempfile.TemporaryDirectory(prefix="switchscope-") as scratch:
        pin_log = Path(scratch) / "pins.txt"
        event_log = Path(scratch) / "events.txt"
        trace_log = Path(scratch) / "trace.txt"
        if target.simulator == "qemu":
            qemu = require(QEMU, QEMU)
            command = qemu_command(qemu, target, firmware_elf, [*parameters, BATCHED_STREAM])
            cycles = (unit or target.unit) == "cycles"
            if watches or (cycles and stamps) or switch_word:
                arguments = "".join(f",watch={hex(address)}:{name}" for address, name in watches)
                if latency:
                    symbols = elf.symbols(firmware_elf)
                    handler = symbols[target.latency_timer.handler]
                    arguments += f",latency_irq={target.latency_timer.irq},latency_handler={hex(handler)}"
                    if LATENCY_ARM_SYMBOL in symbols:  # pending no sooner than the delay it is armed with runs out
                        counts = target.counts_per_unit(target.latency_timer.clock_hz)
                        arguments += (f",latency_arm={hex(symbols[LATENCY_ARM_SYMBOL])}"
                                      f",latency_counts={counts.numerator}/{counts.denominator}")
                arguments += f",limit={event_limit}"
                if stop_after:
                    arguments += f",stop={stop_after}"
                if cycles:
                    arguments += f",unit=cycles,core={target.timing_model}"
                    handlers = elf.exception_handlers(firmware_elf)
                    arguments += "".join(f",handler={hex(a)}" for a in handlers)
                    if stamps:
                        arguments += f",stamp={hex(target.stamp_address)}"
                    if switch_word:
                        address, name_offset, name_bytes = switch_word
                        arguments += f",switch_word={hex(address)}"
                        if name_bytes:
                            arguments += f",switch_name={name_offset}:{name_bytes}"
                        # a switching function that task code calls (no exception): the plugin follows its range
                        ends = {start: end for start, end, _ in elf.functions(firmware_elf)}
                        arguments += "".join(f",switch_call={hex(a)}:{hex(ends[a])}" for a in switch_path
                                             if a not in handlers and a in ends)
                if trace_window is not None:
                    arguments += f",trace={trace_log},trace_window={trace_window}"
                command += ["-plugin", f"{native.built('qemu')},out={event_log}{arguments}"]
            simulator, options = version_line(qemu), f"-icount shift={target.icount_shift},sleep=off"
            if cycles:
                options += f"; cycles from the {target.timing_model} timing model (switchscope plugin)"
        elif target.simulator == "verilator":
            command = verilator.command(target, firmware_elf, parameters, samples, watches,
                                        event_log if watches else None, event_limit, stop_after,
                                        pin_log if watch_scope_pin else None)
            simulator, options = verilator.provenance(target)
        else:
            command = simavr_command(native.built("simavr"), target, firmware_elf, parameters, samples,
                                     interrupt_entry_cycles)
            if watch_scope_pin:
                command += ["--pin", target.scope_pin, "--pin-log", str(pin_log)]
            if watches or switch_word:
                command += ["--watch-log", str(event_log)]
                for address, name in watches:
                    command += ["--watch", f"{hex(address)}:{name}"]
                command += ["--limit", str(event_limit)]
                if switch_word:
                    address, name_offset, name_bytes = switch_word
                    command += ["--switch-word", hex(address)]
                    command += [part for function in switch_path for part in ("--switch-path", hex(function))]
                    if name_bytes:
                        command += ["--switch-name", f"{name_offset}:{name_bytes}"]
                if stop_after:
                    command += ["--stop", str(stop_after)]
                if latency:
                    command += ["--latency-vector", str(target.latency_timer.vector),
                                "--latency-timer", target.latency_timer.simavr_timer]
            simulator = f"switchscope-simavr on libsimavr {_simavr_version()}"
            options = (f"interrupt entry {interrupt_entry_cycles} cycles, one instruction after sei or reti before "
                       "a pending interrupt, watchdog interrupt mode kept")
        log = EventLog(event_log)
        stream, returncode, stderr, seconds = _collect(command, time_limit, progress, log)
        events, events_limited = log.finish() if event_log.is_file() else (None, False)
        trace = trace_log.read_text().splitlines() if trace_log.is_file() else None
        edges = None
        if watch_scope_pin and target.simulator == "qemu" and events is not None:
            edges = _edges([(e.time, SCOPE_EDGE_EVENTS[e.name], e.least, e.most) for e in events
                            if e.name in SCOPE_EDGE_EVENTS])
            events = events.without(SCOPE_EDGE_EVENTS)
        elif watch_scope_pin and pin_log.is_file():
            edges = _edges([(int(f[0]), int(f[2])) for f in (line.split() for line in pin_log.read_text().splitlines())])

    exit_code, stopped = returncode, None
    if returncode is None:
        stopped = f"the firmware did not finish within {time_limit:.0f} s and was stopped"
    elif target.simulator == "simavr":
        exit_code, stopped = _simavr_outcome(returncode, stderr)
    elif target.simulator == "verilator":
        exit_code, stopped = verilator.outcome(returncode, stderr)
    return RunOutput(stream=stream, exit_code=exit_code, stopped=stopped, stderr=stderr, wall_seconds=seconds,
                     simulator=simulator, options=options, command=command, edges=edges, events=events,
                     events_limited=events_limited, trace=trace)


def _edges(changes: list[tuple]) -> list[Edge]:
    """Only the real changes of level, from a pin that starts low: (time, level[, least, most]) each."""
    edges, level = [], 0
    for time, new_level, *bounds in changes:
        if new_level != level:
            edges.append(Edge(time, new_level, *bounds))
            level = new_level
    return edges


def _simavr_version() -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libsimavr-dev"], capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _simavr_outcome(returncode: int, stderr: str) -> tuple[int | None, str | None]:
    """The firmware's exit code, or why simavr stopped it, from the runner's last word."""
    done = re.search(r"switchscope-simavr: done code=(\d+)", stderr)
    if returncode == 0 and done:
        return int(done.group(1)), None
    if returncode == 10:
        cycles = re.search(r"budget (pc=\S+) cycles=(\d+)", stderr)
        where = f" ({cycles.group(1)})" if cycles else ""
        return None, f"the firmware ran out of its cycle budget{where} and was stopped: it never finished"
    if returncode == 11:
        crashed = re.search(r"crashed (pc=\S+)", stderr)
        return None, f"the firmware crashed in simavr at {crashed.group(1) if crashed else 'an unknown pc'}"
    last = stderr.strip().splitlines()[-1] if stderr.strip() else "no message"
    return None, f"the simavr runner failed (exit {returncode}): {last}"


def check_completed(output: RunOutput, what: str) -> None:
    """Raise FirmwareFailed unless the run ended normally with a complete stream."""
    stream = output.stream
    said = "\n".join(f"    {line}" for line in stream.last_output()) or "    (nothing)"
    received = f"{len(stream.samples)} samples received before it stopped"
    if output.stopped:
        raise FirmwareFailed(
            f"{what}: {output.stopped} ({received}). Its last output:\n{said}",
            "a scenario that never ends is a bug in it or in the kernel port; --timeout raises the limit for long runs",
        )
    if stream.fault:
        raise FirmwareFailed(f"{what}: the firmware failed: {stream.fault} ({received}). Its last output:\n{said}")
    if stream.resets:
        raise FirmwareFailed(f"{what}: the firmware restarted {stream.resets} time(s) ({received}): it ran away "
                             f"and reached its reset vector. Its last output:\n{said}")
    if output.exit_code != 0:
        tail = "\n".join(f"    {line}" for line in output.stderr.strip().splitlines()[-8:]) or "    (nothing)"
        raise FirmwareFailed(
            f"{what}: the simulator exited with code {output.exit_code} ({received}).\n"
            f"  simulator said:\n{tail}\n  firmware's last output:\n{said}"
        )
    if not stream.complete:
        problems = "; ".join(str(p) for p in stream.problems[-3:]) or "no end record"
        raise FirmwareFailed(f"{what}: the sample stream is incomplete ({received}): {problems}")
