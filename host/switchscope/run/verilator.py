"""Running firmware on a core's RTL under Verilator: Ibex's simple_system
model (built by build/verilator.py) or a VexRiscv core (build/vexriscv.py),
each with our testbench, host/verilator-harness/ (harness.cc, vexriscv.cc:
the same command line, the same logs).

What it counts is clock cycles of the RTL itself, exactly: no timing model
stands between the core and the count. Its watch log has the QEMU plugin's
and the simavr runner's "<count> <name>" lines, the count being the mcycle
value at the watched instruction's retirement (what a `csrr mcycle` there reads).
With watches the harness also logs each raising of its latency timer's line
("<cycle> assert@<address>", the irq-latency scenarios' event), in cycle order.
With a switch_word it logs the trap flow (entry@, nest@, chain@, resume@; the
harness's usage describes them), each interrupt as its vector then a chain@ to
the handler that vector jumps to."""

from __future__ import annotations

import re
from pathlib import Path

from switchscope.build import rtl_cores
from switchscope.catalog import Target
from switchscope.catalog.memory import MemorySettings
from switchscope.decode import elf
from switchscope.run.simulator import (CYCLES_PER_SAMPLE_BUDGET, PARAMETERS_MAGIC, PARAMETERS_SYMBOL, Request,
                                       pin_log_edges)

NAME = "verilator"
UNIT = "cycles"
ELF_MACHINE = "EM_RISCV"
COUNTS = "cycles of the core's RTL, counted by Verilator"
TRACES_WINDOWS = True  # breakdown: the harness logs every instruction of one window (--window-trace)
# The longest run a count may ask for without a --timeout (figures/measure.py refuses one that would last longer):
# at TIME_LIMIT_PER_SAMPLE_S, 358,000 samples: the RTL measures about 760 yield samples a second (docs/measurement.md)
LONGEST_RUN_S = 3600.0
TIME_LIMIT_PER_SAMPLE_S = 0.01  # the default time limit's allowance per sample: the RTL runs a few million cycles a second: deadlock-break takes about 3 ms a sample, more on a busy machine


def elf_machine(target: Target) -> str:
    """The architecture of the firmware it runs for the target: always ELF_MACHINE."""
    return ELF_MACHINE


def command(target: Target, firmware_elf: Path, parameters: list[str], samples: int,
            watches: list[tuple[int, str]], event_log: Path | None, event_limit: int,
            stop_after: int | None, pin_log: Path | None = None, trace_log: Path | None = None,
            trace_window: int = 0, switch_word: tuple[int, int, int] | None = None,
            switch_path: tuple[int, ...] = (), memory: MemorySettings = MemorySettings()) -> list[str]:
    """The harness's command line: the model of the target's configuration, built first if need be."""
    binary = rtl_cores.ensure(target.core_config)
    line = [str(binary), "--max-cycles", str((samples + 50) * CYCLES_PER_SAMPLE_BUDGET * memory.slowest_access)]
    if memory.slow:
        line += ["--fetch-wait-states", str(memory.fetch_wait_states),
                 "--data-wait-states", str(memory.data_wait_states)]
    address = elf.symbols(firmware_elf).get(PARAMETERS_SYMBOL)
    if address is not None:  # a switchscope firmware; a user's own has no parameters
        line += ["--parameters-at", hex(address), "--parameters", PARAMETERS_MAGIC + " ".join(parameters)]
    if event_log is not None:
        line += ["--log", str(event_log), "--limit", str(event_limit)]
        for address, name in watches:
            line += ["--watch", f"{name}={hex(address)}"]
        if stop_after:
            line += ["--stop", str(stop_after)]
        if switch_word:  # measure --switches: the trap flow, with the current-task variable
            address, name_offset, name_bytes = switch_word
            line += ["--switch-word", hex(address)]
            if name_bytes:
                line += ["--switch-name", f"{name_offset}:{name_bytes}"]
            line += [part for function in switch_path for part in ("--switch-path", hex(function))]
        if trace_log is not None:  # breakdown: every instruction of one window, with its cycle
            line += ["--window-trace", str(trace_log), "--window", str(trace_window)]
    if pin_log is not None:  # the scope: the board's stores to simple_system's pin register
        line += ["--pin", target.scope_pin, "--pin-log", str(pin_log)]
    return [*line, str(firmware_elf)]


def start(request: Request) -> list[str]:
    """The harness's command line for a run as runner.run asks for it (run/simulator.py)."""
    return command(request.target, request.firmware_elf, request.parameters, request.samples,
                   list(request.watches), request.event_log if request.watches or request.switch_word else None,
                   request.event_limit, request.stop_after, request.pin_log if request.watch_scope_pin else None,
                   request.trace_log if request.trace_window is not None else None, request.trace_window or 0,
                   request.switch_word, request.switch_path, request.memory)


def provenance(request: Request) -> tuple[str, str]:
    """(simulator, its options) for a result's record: the core's version and configuration and Verilator's."""
    target = request.target
    _key, core_version, verilator_version = rtl_cores.builder(target.core_config).model_key(target.core_config)
    memory = request.memory
    slow = (f", its RAM {memory.fetch_wait_states}/{memory.data_wait_states} fetch/data wait states"
            if memory.slow else "")
    if rtl_cores.is_vexriscv(target.core_config):
        return (f"VexRiscv {core_version} ({target.core_config}) RTL on Verilator {verilator_version}",
                f"cycles of the RTL (the core and its caches, switchscope's testbench as its RAM and devices{slow}), "
                "no timing model")
    return (f"Ibex {core_version} ({target.core_config}) RTL on Verilator {verilator_version}",
            f"cycles of the RTL (simple_system, switchscope harness{slow}), no timing model")


scope_edges = pin_log_edges  # the harness logs the pin's changes itself


def outcome(returncode: int, stderr: str) -> tuple[int | None, str | None]:
    """The firmware's exit code, or why the harness stopped it, from its last word."""
    halted = re.search(r"(?:ibex|vexriscv)-sim: halted code=(\d+)", stderr)
    if returncode == 0 and halted:
        return int(halted.group(1)), None
    if returncode == 0 and "stop or limit reached" in stderr:
        return 0, None
    if returncode == 1 and "cycle bound reached" in stderr:
        cycles = re.search(r"after (\d+) cycles", stderr)
        return None, (f"the firmware ran out of its cycle budget ({cycles.group(1) if cycles else '?'} cycles) "
                      "and was stopped: it never finished")
    last = stderr.strip().splitlines()[-1] if stderr.strip() else "no message"
    return None, f"the Verilator harness failed (exit {returncode}): {last}"
