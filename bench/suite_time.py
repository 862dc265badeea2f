#!/usr/bin/env python3
"""What the suite costs beyond its measurements: the wall time of
`switchscope suite` against the sum of its measurements' own wall times (each
result's `wall_seconds`: build check, simulator run, analysis), with the time
it takes to write summary.md, index.html and the figures.

    python3 bench/suite_time.py [--kernel freertos] [--target mps2-an385] [--jobs 1,2]

Once built (a first suite builds every firmware; this script runs one first).
Prints one Markdown table; bench/pages.py puts it in docs/architecture.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkout import switchscope_command


def suite(switchscope: list[str], out: Path, kernel: str, target: str, jobs: int) -> float:
    started = time.monotonic()
    finished = subprocess.run([*switchscope, "suite", "--kernel", kernel, "--target", target, "--jobs", str(jobs),
                               "--out", str(out), "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    if finished.returncode != 0:
        sys.exit(f"switchscope suite failed:\n{finished.stderr}")
    return time.monotonic() - started


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--kernel", default="freertos")
    options.add_argument("--target", default="mps2-an385")
    options.add_argument("--jobs", default="1", help="workers, or a list of counts, one suite each (1: the sum of "
                                                     "the measurements is the least the suite can take)")
    args = options.parse_args()
    switchscope = switchscope_command()
    counts = [int(count) for count in args.jobs.split(",")]
    print("| suite | measurements | their own time, summed | suite wall time | ratio | files written |")
    print("|---|--:|--:|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as scratch:
        suite(switchscope, Path(scratch) / "warm", args.kernel, args.target, counts[0])  # builds what is missing
        for jobs in counts:
            out = Path(scratch) / f"suite-{jobs}"
            wall = suite(switchscope, out, args.kernel, args.target, jobs)
            runs = [r for path in (out / "runs").rglob("*.json") for r in json.loads(path.read_text())["results"]]
            measured = sum(r["wall_seconds"] for r in runs)
            files = sum(1 for path in out.rglob("*") if path.is_file())
            print(f"| {args.kernel} on {args.target}, {jobs} worker(s) | {len(runs)} | {measured:.1f} s | "
                  f"{wall:.1f} s | {wall / measured:.2f} | {files} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
