#!/usr/bin/env python3
"""What a sample costs on QEMU, and where the time goes: a million FreeRTOS `yield` samples on mps2-an385,
against a gauge of 200 million plain instructions (bench/firmware/gauge.c).

The gauge runs twice: bare QEMU with icount, as every run starts it; and as a run counts it, QEMU with
switchscope's plugin timing every instruction in cycles (`switchscope measure`). The million samples run as
a profile: the floor kernel's, then FreeRTOS's, each row after that adding one part of what a run asks for:

  yield on the floor kernel    bare QEMU running the floor kernel's `yield` (the least a switch can cost): what
                               the harness and the scenario's exceptions cost QEMU, whatever the kernel
  yield on FreeRTOS            bare QEMU running FreeRTOS's, the record stream to a pipe
  + the plugin counting        the plugin loaded, counting instructions only
  + the timing model           the plugin timing each instruction in cycles (the Cortex-M3 model, its handlers)
  + the probe's stamps         the plugin logging each read of the probe's timer: all a run asks of QEMU
  switchscope run, in cycles   the default unit, end to end: QEMU, the host's decoder and its statistics
  switchscope run --unit instructions   no plugin: the probe reads the timer icount drives

Each is timed `--repeat` rounds (default 3) in turn and its median kept, in wall seconds and in the CPU
seconds of its processes (user and system): on a 2-core machine the host decodes on the second core while
QEMU runs, so an end-to-end run's wall time is less than its CPU time, and the CPU time is the steadier of
the two when something else shares the machine.

    python3 bench/stream.py [--samples 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkout import CHECKOUT, switchscope_command

sys.path.insert(0, str(CHECKOUT / "host"))

from switchscope import catalog  # noqa: E402
from switchscope.build.firmware import build  # noqa: E402
from switchscope.common.tools import require  # noqa: E402
from switchscope.run import qemu  # noqa: E402
from switchscope.run.simavr import INTERRUPT_ENTRY_CYCLES  # noqa: E402
from switchscope.run.simulator import Request  # noqa: E402


def timed(command: list[str]) -> tuple[float, float, int]:
    """One run's wall time, the CPU time of its processes, and the bytes it wrote to stdout."""
    before = os.times()
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    wall = time.monotonic() - started
    after = os.times()
    if done.returncode != 0:
        sys.exit(f"stream.py: {' '.join(command[:3])} ... ended with status {done.returncode}")
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system), \
        len(done.stdout)


BARE_GAUGE = "gauge: bare QEMU with icount"
PLUGIN_GAUGE = "gauge: QEMU with the plugin in cycles (switchscope measure)"
FLOOR = "yield on the floor kernel, bare QEMU"
ALONE = "yield on FreeRTOS, bare QEMU"
EVERYTHING = "+ the probe's stamps: all a run asks of QEMU"
CYCLES_RUN = "switchscope run, in cycles, end to end"
INSTRUCTIONS_RUN = "switchscope run --unit instructions, end to end"


def profile_commands(firmware_elf: Path, samples: int, scratch: Path) -> dict[str, list[str]]:
    """The firmware in QEMU with, row by row, one more part of what `switchscope run` asks of the plugin.

    The last is the command a cycles run starts (qemu.start with the probe's stamps); the rows before it
    drop, from its plugin arguments, the stamps and then the timing model."""
    target = catalog.TARGETS["mps2-an385"]
    full = qemu.start(Request(
        target=target, firmware_elf=firmware_elf, parameters=[f"samples={samples}"], samples=samples,
        event_log=scratch / "events.txt", pin_log=scratch / "pins.txt", trace_log=scratch / "trace.txt",
        event_limit=2 * samples + 1000, interrupt_entry_cycles=INTERRUPT_ENTRY_CYCLES, unit="cycles",
        stamps=True))
    plugin = full[-1]
    bare = full[:-2]
    model = ",".join(part for part in plugin.split(",") if not part.startswith("stamp="))
    counting = plugin.split(",unit=cycles")[0]
    return {
        ALONE: bare,
        "+ the plugin counting instructions": [*bare, "-plugin", counting],
        "+ the timing model (cycles)": [*bare, "-plugin", model],
        EVERYTHING: full,
    }


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--samples", type=int, default=1_000_000)
    options.add_argument("--repeat", type=int, default=3)
    args = options.parse_args()
    kernel, target = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"]
    binary = require(qemu.QEMU, qemu.QEMU)
    gauge = build(kernel, target, catalog.Scenario("gauge", "200 M instructions", source=CHECKOUT / "bench" /
                                                   "firmware" / "gauge.c"))
    switchscope = switchscope_command()
    firmware = build(kernel, target, catalog.SCENARIOS["yield"])
    floor = build(catalog.KERNELS["floor"], target, catalog.SCENARIOS["yield"])
    run = [*switchscope, "run", "--scenario", "yield", "--samples", str(args.samples), "--quiet"]
    with tempfile.TemporaryDirectory(prefix="stream-") as scratch:
        commands = {
            BARE_GAUGE: qemu.command(binary, target, gauge.elf, []),
            PLUGIN_GAUGE: [
                *switchscope, "measure", str(gauge.elf), "--target", target.name, "--from", "setup", "--to",
                "board_exit", "--count", "1"],
            FLOOR: qemu.command(binary, target, floor.elf, [
                f"samples={args.samples}", qemu.BATCHED_STREAM]),
            **profile_commands(firmware.elf, args.samples, Path(scratch)),
            CYCLES_RUN: run,
            INSTRUCTIONS_RUN: [*run, "--unit", "instructions"],
        }
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        stream = 0
        for _ in range(max(1, args.repeat)):
            for name, command in commands.items():
                wall, cpu, written = timed(command)
                walls[name].append(wall)
                cpus[name].append(cpu)
                if name == ALONE:
                    stream = written
    wall = {name: statistics.median(times) for name, times in walls.items()}
    cpu = {name: statistics.median(times) for name, times in cpus.items()}
    bare_gauge, plugin_gauge = wall[BARE_GAUGE], wall[PLUGIN_GAUGE]
    print("| what | wall, s | CPU, s | x bare gauge | x plugin gauge |")
    print("|---|--:|--:|--:|--:|")
    for name in commands:
        print(f"| {name} | {wall[name]:.2f} | {cpu[name]:.2f} | {wall[name] / bare_gauge:.1f} | "
              f"{wall[name] / plugin_gauge:.1f} |")
    alone, full, end_to_end = cpu[ALONE], cpu[EVERYTHING], cpu[CYCLES_RUN]
    print(f"\n{args.samples:,} yield samples, {stream / args.samples:.1f} bytes a sample; medians of "
          f"{max(1, args.repeat)} rounds")
    print(f"of a cycles run's CPU time: QEMU running the firmware {alone / end_to_end:.0%}, the plugin "
          f"{(full - alone) / end_to_end:.0%}, the host {(end_to_end - full) / end_to_end:.0%}")
    ratios = [total / gauge for total, gauge in zip(walls[CYCLES_RUN], walls[BARE_GAUGE])]
    print(f"end to end in cycles over the bare gauge, round by round: {min(ratios):.1f} to {max(ratios):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
