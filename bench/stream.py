#!/usr/bin/env python3
"""What a sample costs on QEMU against what QEMU costs: a million FreeRTOS `yield` samples on mps2-an385,
end to end (`switchscope run`, in cycles) and the simulator alone, against a gauge of 200 million plain
instructions (bench/firmware/gauge.c) run as a run counts them: QEMU with switchscope's plugin timing every
instruction in cycles; and bare. The yardstick: end to end over the gauge. The four are timed in turn,
`--repeat` rounds (default 5), and each one's median kept; one run on a 2-core machine varies by a tenth, so the
end-to-end ratio is also given round by round (lowest and highest), each round's runs having shared its load.

    python3 bench/stream.py [--samples 1000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from checkout import CHECKOUT, switchscope_command

sys.path.insert(0, str(CHECKOUT / "host"))

from switchscope import catalog  # noqa: E402
from switchscope.build.firmware import build  # noqa: E402
from switchscope.common.tools import require  # noqa: E402
from switchscope.run import qemu  # noqa: E402


def timed(command: list[str]) -> tuple[float, int]:
    """One run's wall time, and the bytes it wrote to stdout."""
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.monotonic() - started, len(done.stdout)


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--samples", type=int, default=1_000_000)
    options.add_argument("--repeat", type=int, default=5)
    args = options.parse_args()
    kernel, target = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"]
    binary = require(qemu.QEMU, qemu.QEMU)
    gauge = build(kernel, target, catalog.Scenario("gauge", "200 M instructions", source=CHECKOUT / "bench" /
                                                   "firmware" / "gauge.c"))
    switchscope = switchscope_command()
    firmware = build(kernel, target, catalog.SCENARIOS["yield"])
    commands = {
        "bare": qemu.command(binary, target, gauge.elf, []),
        # as a run counts it: QEMU with the plugin timing every instruction in cycles (switchscope measure)
        "gauge": [*switchscope, "measure", str(gauge.elf), "--target", target.name, "--from", "setup", "--to",
                  "board_exit", "--count", "1"],
        "alone": qemu.command(binary, target, firmware.elf, [f"samples={args.samples}", qemu.BATCHED_STREAM]),
        "end_to_end": [*switchscope, "run", "--scenario", "yield", "--samples", str(args.samples), "--quiet"],
    }
    rounds: dict[str, list[float]] = {name: [] for name in commands}
    stream = 0
    for _ in range(max(1, args.repeat)):
        for name, command in commands.items():
            seconds, written = timed(command)
            rounds[name].append(seconds)
            if name == "alone":
                stream = written
    bare, gauge_seconds, alone, end_to_end = (statistics.median(rounds[name]) for name in commands)
    ratios = [total / gauge for total, gauge in zip(rounds["end_to_end"], rounds["gauge"])]
    print("| what | seconds | x gauge |")
    print("|---|--:|--:|")
    print(f"| gauge: 200 M instructions, QEMU with the plugin in cycles (switchscope measure) | {gauge_seconds:.2f} "
          "| 1 |")
    print(f"| the same, bare QEMU | {bare:.2f} | {bare / gauge_seconds:.2f} |")
    print(f"| yield, {args.samples:,} samples: QEMU alone ({stream / args.samples:.1f} bytes a sample) | "
          f"{alone:.1f} | {alone / gauge_seconds:.1f} |")
    print(f"| yield, {args.samples:,} samples: switchscope run, end to end | {end_to_end:.1f} | "
          f"{end_to_end / gauge_seconds:.1f} |")
    print(f"\nend to end over the gauge, round by round: {min(ratios):.1f} to {max(ratios):.1f} ({len(ratios)} rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
