#!/usr/bin/env python3
"""A matrix of 260 points three ways, with their wall times, and whether they agree sample for sample:
FreeRTOS rotate on mps2-an385 (2 to 11 tasks) and atmega328p (2 to 4 tasks), -O0 to -Os, preemption on
and off, 100 and 300 samples (10 x 5 x 2 x 2 = 200 points on mps2-an385, 3 x 5 x 2 x 2 = 60 on the
ATmega328P), measured
  - on the local pool (sweep, every core),
  - on a local Dask cluster of two workers (--cluster local:2),
  - as two --subset halves run one after the other, then merged.

    python3 bench/matrix.py [--cold]

--cold gives each way an empty build directory of its own (a temporary one: the checkout's build/ is left
as it is), so that each builds its firmware; without it the firmware is built once, untimed, before the
first way, so that no way pays for the builds.
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

from checkout import switchscope_command

SWITCHSCOPE = switchscope_command()
AXES = {"mps2-an385": "2-11", "atmega328p": "2-4"}
COMMON = ["--kernel", "freertos", "--scenario", "rotate", "--config", "opt=-O0,-O1,-O2,-O3,-Os",
          "--config", "preemption=on,off", "--samples", "100,300", "--quiet"]
VARYING = {"measured_at", "wall_seconds", "project"}


def sweep(target: str, out: Path, *more: str) -> None:
    subprocess.run([*SWITCHSCOPE, "sweep", "--target", target, "--tasks", AXES[target], *COMMON, "--json", str(out),
                    *more], check=True, stdout=subprocess.DEVNULL)


def figures(path: Path) -> list:
    results = json.loads(path.read_text())["results"]
    return sorted((json.dumps({k: v for k, v in r.items() if k not in VARYING}, sort_keys=True) for r in results))


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--cold", action="store_true")
    args = options.parse_args()
    work = Path(tempfile.mkdtemp(prefix="switchscope-matrix-"))
    ways = {"local pool": [], "--cluster local:2": ["--cluster", "local:2"]}
    times, outputs = {}, {}
    if not args.cold:
        for target in AXES:
            sweep(target, work / f"{target}-warm.json")
    for way, more in [*ways.items(), ("two --subset halves, merged", None)]:
        if args.cold:  # a build directory of the way's own, empty: the builds are part of its time
            os.environ["SWITCHSCOPE_BUILD"] = str(work / f"build-{len(times)}")
        started = time.monotonic()
        files = []
        for target in AXES:
            if more is None:
                halves = [work / f"{target}-{k}.json" for k in (1, 2)]
                for k, half in enumerate(halves, 1):
                    sweep(target, half, "--subset", f"{k}/2")
                files.append(work / f"{target}-merged.json")
                subprocess.run([*SWITCHSCOPE, "merge", *map(str, halves), "--out", str(files[-1])], check=True,
                               stdout=subprocess.DEVNULL)
            else:
                files.append(work / f"{target}-{len(times)}.json")
                sweep(target, files[-1], *more)
        times[way] = time.monotonic() - started
        outputs[way] = [line for path in files for line in figures(path)]
    reference = outputs["local pool"]
    print(f"| way ({len(reference)} points) | wall time, {'cold' if args.cold else 'built'} | "
          "results against the local pool's |")
    print("|---|--:|---|")
    for way, seconds in times.items():
        same = "(the reference)" if way == "local pool" else "identical" if outputs[way] == reference else "DIFFER"
        print(f"| {way} | {seconds:.1f} s | {same} |")
    shutil.rmtree(work)
    return 0 if all(out == reference for out in outputs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
