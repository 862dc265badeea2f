"""Software against PendSV switching, point by point: the Cortex-M3 study's
two figures (time per switch against the number of rotating tasks, its
Figure 12; total time against the number of switches, its Figure 11) from
results that differ in nothing but the `switch` option."""

from __future__ import annotations

from switchscope.figures.result import Result
from switchscope.present import board_facts, svg
from switchscope.present.report import aligned, cell

MECHANISMS = ("software", "pendsv")


def _shared_key(result: Result) -> tuple:
    options = tuple(sorted((k, v) for k, v in result.options.items() if k != "switch"))
    return (result.kernel, result.target, result.scenario, result.method, result.unit, options)


def paired(results: list[Result]) -> dict[tuple, dict[tuple[int, int], dict[str, Result]]]:
    """{shared configuration: {(tasks, switches): {"software": result, "pendsv": result}}}, only the
    points measured with both mechanisms."""
    found: dict[tuple, dict[tuple[int, int], dict[str, Result]]] = {}
    for result in results:
        switch = result.options.get("switch")
        if switch in MECHANISMS:
            point = (result.tasks or 0, result.count + result.excluded)
            found.setdefault(_shared_key(result), {}).setdefault(point, {})[switch] = result
    return {key: {point: pair for point, pair in points.items() if len(pair) == 2}
            for key, points in found.items() if any(len(pair) == 2 for pair in points.values())}


def relative(software: float, pendsv: float) -> str:
    """PendSV's figure against software's, as the study states it: how much longer, in percent."""
    return f"{(pendsv - software) / software * 100:+.1f}%" if software else "-"


def _in_us(result: Result, value: float) -> str:
    return f"{value * result.ns_per_unit / 1000:,.2f}" if result.ns_per_unit is not None else "-"


def total(result: Result) -> float:
    """The time of all the run's switches at the mean of the kept ones: the two mechanisms keep a few
    different windows (a tick falls into other ones), so a sum of what each kept would compare unlike counts."""
    return result.stats.mean * (result.count + result.excluded)


def rows(points: dict[tuple[int, int], dict[str, Result]], against: str) -> list[list[str]]:
    """One row per point: against "tasks" the median per switch, against "switches" the total."""
    table = []
    for (tasks, switches), pair in sorted(points.items()):
        software, pendsv = pair["software"], pair["pendsv"]
        figure = (lambda r: r.stats.median) if against == "tasks" else total
        low, high = figure(software), figure(pendsv)
        first = [str(tasks or "-")] if against == "tasks" else [f"{switches:,}", f"{software.count:,} / {pendsv.count:,}"]
        low, high = (low, high) if against == "tasks" else (round(low), round(high))
        table.append([*first, cell(low), cell(high), cell(high - low), relative(low, high),
                      _in_us(software, low), _in_us(pendsv, high)])
    return table


def header(against: str, unit: str) -> list[str]:
    first = ["tasks"] if against == "tasks" else ["switches", "kept (sw / PendSV)"]
    what = "median per switch" if against == "tasks" else "total (switches x mean)"
    return [*first, f"software {what}", f"PendSV {what}", "PendSV - software", "relative", "software µs",
            "PendSV µs"]


def terminal_tables(results: list[Result]) -> str:
    """The comparison for the terminal, one table per shared configuration and kind of sweep; "" without pairs."""
    out = []
    for (kernel, target, scenario, method, unit, options), points in paired(results).items():
        extra = ",".join(f"{k}={v}" for k, v in options
                         if (k == "rotation" and scenario == "rotate") or (k == "load" and v != "none"))
        where = f"{kernel} on {target}, {scenario}{f' ({extra})' if extra else ''}, {method} method, {unit}"
        kinds = [against for against, varying in (("tasks", {t for t, _ in points}),
                                                  ("switches", {s for _, s in points})) if len(varying) > 1]
        for against in kinds or ["tasks"]:
            versus = f" against the number of {against}" if kinds else ""
            results = [r for pair in points.values() for r in pair.values()]
            out += [f"software vs PendSV switching{versus}: {where}",
                    *aligned([header(against, unit), *rows(points, against)]), *board_facts.memory_lines(results), ""]
    return "\n".join(out).rstrip()


def plot(points: dict[tuple[int, int], dict[str, Result]], against: str, title: str) -> str:
    """Both mechanisms' curves on one figure."""
    ordered = sorted(points.items())
    unit = ordered[0][1]["software"].unit
    labels = [str(t) if against == "tasks" else f"{s:,}" for (t, s), _ in ordered]
    series = []
    for mechanism in MECHANISMS:
        line = []
        for (_, _), pair in ordered:
            r = pair[mechanism]
            value = r.stats.median if against == "tasks" else total(r)
            low, high = (r.stats.min, r.stats.max) if against == "tasks" else (value, value)
            line.append({"median": value, "min": low, "max": high,
                         "title": f"{mechanism}: {cell(value)} {unit}"})
        series.append(("PendSV" if mechanism == "pendsv" else "software", line))
    x_label = "number of tasks" if against == "tasks" else "number of switches"
    return svg.lines(labels, series, x_label, unit, title)
