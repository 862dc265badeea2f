"""Tables for the terminal and JSON for machines."""

from __future__ import annotations

import json
from itertools import groupby
from pathlib import Path

COLUMNS = ("count", "excl", "min", "median", "mode", "mean", "max", "stddev", "p99", "first")


def cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() else f"{value:.2f}"
    return str(value)


def _row(result: dict) -> list[str]:
    stats = result["stats"]
    return [result["scenario"], cell(result["count"]), cell(result["excluded"]),
            *(cell(stats[key]) for key in ("min", "median", "mode", "mean", "max")),
            f"{stats['stddev']:.2f}", cell(stats["p99"]), cell(result["first"])]


def heading(result: dict) -> str:
    config = result["config"]
    tick = config.get("configTICK_RATE_HZ")
    parts = [f"{result['kernel']} {result['kernel_version']}", f"on {result['target']} ({result['cpu']})",
             f"method {result['method']}", f"unit: {result['unit']}"]
    if result["method"] == "scope":
        detail = [f"pin {result['scope']['pin']}: bare pulse tAB = {result['overhead']} {result['unit']} subtracted"]
    elif result["method"] in ("marker", "print"):
        detail = ["counted by the simulator between two addresses: nothing to subtract"]
    else:
        detail = [f"probe overhead {result['overhead']} {result['unit']} subtracted"]
    if tick:
        detail.append(f"preemption={config.get('configUSE_PREEMPTION')}, priorities={config.get('priorities')}, "
                      f"tick {tick} Hz, {config.get('optimisation')}")
    detail.append(f"built with {result['toolchain']['compiler']}")
    detail.append(f"on {result['simulator']['name']}")
    return ", ".join(parts) + "\n  " + "; ".join(detail)


def aligned(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
            for row in rows]


def _row_us(result: dict) -> list[str]:
    us = {key: value / 1000 for key, value in result["stats_ns"].items()}
    return [result["scenario"], *(f"{us[key]:.3f}" for key in ("min", "median", "mode", "mean", "max", "stddev", "p99"))]


def table(results: list[dict]) -> str:
    """One block per (kernel, target, method), one line per scenario; for
    results in true cycles, the same statistics again in microseconds."""
    blocks = []
    key = lambda r: (r["kernel"], r["target"], r["method"], json.dumps(r.get("options"), sort_keys=True))
    for _, group in groupby(results, key=key):
        group = list(group)
        lines = [heading(group[0]), *aligned([["scenario", *COLUMNS], *(_row(r) for r in group)])]
        if "stats_ns" in group[0]:
            mhz = group[0]["f_cpu_hz"] / 1e6
            lines.append(f"  in microseconds at {mhz:g} MHz:")
            lines += aligned([["scenario", "min", "median", "mode", "mean", "max", "stddev", "p99"],
                               *(_row_us(r) for r in group)])
        firmware = group[0]["firmware"]
        lines.append(f"  firmware: flash {firmware['flash_bytes']} of {firmware['flash_limit']} bytes, "
                     f"static RAM {firmware['ram_bytes']} of {firmware['ram_limit']} bytes")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def capture_table(result: dict) -> str:
    """The table of `switchscope analyze`."""
    clock = f", clock {result['clock_hz'] / 1e6:g} MHz" if result["clock_hz"] else ""
    lines = [f"{result['source']}: {result['capture']}, channel {result['channel']}{clock}, unit: {result['unit']}",
             f"  tCS = tCD - tAB per pattern; bare pulse tAB = {cell(result['overhead'])} {result['unit']} (mode)",
             *aligned([["channel", *COLUMNS], _row(result)])]
    if "stats_ns" in result:
        lines.append("  in microseconds:")
        lines += aligned([["channel", "min", "median", "mode", "mean", "max", "stddev", "p99"], _row_us(result)])
    return "\n".join(lines)


def marker_table(result: dict) -> str:
    """The table of `switchscope measure`."""
    lines = [f"{result['source']} on {result['target']} ({result['cpu']}), marker method, unit: {result['unit']}",
             f"  from {result['from']['point']} (0x{result['from']['address']:x}) "
             f"to {result['to']['point']} (0x{result['to']['address']:x}); on {result['simulator']['name']}",
             *aligned([["interval", *COLUMNS], _row(result)])]
    if "stats_ns" in result:
        lines.append(f"  in microseconds at {result['f_cpu_hz'] / 1e6:g} MHz:")
        lines += aligned([["interval", "min", "median", "mode", "mean", "max", "stddev", "p99"], _row_us(result)])
    return "\n".join(lines)


def method_comparison(results: list[dict]) -> str:
    """Where one (kernel, target, scenario) was measured by several methods:
    their medians side by side, and each one's difference from the first."""
    by_case: dict = {}
    for r in results:
        by_case.setdefault((r["kernel"], r["target"], r["scenario"]), {})[r["method"]] = r
    cases = {case: methods for case, methods in by_case.items() if len(methods) > 1}
    if not cases:
        return ""
    methods = list(dict.fromkeys(m for case in cases.values() for m in case))
    reference = methods[0]
    header = ["kernel", "target", "scenario", "unit", *(f"{m} median" for m in methods),
              *(f"{m} - {reference}" for m in methods[1:])]
    rows = [header]
    for (kernel, target, scenario), found in cases.items():
        medians = {m: found[m]["stats"]["median"] for m in methods if m in found}
        unit = next(iter(found.values()))["unit"]
        rows.append([kernel, target, scenario, unit, *(cell(medians[m]) if m in medians else "-" for m in methods),
                     *(cell(medians[m] - medians[reference]) if m in medians and reference in medians else "-"
                       for m in methods[1:])])
    return "methods side by side (medians):\n" + "\n".join(aligned(rows))


def sweep_table(results: list[dict]) -> str:
    """One line per point of a sweep."""
    default_options: dict = {}
    rows = [["kernel", "target", "scenario", "tasks", "method", "options", "samples", "count", "excl", "min",
             "median", "mean", "p99", "max", "unit", "median us"]]
    for r in results:
        options = ",".join(f"{k}={v}" for k, v in sorted(r.get("options", {}).items())
                           if v != default_options.setdefault((r["target"], k), v)) or "default"
        us = f"{r['stats_ns']['median'] / 1000:.2f}" if "stats_ns" in r else "-"
        rows.append([r["kernel"], r["target"], r["scenario"], str(r.get("tasks", "-")), r["method"], options,
                     str(r["count"] + r["excluded"]), str(r["count"]), str(r["excluded"]),
                     cell(r["stats"]["min"]), cell(r["stats"]["median"]), f"{r['stats']['mean']:.2f}",
                     cell(r["stats"]["p99"]), cell(r["stats"]["max"]), r["unit"], us])
    return "\n".join(aligned(rows))


def write_json(path: Path, results: list[dict], failures: list[dict], not_applicable: list[dict] = ()) -> None:
    document = {"results": results}
    if failures:
        document["failures"] = failures
    if not_applicable:
        document["not_applicable"] = list(not_applicable)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n")
