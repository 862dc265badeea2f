"""Tables for the terminal and JSON for machines, from Results."""

from __future__ import annotations

import json
from itertools import groupby
from pathlib import Path

from switchscope import display, outputs
from switchscope.methods import METHODS, PRINT_IN_WINDOW
from switchscope.result import Result

COLUMNS = ("count", "excl", "min", "median", "mode", "mean", "max", "stddev", "p99", "first")


def cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() else f"{value:.2f}"
    return str(value)


def _row(result: Result) -> list[str]:
    stats = result.stats
    return [result.scenario, cell(result.count), cell(result.excluded),
            *(cell(value) for value in (stats.min, stats.median, stats.mode, stats.mean, stats.max)),
            f"{stats.stddev:.2f}", cell(stats.p99), cell(result.first)]


def counted_by(result: Result) -> str:
    """What turned the count into the unit, where something did: the timing model, or a chip's cycle counter."""
    if result.timing_model:
        return f" ({result.timing_model} timing model)"
    if (result.timer or {}).get("name") == "DWT":
        return " (DWT, silicon)"
    return ""


def heading(result: Result) -> str:
    config = result.config
    tick = config.get("configTICK_RATE_HZ")
    model = counted_by(result)
    parts = [f"{result.kernel} {result.kernel_version}", f"on {result.target} ({result.cpu})",
             f"method {result.method}", f"unit: {result.unit}{model}"]
    method = METHODS.get(result.method, PRINT_IN_WINDOW)
    detail = [method.note(result.overhead, result.unit, (result.scope or {}).get("pin"))]
    if tick:
        detail.append(f"preemption={config.get('configUSE_PREEMPTION')}, priorities={config.get('priorities')}, "
                      f"tick {tick} Hz, {config.get('optimisation')}")
    else:
        detail.append(config.get("optimisation", ""))
    detail.append(f"built with {result.toolchain['compiler']}")
    detail.append(f"on {result.simulator['name']}")
    return ", ".join(parts) + "\n  " + "; ".join(d for d in detail if d)


def aligned(rows: list[list[str]]) -> list[str]:
    """A table as text lines: rows[0] is the header."""
    return display.table(rows)


def _row_us(result: Result) -> list[str]:
    us = result.stats_ns.scaled(1 / 1000)
    return [result.scenario, *(f"{value:.3f}" for value in
                               (us.min, us.median, us.mode, us.mean, us.max, us.stddev, us.p99))]


def table(results: list[Result]) -> str:
    """One block per (kernel, target, method), one line per scenario; for
    results in true cycles, the same statistics again in microseconds."""
    blocks = []
    key = lambda r: (r.kernel, r.target, r.method, json.dumps(r.options, sort_keys=True))
    for _, group in groupby(results, key=key):
        group = list(group)
        lines = [heading(group[0]), *aligned([["scenario", *COLUMNS], *(_row(r) for r in group)])]
        if group[0].ns_per_unit is not None:
            lines.append(f"  in microseconds at {group[0].f_cpu_hz / 1e6:g} MHz:")
            lines += aligned([["scenario", "min", "median", "mode", "mean", "max", "stddev", "p99"],
                               *(_row_us(r) for r in group)])
        firmware = group[0].firmware
        lines.append(f"  firmware: flash {firmware['flash_bytes']} of {firmware['flash_limit']} bytes, "
                     f"static RAM {firmware['ram_bytes']} of {firmware['ram_limit']} bytes")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def capture_table(result: Result) -> str:
    """The table of `switchscope analyze`."""
    details = result.details
    clock = f", clock {details['clock_hz'] / 1e6:g} MHz" if details.get("clock_hz") else ""
    lines = [f"{result.source}: {details['capture']}, channel {details['channel']}{clock}, unit: {result.unit}",
             f"  tCS = tCD - tAB per pattern; bare pulse tAB = {cell(result.overhead)} {result.unit} (mode)",
             *aligned([["channel", *COLUMNS], _row(result)])]
    if result.ns_per_unit is not None:
        lines.append("  in microseconds:")
        lines += aligned([["channel", "min", "median", "mode", "mean", "max", "stddev", "p99"], _row_us(result)])
    return "\n".join(lines)


