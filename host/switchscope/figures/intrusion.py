"""The intrusion report: what each method puts into the path it measures, and
what is left after its correction, against the marker figure (which puts
nothing in the path).

For each scenario: the probe's raw reading and its corrected value, the
scope's tCD and tCS, and the window of a build that prints a trace line from
inside the window, as a benchmark that prints from its tasks does.
"""

from __future__ import annotations

from switchscope import catalog
from switchscope.catalog.job import Job
from switchscope.common.errors import SwitchscopeError
from switchscope.decode.methods import METHODS, PRINT_IN_WINDOW
from switchscope.figures.measure import measure
from switchscope.figures.result import Result

VARIANTS = ("marker", "probe", "scope", "print")


def _median(result: Result) -> float:
    return result.stats.median


def report(kernel: catalog.Kernel, target: catalog.Target, scenario: catalog.Scenario, samples: int,
           time_limit: float | None = None, on_stage=None) -> dict:
    """Measure one scenario with every variant and compare each to the marker."""
    methods = {**METHODS, PRINT_IN_WINDOW.name: PRINT_IN_WINDOW}
    results = {}
    for variant in VARIANTS:
        if on_stage:
            on_stage(f"{scenario.name}: {variant}")
        job = Job(kernel, target, scenario, methods[variant])
        try:
            results[variant] = measure(job, samples, time_limit)
        except SwitchscopeError as error:
            if variant != "print":
                raise
            # A window made long enough to catch the tick can break a scenario outright
            # (equal-priority tasks are time-sliced by it): that is the finding.
            results[variant] = error.message.split(":", 1)[-1].strip()
    truth = _median(results["marker"])
    probe, scope_result, printed = results["probe"], results["scope"], results["print"]
    probe_raw = _median(probe) + probe.overhead
    row = {
        "kernel": kernel.name,
        "target": target.name,
        "scenario": scenario.name,
        "unit": results["marker"].unit,
        "samples": samples,
        "marker": truth,
        "probe": {"raw": probe_raw, "adds": probe_raw - truth, "overhead": probe.overhead,
                  "corrected": _median(probe), "residual": _median(probe) - truth},
        "scope": {"t_cd": _median(scope_result) + scope_result.overhead,
                  "adds": _median(scope_result) + scope_result.overhead - truth,
                  "t_ab": scope_result.overhead, "t_cs": _median(scope_result),
                  "residual": _median(scope_result) - truth},
        "ns_per_unit": results["marker"].ns_per_unit,
        "memory": results["marker"].memory,
    }
    if isinstance(printed, str):  # why the printing build could not be measured
        row["print"] = {"error": printed}
    else:
        row["print"] = {"raw": _median(printed), "adds": _median(printed) - truth,
                        "factor": _median(printed) / truth if truth else None,
                        "ticks_in_window": printed.ticks_in_window}
    return row
