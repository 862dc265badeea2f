#!/usr/bin/env python3
"""How far a documentation model is from the RTL: every switch scenario of
the floor kernel and FreeRTOS measured on Ibex's RTL (target ibex, Verilator)
and on QEMU through the Ibex timing model (target ibex-qemu), in cycles with
the marker method, and again through the model as read from the
documentation alone (core=ibex-small-documentation: no cost measured on the
RTL). Where a figure differs, the same window is traced on both and the first
instruction where the traces part is named. Then how fast each measures
10,000 `yield` samples end to end. With --slow-memory, four switches of
each kernel behind a RAM with wait states (fetch_wait_states): the RTL's own
prefetch buffer, the model's rules for it, and their documentation-only
reading.

    python3 bench/ibex_model.py [--samples 1000]                     # the figures
    python3 bench/ibex_model.py --slow-memory [--samples 1000]       # behind a slow RAM
    python3 bench/ibex_model.py --speed [--samples 10000] [--rounds 3]   # the speed

Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics
import subprocess
import sys
import time

from checkout import CHECKOUT, switchscope_command

sys.path.insert(0, str(CHECKOUT / "host"))

from switchscope import catalog  # noqa: E402
from switchscope.catalog import configs  # noqa: E402
from switchscope.catalog.plan import plan  # noqa: E402
from switchscope.decode.methods import METHODS  # noqa: E402
from switchscope.figures import breakdown  # noqa: E402
from switchscope.figures.measure import measure  # noqa: E402

RTL, MODEL = "ibex", "ibex-qemu"
DOCUMENTATION_ONLY = "ibex-small-documentation"  # the plugin's core= for the model without measured costs
KERNELS = ("floor", "freertos")


def switch_jobs(target: str) -> list:
    """Every switch scenario (no latency sweep) each kernel can measure on the target, marker method, cycles."""
    scenarios = [s for s in catalog.SCENARIOS.values() if not s.latency and not s.check and not s.suite]
    found = plan([catalog.KERNELS[k] for k in KERNELS], [catalog.TARGETS[target]], scenarios, [METHODS["marker"]],
                 unit="cycles")
    return found.jobs


def on(job, target: catalog.Target):
    return dataclasses.replace(job, target=target)


def where_they_part(job, other) -> str:
    """The first instruction of the 10th window where the traces of the two jobs part."""
    ours, theirs = breakdown.breakdown(job, 10), breakdown.breakdown(other, 10)
    found = breakdown.parting(ours, theirs)
    if found is None:
        return "none: every instruction costs the same"
    if found.cycles is None:
        return f"different instructions from {found.function}+{found.offset}"
    text = found.text.split(" #")[0]  # without the disassembler's comment
    return f"{found.function}+{found.offset} `{text}`: {found.cycles[0]} vs {found.cycles[1]}"


def figures(samples: int) -> list[str]:
    model_target = catalog.TARGETS[MODEL]
    documentation_target = dataclasses.replace(model_target, timing_model=DOCUMENTATION_ONLY)
    rows = []
    for job in switch_jobs(RTL):
        model_job = on(job, model_target)
        rtl = measure(job, samples).stats.median
        model = measure(model_job, samples).stats.median
        documented = measure(on(job, documentation_target), samples).stats.median
        parts = []
        if model != rtl:
            parts.append("model: " + where_they_part(model_job, job))
        if documented != rtl:
            parts.append("documentation only: " + where_they_part(on(job, documentation_target), job))
        rows.append(f"| {job.kernel.name} | {job.scenario.name} | {rtl:g} | {model:g} | {model - rtl:+g} | "
                    f"{documented:g} | {documented - rtl:+g} ({100 * (documented - rtl) / rtl:+.1f}%) | "
                    f"{'; '.join(parts) or 'none'} |")
    return [f"| kernel | scenario | RTL (median, cycles) | model | model - RTL | documentation-only model | "
            f"documentation - RTL | the first instruction where the traces part |",
            "|---|---|--:|--:|--:|--:|--:|---|", *rows]


SLOW_MEMORY_SCENARIOS = ("yield", "signal", "isr", "msg")
FETCH_WAIT_STATES = (0, 1, 2, 5)


def slow_memory(samples: int) -> list[str]:
    """Each kernel's yield, signal, isr and msg at each number of fetch wait states: RTL, model, documentation."""
    model_target = catalog.TARGETS[MODEL]
    documentation_target = dataclasses.replace(model_target, timing_model=DOCUMENTATION_ONLY)
    rows = []
    for job in switch_jobs(RTL):
        if job.scenario.name not in SLOW_MEMORY_SCENARIOS:
            continue
        for wait_states in FETCH_WAIT_STATES:
            config = configs.resolve({"fetch_wait_states": str(wait_states)}, job.kernel, job.target, job.scenario,
                                     job.tasks)
            slow = dataclasses.replace(job, config=config)
            rtl = measure(slow, samples).stats.median
            model = measure(on(slow, model_target), samples).stats.median
            documented = measure(on(slow, documentation_target), samples).stats.median
            rows.append(f"| {job.kernel.name} | {job.scenario.name} | {wait_states} | {rtl:g} | {model:g} | "
                        f"{model - rtl:+g} | {documented:g} | {documented - rtl:+g} "
                        f"({100 * (documented - rtl) / rtl:+.1f}%) |")
    return ["| kernel | scenario | fetch wait states | RTL (median, cycles) | model | model - RTL | "
            "documentation-only model | documentation - RTL |", "|---|---|--:|--:|--:|--:|--:|--:|", *rows]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def end_to_end(target: str, samples: int) -> tuple[float, float]:
    """(wall, CPU) seconds of `switchscope run` measuring `samples` yield samples."""
    started, cpu = time.monotonic(), children_cpu()
    subprocess.run([*switchscope_command(), "run", "--target", target, "--scenario", "yield", "--samples",
                    str(samples), "--quiet"], check=True, capture_output=True)
    return time.monotonic() - started, children_cpu() - cpu


def speed(samples: int, rounds: int) -> list[str]:
    measured = {}
    for target in (RTL, MODEL):
        end_to_end(target, 100)  # builds the model and the firmware: no round below includes a build
        runs = [end_to_end(target, samples) for _ in range(rounds)]
        measured[target] = (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
    rows = [f"| {target} | {wall:.1f} | {cpu:.1f} | {measured[RTL][0] / wall:.1f} |"
            for target, (wall, cpu) in measured.items()]
    return [f"| target | `switchscope run --scenario yield --samples {samples:,}` wall s | CPU s | "
            f"{RTL}'s wall / this one's |", "|---|--:|--:|--:|", *rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed", action="store_true", help="time 10,000 yield samples on each instead")
    parser.add_argument("--slow-memory", action="store_true",
                        help="four switches of each kernel at 0, 1, 2 and 5 fetch wait states instead")
    parser.add_argument("--samples", type=int, help="samples per scenario (default 1000; with --speed 10000)")
    parser.add_argument("--rounds", type=int, default=3, help="--speed: rounds, whose medians are shown")
    args = parser.parse_args()
    if args.speed:
        print("\n".join(speed(args.samples or 10_000, args.rounds)))
    elif args.slow_memory:
        print("\n".join(slow_memory(args.samples or 1000)))
    else:
        print("\n".join(figures(args.samples or 1000)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