def marker_table(result: Result) -> str:
    """The table of `switchscope measure`."""
    start, stop = result.details["from"], result.details["to"]
    model = f" ({result.timing_model} timing model)" if result.timing_model else ""
    lines = [f"{result.source} on {result.target} ({result.cpu}), marker method, unit: {result.unit}{model}",
             f"  from {start['point']} (0x{start['address']:x}) "
             f"to {stop['point']} (0x{stop['address']:x}); on {result.simulator['name']}",
             *aligned([["interval", *COLUMNS], _row(result)])]
    if result.ns_per_unit is not None:
        lines.append(f"  in microseconds at {result.f_cpu_hz / 1e6:g} MHz:")
        lines += aligned([["interval", "min", "median", "mode", "mean", "max", "stddev", "p99"], _row_us(result)])
    return "\n".join(lines)


def method_comparison(results: list[Result]) -> str:
    """Where one (kernel, target, scenario) was measured by several methods:
    their medians side by side, and each one's difference from the first."""
    by_case: dict = {}
    for r in results:
        by_case.setdefault((r.kernel, r.target, r.scenario), {})[r.method] = r
    cases = {case: methods for case, methods in by_case.items() if len(methods) > 1}
    if not cases:
        return ""
    methods = list(dict.fromkeys(m for case in cases.values() for m in case))
    reference = methods[0]
    header = ["kernel", "target", "scenario", "unit", *(f"{m} median" for m in methods),
              *(f"{m} - {reference}" for m in methods[1:])]
    rows = [header]
    for (kernel, target, scenario), found in cases.items():
        medians = {m: found[m].stats.median for m in methods if m in found}
        unit = next(iter(found.values())).unit
        rows.append([kernel, target, scenario, unit, *(cell(medians[m]) if m in medians else "-" for m in methods),
                     *(cell(medians[m] - medians[reference]) if m in medians and reference in medians else "-"
                       for m in methods[1:])])
    return "methods side by side (medians):\n" + "\n".join(aligned(rows))


def sweep_table(results: list[Result]) -> str:
    """One line per point of a sweep."""
    default_options: dict = {}
    rows = [["kernel", "target", "scenario", "tasks", "method", "options", "samples", "count", "excl", "min",
             "median", "mean", "p99", "max", "unit", "median us"]]
    for r in results:
        options = ",".join(f"{k}={v}" for k, v in sorted(r.options.items())
                           if v != default_options.setdefault((r.target, k), v)) or "default"
        stats = r.stats
        us = f"{r.stats_ns.median / 1000:.2f}" if r.ns_per_unit is not None else "-"
        rows.append([r.kernel, r.target, r.scenario, str(r.tasks or "-"), r.method, options,
                     str(r.count + r.excluded), str(r.count), str(r.excluded),
                     cell(stats.min), cell(stats.median), f"{stats.mean:.2f}",
                     cell(stats.p99), cell(stats.max), r.unit, us])
    return "\n".join(aligned(rows))


def write_json(path: Path, results: list, failures: list[dict], not_applicable: list[dict] = (),
               incomplete: str | None = None) -> None:
    """{"results": [...]} with every Result in its versioned form (intrusion rows as they are);
    `incomplete` says why a command wrote only part of what it was asked for."""
    document = {"results": [r.to_json() if isinstance(r, Result) else r for r in results]}
    if incomplete:
        document["incomplete"] = incomplete
    if failures:
        document["failures"] = failures
    if not_applicable:
        document["not_applicable"] = list(not_applicable)
    outputs.write_text(path, json.dumps(document, indent=1) + "\n")
