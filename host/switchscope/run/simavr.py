"""Running firmware on simavr: our runner (host/simavr-runner) links libsimavr,
writes the run's parameters into the board's buffer, passes the UART's bytes
to its stdout, logs the watches and the scope pin, and ends the run at the
firmware's exit register or its cycle budget. What it counts is cycles."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from switchscope.build import native
from switchscope.catalog import Target
from switchscope.decode import elf
from switchscope.run.simulator import (CYCLES_PER_SAMPLE_BUDGET, PARAMETERS_MAGIC, PARAMETERS_SYMBOL, Request,
                                       pin_log_edges)

NAME = "simavr"
UNIT = "cycles"
ELF_MACHINE = "EM_AVR"
COUNTS = "cycles, counted by the simulator"
TRACES_WINDOWS = False  # the runner logs watches only, never every instruction of a window
TIME_LIMIT_PER_SAMPLE_S = 0.002  # the default time limit's allowance per sample: a sample takes well under a millisecond of simavr


def elf_machine(target: Target) -> str:
    """The architecture of the firmware it runs for the target: always ELF_MACHINE."""
    return ELF_MACHINE

INTERRUPT_ENTRY_CYCLES = 4  # ATmega328P datasheet; simavr 1.6 charges 0 (see switchscope_simavr.c)


def command(runner: Path, target: Target, firmware_elf: Path, parameters: list[str], samples: int,
            interrupt_entry_cycles: int) -> list[str]:
    line = [
        str(runner), "--mcu", target.cpu, "--frequency", str(target.f_cpu_hz), "--firmware", str(firmware_elf),
        "--max-cycles", str((samples + 50) * CYCLES_PER_SAMPLE_BUDGET),
        "--exit-register", hex(target.exit_register),
        "--interrupt-entry-cycles", str(interrupt_entry_cycles),
    ]
    address = elf.symbols(firmware_elf).get(PARAMETERS_SYMBOL)
    if address is not None:  # a switchscope firmware; a user's own has no parameters
        line += ["--parameters-at", hex(address), "--parameters", PARAMETERS_MAGIC + " ".join(parameters)]
    return line


def start(request: Request) -> list[str]:
    """The runner, logging the scope pin and the watches where asked."""
    target = request.target
    line = command(native.built("simavr"), target, request.firmware_elf, request.parameters, request.samples,
                   request.interrupt_entry_cycles)
    if request.watch_scope_pin:
        line += ["--pin", target.scope_pin, "--pin-log", str(request.pin_log)]
    if request.watches or request.switch_word:
        line += ["--watch-log", str(request.event_log)]
        for address, name in request.watches:
            line += ["--watch", f"{hex(address)}:{name}"]
        line += ["--limit", str(request.event_limit)]
        if request.switch_word:
            address, name_offset, name_bytes = request.switch_word
            line += ["--switch-word", hex(address)]
            line += [part for function in request.switch_path for part in ("--switch-path", hex(function))]
            if name_bytes:
                line += ["--switch-name", f"{name_offset}:{name_bytes}"]
        if request.stop_after:
            line += ["--stop", str(request.stop_after)]
        if request.latency:
            line += ["--latency-vector", str(target.latency_timer.vector),
                     "--latency-timer", target.latency_timer.simavr_timer]
    return line


def provenance(request: Request) -> tuple[str, str]:
    return (f"switchscope-simavr on libsimavr {_version()}",
            f"interrupt entry {request.interrupt_entry_cycles} cycles, one instruction after sei or reti before "
            "a pending interrupt, watchdog interrupt mode kept")


def _version() -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libsimavr-dev"], capture_output=True, text=True)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


scope_edges = pin_log_edges  # the runner logs the pin's changes itself


def outcome(returncode: int, stderr: str) -> tuple[int | None, str | None]:
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
