#!/usr/bin/env python3
"""What the flash model (host/qemu-plugin/flash_memory.c) costs in run time:
FreeRTOS `yield` on netduinoplus2 in cycles, the same firmware measured
without the model and with it (the board's [flash], or where the board gives
none an STM32F405's: 5 wait states, prefetch, an I-cache of 64 lines of 128
bits, a D-cache of 8, FLASH_ACR followed).

    python3 bench/flash_model_speed.py [--samples 1000000] [--rounds 1]

Prints one Markdown table: wall seconds of each measurement (the firmware built
before), samples a second, and the model's cost in %.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time

from checkout import CHECKOUT

sys.path.insert(0, str(CHECKOUT / "host"))

from switchscope import catalog  # noqa: E402
from switchscope.build.firmware import build  # noqa: E402
from switchscope.catalog.job import Job  # noqa: E402
from switchscope.catalog.memory import Cache, Flash  # noqa: E402
from switchscope.figures.measure import measure  # noqa: E402

STM32F405_FLASH = Flash(start=0x0800_0000, size=1 << 20, read_bytes=16, wait_states=5,
                        wait_states_source="RM0090 Table 10", prefetch=True, icache=Cache(64, 16, 64),
                        dcache=Cache(8, 16, 8), register=0x4002_3C00, register_layout="stm32f4", manual="RM0090")


def timed(target: catalog.Target, samples: int) -> tuple[float, float]:
    """(wall seconds, median cycles) of one measurement of `samples` yield samples."""
    job = Job(catalog.KERNELS["freertos"], target, catalog.SCENARIOS["yield"], catalog.METHODS["marker"],
              unit="cycles")
    started = time.monotonic()
    result = measure(job, samples=samples)
    return time.monotonic() - started, result.stats.median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    board = catalog.TARGETS["netduinoplus2"]
    without = dataclasses.replace(board, flash=None)
    with_model = board if board.flash else dataclasses.replace(board, flash=STM32F405_FLASH)
    job = Job(catalog.KERNELS["freertos"], board, catalog.SCENARIOS["yield"], catalog.METHODS["marker"])
    build(job.kernel, job.target, job.scenario, job.method, job.resolved_config())  # built once, outside the times
    rows = {}
    for label, target in (("without the flash model", without), ("with the flash model", with_model)):
        rounds = [timed(target, args.samples) for _ in range(args.rounds)]
        rows[label] = (statistics.median(seconds for seconds, _ in rounds), rounds[0][1])
    base = rows["without the flash model"][0]
    print(f"FreeRTOS yield on netduinoplus2, {args.samples:,} samples, marker method, median of {args.rounds} "
          f"round(s); with the model: {with_model.flash.accelerator()}, {with_model.flash.wait_states} WS")
    print("| run | wall s | samples/s | yield median (cycles) | cost |")
    print("|---|---|---|---|---|")
    for label, (seconds, median) in rows.items():
        print(f"| {label} | {seconds:.1f} | {args.samples / seconds:,.0f} | {median:g} | "
              f"{100 * (seconds - base) / base:+.1f}% |")


if __name__ == "__main__":
    main()
