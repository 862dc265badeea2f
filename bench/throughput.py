#!/usr/bin/env python3
"""How many samples a second switchscope measures, and where the time goes:
end to end (`switchscope run`, the default method and unit), the simulator
alone (the same firmware run with its output kept in memory), and the host's
decoder alone (the recorded stream decoded again), for `yield` on mps2-an385
and atmega328p; then the wall time of `switchscope suite`.

    python3 bench/throughput.py [--samples 1000000] [--no-suite]

Prints one Markdown table and the suite's time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkout import CHECKOUT, switchscope_command

sys.path.insert(0, str(CHECKOUT / "host"))

from switchscope import catalog  # noqa: E402
from switchscope.build import native  # noqa: E402
from switchscope.build.firmware import build  # noqa: E402
from switchscope.decode.wire import StreamDecoder  # noqa: E402
from switchscope.run.runner import simulator_of  # noqa: E402
from switchscope.run.simavr import INTERRUPT_ENTRY_CYCLES  # noqa: E402
from switchscope.run.simulator import Request  # noqa: E402


def simulator_command(target, firmware_elf: Path, samples: int, scratch: Path) -> list[str]:
    """What `switchscope run` starts for the firmware, nothing watched (so nothing is written to `scratch`)."""
    native.ensure(target.simulator, target.core_config)
    return simulator_of(target).start(Request(
        target=target, firmware_elf=firmware_elf, parameters=[f"samples={samples}"], samples=samples,
        event_log=scratch / "events.txt", pin_log=scratch / "pins.txt", trace_log=scratch / "trace.txt",
        event_limit=0, interrupt_entry_cycles=INTERRUPT_ENTRY_CYCLES))


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--samples", type=int, default=1_000_000)
    options.add_argument("--no-suite", action="store_true", help="leave out the suite's wall time")
    args = options.parse_args()
    switchscope = switchscope_command()
    print("| target | end to end, s | samples/s | simulator alone, s | stream, bytes/sample | decoder alone, s | "
          "samples/s decoded |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for name in ("mps2-an385", "atmega328p"):
        target = catalog.TARGETS[name]
        kernel, scenario = catalog.KERNELS["freertos"], catalog.SCENARIOS["yield"]
        firmware = build(kernel, target, scenario)
        started = time.monotonic()
        subprocess.run([*switchscope, "run", "--target", name, "--scenario", "yield", "--samples", str(args.samples),
                        "--quiet", "--timeout", "3600"], check=True, stdout=subprocess.DEVNULL)
        end_to_end = time.monotonic() - started
        with tempfile.TemporaryDirectory(prefix="switchscope-bench-") as scratch:
            command = simulator_command(target, firmware.elf, args.samples, Path(scratch))
            started = time.monotonic()
            stream = subprocess.run(command, capture_output=True, timeout=3600).stdout
            simulator = time.monotonic() - started
        started = time.monotonic()
        decoder = StreamDecoder()
        decoder.feed(stream)
        decoded = decoder.finish()
        decoding = time.monotonic() - started
        if len(decoded.samples) != args.samples:
            sys.exit(f"{name}: the stream held {len(decoded.samples)} samples, not {args.samples}")
        print(f"| {name} | {end_to_end:.1f} | {args.samples / end_to_end:,.0f} | {simulator:.1f} | "
              f"{len(stream) / args.samples:.1f} | {decoding:.2f} | {args.samples / decoding:,.0f} |")
    if not args.no_suite:
        with tempfile.TemporaryDirectory(prefix="switchscope-bench-") as scratch:
            subprocess.run([*switchscope, "suite", "--out", scratch], check=True, stdout=subprocess.DEVNULL)  # builds
            started = time.monotonic()
            subprocess.run([*switchscope, "suite", "--out", str(Path(scratch) / "again")], check=True,
                           stdout=subprocess.DEVNULL)
            print(f"\nswitchscope suite, firmware built: {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
