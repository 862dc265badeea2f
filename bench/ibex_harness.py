#!/usr/bin/env python3
"""What the Ibex prototype (host/ibex-harness/) costs and whether it repeats:
the model's build time (from its cache folder, or a fresh build with
--rebuild), simulated cycles per CPU second without Ibex's tracer (the
default model), with it but its log off, and tracing; and
whether two runs of each program give identical output and watch logs.

    PYTHONPATH=host python3 bench/ibex_harness.py [--config small] [--cycles 20000000] [--rebuild]"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[1] / "host" / "ibex-harness"


# run.py, loaded by its path under the name its sibling() gives it (the folder is no package, and plain names
# such as `build` must not shadow other modules on sys.path); the other scripts come through its sibling()
_spec = importlib.util.spec_from_file_location("ibex_harness_run", HARNESS / "run.py")
run = sys.modules["ibex_harness_run"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)
build, programs = run.sibling("build"), run.sibling("programs")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def speed(model: Path, elf: Path, cycles: int, trace: bool) -> float:
    """Simulated cycles per CPU second over a run bounded at `cycles`."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [str(model), "--max-cycles", str(cycles), str(elf)]
        if trace:
            command[1:1] = ["--trace", str(Path(scratch) / "trace")]
        before = children_cpu()
        subprocess.run(command, capture_output=True, check=False)
        return cycles / (children_cpu() - before)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="small")
    parser.add_argument("--cycles", type=int, default=20_000_000, help="length of each speed run")
    parser.add_argument("--rebuild", action="store_true", help="time a fresh build in a scratch cache")
    arguments = parser.parse_args()
    if arguments.rebuild:
        with tempfile.TemporaryDirectory() as scratch:
            os.environ["SWITCHSCOPE_BUILD"] = scratch
            model = build.build(arguments.config)
            print(f"build ({arguments.config}, fresh): {(model.parent / 'build-seconds.txt').read_text().strip()} s "
                  f"wall on {os.cpu_count()} cores")
            del os.environ["SWITCHSCOPE_BUILD"]
    model = build.build(arguments.config)
    traced = build.build(arguments.config, tracer=True)
    print(f"model: {model}")
    print(f"build ({arguments.config}, as cached): {(model.parent / 'build-seconds.txt').read_text().strip()} s wall")
    forever = programs.build("freertos", ("YIELD_FOREVER=1",))
    print(f"speed, no tracer:      {speed(model, forever, arguments.cycles, False) / 1e6:.2f} M cycles per CPU second")
    print(f"speed, tracer off:     {speed(traced, forever, arguments.cycles, False) / 1e6:.2f} M cycles per CPU second")
    shorter = max(arguments.cycles // 10, 1)  # the trace file grows by about 100 bytes an instruction
    print(f"speed, tracer tracing: {speed(traced, forever, shorter, True) / 1e6:.2f} M cycles per CPU second")
    for name, prefix in (("timing", "mark_"), ("freertos", "yield_")):
        elf = programs.build(name)
        first, second = (run.run(arguments.config, elf, prefix, 10_000_000) for _ in range(2))
        print(f"{name}: two runs {'identical' if first == second else 'DIFFER'} "
              f"({len(first[2])} watched retirements, {len(first[1])} bytes of output)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
