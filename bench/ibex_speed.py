#!/usr/bin/env python3
"""How fast the RTL targets measure (Ibex's, and with --targets vexriscv
VexRiscv's): 10,000 `yield` samples with `switchscope run` (wall time, the
model and firmware built first), and the harness alone on the same firmware:
the cycles it simulated, its CPU time and so the simulated cycles per CPU
second; and how long Verilator took to build each target's model (as cached
in build/ibex/ or build/vexriscv/, or with --rebuild a fresh build in a
scratch folder); and `ibex` behind its slow RAM (--config
fetch_wait_states), whose windows take more cycles to simulate.

    python3 bench/ibex_speed.py [--samples 10000] [--rounds 3] [--rebuild] [--targets ibex,vexriscv]

Prints two Markdown tables: per target, and per target and fetch wait states, the
medians of the rounds with their range.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from checkout import CHECKOUT, switchscope_command

sys.path.insert(0, str(CHECKOUT / "host"))

from switchscope import catalog  # noqa: E402
from switchscope.build import rtl_cores  # noqa: E402
from switchscope.build.firmware import build  # noqa: E402
from switchscope.catalog.memory import MemorySettings  # noqa: E402
from switchscope.run.runner import run  # noqa: E402

TARGETS = ("ibex", "ibex-maxperf")
FETCH_WAIT_STATES = (0, 5)  # none, and a RAM as slow as a flash at full clock


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def harness_alone(target: catalog.Target, samples: int, memory: MemorySettings = MemorySettings()) -> tuple[int, float]:
    """(cycles simulated, CPU seconds) of the harness running the yield firmware for `samples` samples."""
    firmware = build(catalog.KERNELS["freertos"], target, catalog.SCENARIOS["yield"])
    before = children_cpu()
    output = run(target, firmware.elf, [f"samples={samples}"], samples, time_limit=600, memory=memory)
    seconds = children_cpu() - before
    cycles = re.search(r"after (\d+) cycles", output.stderr)
    if output.exit_code != 0 or cycles is None:
        raise SystemExit(f"{target.name}: the run failed: {output.stopped or output.stderr[-300:]}")
    return int(cycles.group(1)), seconds


def end_to_end(target: str, samples: int, options: tuple[str, ...] = ()) -> float:
    started = time.monotonic()
    subprocess.run([*switchscope_command(), "run", "--target", target, "--scenario", "yield", "--samples",
                    str(samples), "--quiet", *(f"--config={option}" for option in options)],
                   check=True, capture_output=True)
    return time.monotonic() - started


def model_build_seconds(config: str, fresh: bool) -> float:
    """Verilator's wall time building the configuration's model: the cached model's, or a fresh build's."""
    if not fresh:
        return float((rtl_cores.ensure(config).parent / "build-seconds.txt").read_text())
    kept = os.environ.get("SWITCHSCOPE_BUILD")
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["SWITCHSCOPE_BUILD"] = scratch
        try:
            return float((rtl_cores.ensure(config).parent / "build-seconds.txt").read_text())
        finally:
            if kept is None:
                del os.environ["SWITCHSCOPE_BUILD"]
            else:
                os.environ["SWITCHSCOPE_BUILD"] = kept


def spread(values: list[float], form: str) -> str:
    return f"{format(statistics.median(values), form)} ({format(min(values), form)}-{format(max(values), form)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true", help="time a fresh build of each model in a scratch folder")
    parser.add_argument("--targets", default=",".join(TARGETS), help="a comma list of targets on Verilator")
    args = parser.parse_args()
    rows = []
    for name in args.targets.split(","):
        end_to_end(name, 100)  # builds the model and the firmware: no round below includes a build
        walls, rates, simulated = [], [], 0
        for _ in range(args.rounds):
            walls.append(end_to_end(name, args.samples))
            simulated, cpu = harness_alone(catalog.TARGETS[name], args.samples)
            rates.append(simulated / cpu / 1e6)
        built = model_build_seconds(catalog.TARGETS[name].core_config, args.rebuild)
        rows.append(f"| {name} | {spread(walls, '.1f')} | {simulated:,} | {spread(rates, '.2f')} | {built:.0f} |")
    print(f"| target | `switchscope run --scenario yield --samples {args.samples:,}` s | cycles simulated "
          f"| million cycles per CPU s | model build s ({'fresh' if args.rebuild else 'as cached'}) |")
    print("|---|--:|--:|--:|--:|")
    print("\n".join(rows))
    print()
    print(slow_memory_table(args.targets.split(","), args.samples, args.rounds))
    return 0


def slow_memory_table(targets: list[str], samples: int, rounds: int) -> str:
    """Each target's speed behind its slow RAM: yield samples per wall second end to end, the cycles a sample
    takes to simulate, and the harness's simulated cycles per CPU second."""
    rows = []
    for name in targets:
        for wait_states in FETCH_WAIT_STATES:
            memory = MemorySettings(fetch_wait_states=wait_states)
            rates, speeds, simulated = [], [], 0
            for _ in range(rounds):
                rates.append(samples / end_to_end(name, samples, (f"fetch_wait_states={wait_states}",)))
                simulated, cpu = harness_alone(catalog.TARGETS[name], samples, memory)
                speeds.append(simulated / cpu / 1e6)
            rows.append(f"| {name} | {wait_states} | {spread(rates, ',.0f')} | {simulated / samples:,.0f} "
                        f"| {spread(speeds, '.2f')} |")
    return "\n".join([f"| target | fetch wait states | yield samples per s (`run --samples {samples:,}`) "
                      "| cycles simulated per sample | million cycles per CPU s |", "|---|--:|--:|--:|--:|", *rows])


if __name__ == "__main__":
    sys.exit(main())
