"""Running firmware on a simulator and collecting its record stream.

A run is bounded: it ends when the firmware exits, or is stopped at a time
limit (and, on simavr, a cycle budget). Either way the caller gets what the
firmware sent, so a failure can be explained by its last words.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from switchscope import native
from switchscope.catalog import Target
from switchscope.errors import FirmwareFailed, SwitchscopeError
from switchscope.tools import require, version_line
from switchscope.wire import Stream, StreamDecoder

Progress = Callable[[int], None]  # called with the number of samples received so far

QEMU = "qemu-system-arm"
SIMAVR_EXIT_REGISTER = 0x3E  # GPIOR0: where the AVR boards leave their exit code
PARAMETERS_SYMBOL = "board_host_parameters"
PARAMETERS_MAGIC = "ss:"
SCOPE_EDGE_SYMBOLS = (("board_scope_high_edge", 1), ("board_scope_low_edge", 0))  # QEMU boards
SIMAVR_SCOPE_PIN = "B5"  # must match BOARD_SCOPE_PIN of the AVR boards
CYCLES_PER_SAMPLE_BUDGET = 2_000_000  # a sample waits at most two 15 ms ticks (480,000 cycles)
INTERRUPT_ENTRY_CYCLES = 4  # ATmega328P datasheet; simavr 1.6 charges 0 (see switchscope_simavr.c)


@dataclass(frozen=True)
class Edge:
    time: int  # in the target's unit (instructions or cycles) since the start
    level: int


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


def qemu_command(qemu: str, target: Target, elf: Path, parameters: list[str]) -> list[str]:
    # Semihosting carries the parameters in and the exit code out; commas in a
    # QEMU option value are escaped by doubling.
    args = "".join(f",arg={p.replace(',', ',,')}" for p in parameters)
    return [
        qemu, "-machine", target.name, "-display", "none", "-monitor", "none", "-serial", "stdio",
        "-semihosting-config", f"enable=on,target=native{args}",
        # Virtual time advances 2**shift ns per instruction and never with the host clock:
        # the timers then count instructions, and every run is identical.
        "-icount", f"shift={target.icount_shift},sleep=off",
        "-kernel", str(elf),
    ]


def symbol_address(target: Target, elf: Path, symbol: str) -> int:
    """Address of `symbol` in the ELF (data addresses without the AVR's 0x800000 offset)."""
    nm = require(target.gcc[: -len("gcc")] + "nm", target.gcc_package)
    out = subprocess.run([nm, str(elf)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] == symbol:
            value = int(fields[0], 16)
            # AVR data addresses carry a 0x800000 tag; Thumb code addresses may carry bit 0
            return value & 0x7FFFFF if target.simulator == "simavr" else value & ~1
    raise SwitchscopeError(f"{elf} has no symbol {symbol}")


def simavr_command(runner: Path, target: Target, elf: Path, parameters: list[str], samples: int,
                   pin_log: Path | None, pins: tuple[str, ...], interrupt_entry_cycles: int) -> list[str]:
    command = [
        str(runner), "--mcu", target.cpu, "--frequency", str(target.f_cpu_hz), "--firmware", str(elf),
        "--max-cycles", str((samples + 50) * CYCLES_PER_SAMPLE_BUDGET),
        "--exit-register", hex(SIMAVR_EXIT_REGISTER),
        "--interrupt-entry-cycles", str(interrupt_entry_cycles),
        "--parameters-at", hex(symbol_address(target, elf, PARAMETERS_SYMBOL)),
        "--parameters", PARAMETERS_MAGIC + " ".join(parameters),
    ]
    for pin in pins:
        command += ["--pin", pin]
    if pin_log:
        command += ["--pin-log", str(pin_log)]
    return command


def _collect(command: list[str], time_limit: float, progress: Progress | None):
    """Run `command`, decoding its stdout as a record stream, for at most
    `time_limit` seconds. Returns (stream, return code or None if stopped, stderr, seconds)."""
    decoder = StreamDecoder()
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stderr = bytearray()
    returncode = None
    try:
        streams = {process.stdout.fileno(): "out", process.stderr.fileno(): "err"}
        while streams:
            remaining = time_limit - (time.monotonic() - started)
            if remaining <= 0:
                break
            ready, _, _ = select.select(list(streams), [], [], min(remaining, 0.25))
            for fd in ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del streams[fd]
                elif streams[fd] == "out":
                    decoder.feed(chunk)
                    if progress:
                        progress(len(decoder.stream.samples))
                else:
                    stderr += chunk
        if streams:  # still open at the time limit: the firmware hangs or runs away
            process.kill()
            process.wait()
        else:
            returncode = process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()
    return decoder.finish(), returncode, stderr.decode(errors="replace"), time.monotonic() - started


def run(target: Target, elf: Path, parameters: list[str], samples: int, time_limit: float,
        progress: Progress | None = None, watch_scope_pin: bool = False,
        interrupt_entry_cycles: int = INTERRUPT_ENTRY_CYCLES) -> RunOutput:
    """Run `elf` on the target's simulator until it exits, or until `time_limit` seconds pass.
    With `watch_scope_pin` the simulator also records every change of the board's scope pin.
    `interrupt_entry_cycles` exists to show the simavr correction; leave it alone otherwise."""
    with tempfile.TemporaryDirectory(prefix="switchscope-") as scratch:
        trace = Path(scratch) / "scope.txt" if watch_scope_pin else None
        if target.simulator == "qemu":
            qemu = require(QEMU, QEMU)
            command = qemu_command(qemu, target, elf, parameters)
            if trace:
                watches = "".join(f",watch={hex(symbol_address(target, elf, symbol))}:{level}"
                                  for symbol, level in SCOPE_EDGE_SYMBOLS)
                command += ["-plugin", f"{native.qemu_plugin()},out={trace}{watches}"]
            simulator, options = version_line(qemu), f"-icount shift={target.icount_shift},sleep=off"
        else:
            command = simavr_command(native.simavr_runner(), target, elf, parameters, samples, trace,
                                     (SIMAVR_SCOPE_PIN,) if trace else (), interrupt_entry_cycles)
            simulator = f"switchscope-simavr on libsimavr {_simavr_version()}"
            options = f"interrupt entry {interrupt_entry_cycles} cycles, watchdog interrupt mode kept"
        stream, returncode, stderr, seconds = _collect(command, time_limit, progress)
        edges = _read_edges(trace) if trace and trace.is_file() else None

    exit_code, stopped = returncode, None
    if returncode is None:
        stopped = f"did not finish within {time_limit:.0f} s"
    elif target.simulator == "simavr":
        exit_code, stopped = _simavr_outcome(returncode, stderr)
    return RunOutput(stream=stream, exit_code=exit_code, stopped=stopped, stderr=stderr, wall_seconds=seconds,
                     simulator=simulator, options=options, command=command, edges=edges)


def _read_edges(trace: Path) -> list[Edge]:
    """Pin changes from the QEMU plugin ("<count> 1|0") or the simavr runner
    ("<cycle> <pin> 1|0"), keeping only real changes of level."""
    edges, level = [], 0
    for line in trace.read_text().splitlines():
        fields = line.split()
        if fields[-1] not in ("0", "1"):
            continue  # the plugin's closing "<count> end"
        new_level = int(fields[-1])
        if new_level != level:
            edges.append(Edge(int(fields[0]), new_level))
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
        return None, f"ran out of its cycle budget{where}: it never finished"
    if returncode == 11:
        crashed = re.search(r"crashed (pc=\S+)", stderr)
        return None, f"crashed in simavr at {crashed.group(1) if crashed else 'an unknown pc'}"
    return None, f"the simavr runner failed (exit {returncode})"


def check_completed(output: RunOutput, what: str) -> None:
    """Raise FirmwareFailed unless the run ended normally with a complete stream."""
    stream = output.stream
    said = "\n".join(f"    {line}" for line in stream.last_output()) or "    (nothing)"
    received = f"{len(stream.samples)} samples received before it stopped"
    if output.stopped:
        raise FirmwareFailed(
            f"{what}: the firmware {output.stopped} and was stopped ({received}). Its last output:\n{said}",
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
