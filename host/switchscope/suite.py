"""`switchscope suite`: the experiment matrix of the seeds for every kernel
and target, written to a results directory.

- every kernel side by side on each target, in its default configuration;
- BeRTOS layout: each scenario under {cooperative, preemptive} x {priorities
  off (NOPRI), on (PRI)};
- the Cortex-M3 study's curves: switch time against the number of rotating
  tasks, and against the number of switches (100, 1000, 10000).

The directory holds one JSON per run (runs/), summary.md, index.html (the
HTML report of them all) and the plots (plots/, PNG and SVG).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from switchscope import __version__, catalog, configs, matrix, outputs, results_files
from switchscope.errors import Interrupted, SwitchscopeError
from switchscope.matrix import Point
from switchscope.plan import plan
from switchscope.report import aligned, cell
from switchscope.result import Result

BERTOS_SCENARIOS = ("resume", "signal", "yield", "isr")
BERTOS_COLUMNS = (("Cooperative NOPRI", {"preemption": "off", "priorities": "off"}),
                  ("Cooperative PRI", {"preemption": "off", "priorities": "on"}),
                  ("Preemptive NOPRI", {"preemption": "on", "priorities": "off"}),
                  ("Preemptive PRI", {"preemption": "on", "priorities": "on"}))
SWITCH_COUNTS = (100, 1000, 10000)
MAX_ROTATE_TASKS = 8
SWITCHES_TASKS = 4


def points(kernels: list[catalog.Kernel], targets: list[catalog.Target], samples: int) -> list[Point]:
    probe = [catalog.METHODS["probe"]]
    bertos = [catalog.SCENARIOS[name] for name in BERTOS_SCENARIOS]
    rotate = [catalog.SCENARIOS["rotate"]]
    found = []
    for target in targets:  # every kernel side by side, in its default configuration
        found += [Point(job, samples, "kernels") for job in plan(kernels, [target], bertos, probe).jobs]
    for kernel in kernels:
        for target in targets:
            # a kernel without the BeRTOS options has no such table: plan() leaves it out
            for column, options in BERTOS_COLUMNS:
                found += [Point(job, samples, f"bertos:{column}")
                          for job in plan([kernel], [target], bertos, probe, [options], strict_options=False).jobs]
            tasks = list(range(2, min(MAX_ROTATE_TASKS, target.max_tasks) + 1))
            found += [Point(job, samples, "tasks") for job in plan([kernel], [target], rotate, probe, tasks=tasks).jobs]
            switches_tasks = min(SWITCHES_TASKS, target.max_tasks)
            found += [Point(job, count, "switches")
                      for job in plan([kernel], [target], rotate, probe, tasks=[switches_tasks]).jobs
                      for count in SWITCH_COUNTS]
    return found


def _run_name(point: Point) -> str:
    job = point.job
    defaults = configs.resolve({}, job.kernel, job.target, job.scenario, job.tasks)
    tasks = f"-{job.tasks}tasks" if job.tasks else ""
    label = job.config.label(defaults).replace(",", "_").replace("=", "-") if job.config else "default"
    group = "kernels-" if point.group == "kernels" else ""
    return f"{group}{job.scenario.name}{tasks}-{label}-{point.samples}"


def _value(result: dict) -> str:
    median = cell(result.stats.median)
    if result.ns_per_unit is not None:
        return f"{median} ({result.stats_ns.median / 1000:.2f} µs)"
    return median


def _bertos(kernel: catalog.Kernel, target: str, outcomes: list[tuple[Point, Result | str]]):
    """Rows (scenario, 4 cells) and the notes that state every cell's configuration."""
    by_cell = {(p.job.scenario.name, p.group.split(":", 1)[1]): o for p, o in outcomes
               if p.group.startswith("bertos:") and p.job.kernel == kernel and p.job.target.name == target}
    rows = []
    for name in BERTOS_SCENARIOS:
        row = [name]
        for column, _ in BERTOS_COLUMNS:
            outcome = by_cell.get((name, column))
            row.append(_value(outcome) if isinstance(outcome, Result) else "failed")
        rows.append(row)
    results = [o for o in by_cell.values() if isinstance(o, Result)]
    notes = []
    if results:
        first = results[0]
        options = {o.name: o for o in kernel.options}
        common = {k: v for k, v in first.options.items()
                  if k not in ("preemption", "priorities") and all(r.options.get(k) == v for r in results)}
        tick = first.config.get("configTICK_RATE_HZ")
        preemption = options["preemption"].define
        notes = [
            f"median of each distribution, in {first.unit}" + (" (and microseconds)" if first.ns_per_unit else "")
            + f"; {kernel.title} {first.kernel_version}, probe method" + (f", tick {tick} Hz" if tick else ""),
            f"Cooperative: preemption=off ({preemption}=0); Preemptive: preemption=on ({preemption}=1)",
            "NOPRI: every task at one priority (priorities=off); PRI: low task 1, high task 2. Where the call does "
            "not switch by itself (cooperative, or NOPRI) the window also holds the yield that completes the switch",
            "every cell: " + ", ".join(f"{k}={v}" for k, v in sorted(common.items())),
        ]
    return rows, notes


