#!/usr/bin/env python3
"""Times the default `switchscope run` and prints its results as a Markdown table.

    python3 bench/default_run.py [--samples 10000] [--cold]

--cold removes the build directory first, so the time includes building every
firmware. Prints the wall time of the whole command, the simulator time of each
scenario, and a table of its results (bench/pages.py writes docs/default-run.md's).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkout import CHECKOUT, switchscope_command


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--samples", type=int, default=10000)
    options.add_argument("--cold", action="store_true", help="rebuild every firmware first")
    options.add_argument("run_options", nargs="*", help="more options for switchscope run (after --), "
                                                         "e.g. -- --target atmega328p")
    args = options.parse_args()

    switchscope = switchscope_command()
    build_dir = Path(os.environ.get("SWITCHSCOPE_BUILD", CHECKOUT / "build"))
    if args.cold and build_dir.exists():
        shutil.rmtree(build_dir)

    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "results.json"
        command = [*switchscope, "run", "--samples", str(args.samples), "--json", str(out), "--quiet", *args.run_options]
        started = time.monotonic()
        finished = subprocess.run(command, stdout=subprocess.DEVNULL)
        wall = time.monotonic() - started
        if finished.returncode != 0:
            print(f"switchscope run failed with exit code {finished.returncode}", file=sys.stderr)
            return 1
        results = json.loads(out.read_text())["results"]

    print(f"command: switchscope run --samples {args.samples} {' '.join(args.run_options)}".rstrip())
    print(f"wall time: {wall:.2f} s ({'cold: builds included' if args.cold else 'warm: firmware already built'})")
    for r in results:
        print(f"  {r['scenario']:8} simulator {r['wall_seconds']:.2f} s for {r['count'] + r['excluded']} samples")
    for target in dict.fromkeys(r["target"] for r in results):
        rows = [r for r in results if r["target"] == target]
        first = rows[0]
        print()
        print(f"{first['kernel']} {first['kernel_version']} on {first['target']} ({first['cpu']}), "
              f"method {first['method']}, unit: {first['unit']}, overhead {first['overhead']} subtracted")
        print()
        in_us = "stats_ns" in first
        print("| scenario | count | excluded | min | median | mode | mean | max | stddev | p99 | first |"
              + (" median µs |" if in_us else ""))
        print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|" + ("--:|" if in_us else ""))
        for r in rows:
            s = r["stats"]
            print(f"| {r['scenario']} | {r['count']} | {r['excluded']} | {s['min']} | {s['median']:g} | {s['mode']} | "
                  f"{s['mean']:.2f} | {s['max']} | {s['stddev']:.2f} | {s['p99']} | {r['first']} |"
                  + (f" {r['stats_ns']['median'] / 1000:.2f} |" if in_us else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