def _markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def result_path(out: Path, point: Point) -> Path:
    return out / "runs" / point.job.kernel.name / point.job.target.name / f"{_run_name(point)}.json"


def _write_result(out: Path, point: Point, outcome: Result | str) -> None:
    """Each result as soon as it is measured: an interrupted suite keeps it."""
    if isinstance(outcome, Result):
        outputs.write_text(result_path(out, point), json.dumps({"results": [outcome.to_json()]}, indent=1) + "\n")


def _written_before(out: Path, point: Point) -> Result | None:
    """The result an earlier run of the suite wrote for this point, if it is a whole one."""
    try:
        (result,) = results_files.read_file(result_path(out, point)).results
    except (SwitchscopeError, ValueError):  # missing, damaged, or not one result: measured again
        return None
    return result if result.count + result.excluded == point.samples else None


def write(out: Path, outcomes: list[tuple[Point, Result | str]], samples: int, wall_seconds: float,
          workers: int, incomplete: str | None = None) -> list[Path]:
    from switchscope import html_report, plots  # matplotlib loads only when a suite is written
    from switchscope.results_files import ResultsFile

    plots_dir = out / "plots"
    draw = incomplete is None  # an interrupted suite writes its summary at once, without plots
    written = [result_path(out, point) for point, outcome in outcomes if isinstance(outcome, Result)]

    lines = [
        "# switchscope suite",
        "",
        f"switchscope {__version__}; {len(outcomes)} measurements, {samples} samples each (the switch-count "
        f"curve: {', '.join(map(str, SWITCH_COUNTS))}); {wall_seconds:.1f} s on {workers} worker(s).",
        "",
    ]
    if incomplete:
        lines += [f"**Incomplete: {incomplete}.** `switchscope suite --resume` measures the rest.", ""]
    failures = [(p, o) for p, o in outcomes if isinstance(o, str)]
    if failures:
        lines += ["## Failures", "", *(f"- {p.job} ({p.samples} samples): {o}" for p, o in failures), ""]

    side_by_side = [(p, o) for p, o in outcomes if p.group == "kernels" and isinstance(o, Result)]
    for target in dict.fromkeys(p.job.target.name for p, _ in side_by_side):
        here = [(p, o) for p, o in side_by_side if p.job.target.name == target]
        kernels_here = list(dict.fromkeys(p.job.kernel.name for p, _ in here))
        cells = {(p.job.kernel.name, p.job.scenario.name): _value(o) for p, o in here}
        lines += [f"## Kernels side by side on {target} (default configurations, probe, medians, "
                  f"{here[0][1].unit})", "",
                  *_markdown_table(["scenario", *kernels_here],
                                   [[name, *(cells.get((k, name), "n/a") for k in kernels_here)]
                                    for name in BERTOS_SCENARIOS]), ""]

    pairs = dict.fromkeys((p.job.kernel, p.job.target.name) for p, _ in outcomes if p.group != "kernels")
    for kernel_entry, target in pairs:
        kernel = kernel_entry.name
        mine = [(p, o) for p, o in outcomes if p.job.kernel == kernel_entry and p.job.target.name == target]
        lines += [f"## {kernel} on {target}", ""]

        rows, notes = _bertos(kernel_entry, target, mine)
        columns = [c for c, _ in BERTOS_COLUMNS]
        lines += ["### Configurations (BeRTOS layout)", "", *_markdown_table(["scenario", *columns], rows), ""]
        lines += [f"- {note}" for note in notes] + [""]
        if draw:
            written += plots.table(rows, columns, f"{kernel} on {target}: switch time by configuration", notes,
                                   plots_dir / f"bertos-{kernel}-{target}")

        by_tasks = [o for p, o in mine if p.group == "tasks" and isinstance(o, Result)]
        if by_tasks:
            lines += ["### Time against the number of tasks (rotate)", "",
                      *_markdown_table(["tasks", "median", "min", "max", "excluded"],
                                       [[str(r.tasks), _value(r), cell(r.stats.min), cell(r.stats.max),
                                         str(r.excluded)] for r in sorted(by_tasks, key=lambda r: r.tasks)]), ""]
            if draw:
                written += plots.versus_tasks(by_tasks, f"{kernel} on {target}: rotate, time per switch",
                                              plots_dir / f"tasks-{kernel}-{target}")

        by_switches = [o for p, o in mine if p.group == "switches" and isinstance(o, Result)]
        if by_switches:
            lines += [f"### Time against the number of switches (rotate, {by_switches[0].tasks} tasks)", "",
                      *_markdown_table(["switches", "total", "median per switch", "mean", "max"],
                                       [[str(r.count + r.excluded), cell(sum(r.samples)), _value(r),
                                         f"{r.stats.mean:.2f}", cell(r.stats.max)]
                                        for r in sorted(by_switches, key=lambda r: r.count)]), ""]
            if draw:
                written += plots.versus_switches(by_switches, f"{kernel} on {target}: rotate, "
                                                 f"{by_switches[0].tasks} tasks",
                                                 plots_dir / f"switches-{kernel}-{target}")

        for point, outcome in mine:
            if draw and isinstance(outcome, Result):
                written += plots.histogram(outcome, f"{point.job} ({point.samples} samples)",
                                           plots_dir / "histograms" / kernel / target / _run_name(point))

    lines += ["## Every run", "", "```", *aligned(
        [["run", "samples", "median", "min", "max", "unit"]]
        + [[str(p.job), str(p.samples), cell(o.stats.median), cell(o.stats.min), cell(o.stats.max),
            o.unit] for p, o in outcomes if isinstance(o, Result)]), "```", ""]
    summary = out / "summary.md"
    outputs.write_text(summary, "\n".join(lines))
    page = html_report.write(out / "index.html",
                             [ResultsFile(result_path(out, p), [o]) for p, o in outcomes if isinstance(o, Result)],
                             "switchscope suite", [f"Incomplete: {incomplete}; switchscope suite --resume measures "
                                                   "the rest."] * bool(incomplete)
                             + [f"failed: {p.job} ({p.samples} samples): {o}" for p, o in failures])
    return [summary, page, *written]


def run(kernels, targets, samples: int, out: Path, workers: int | None, progress=None, resume: bool = False):
    """Measure the suite into `out`, each result written as soon as it is
    measured; with `resume`, the points whose results are already there are
    read back instead of measured. Interrupted, it writes the summary of what
    is complete, marked incomplete, and lets the interruption go on."""
    found = points(kernels, targets, samples)
    workers = workers or os.cpu_count() or 1
    kept = {index: result for index, point in enumerate(found)
            if resume and (result := _written_before(out, point)) is not None}
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        outcomes = matrix.run_points(found, workers, progress,
                                     lambda point, outcome, _: _write_result(out, point, outcome), kept)
    except Interrupted as interruption:
        outcomes = interruption.completed
        write(out, outcomes, samples, time.monotonic() - started, workers,
              incomplete=f"interrupted after {len(outcomes)} of {len(found)} measurements")
        interruption.kept = f"{len(outcomes)} of {len(found)} measurements kept in {out}"
        raise
    wall = time.monotonic() - started
    return outcomes, write(out, outcomes, samples, wall, workers), wall
