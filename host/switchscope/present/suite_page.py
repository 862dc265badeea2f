"""What `switchscope suite` writes of its measurements besides each run's
JSON: summary.md (kernels side by side, the BeRTOS layout, the rotate
curves, every run), index.html (the HTML report of them all) and the
figures, as SVG files drawn by svg.py, under plots/."""

from __future__ import annotations

from pathlib import Path

from switchscope import __version__, catalog
from switchscope.common import outputs
from switchscope.figures.matrix import Point
from switchscope.figures.result import Result
from switchscope.figures.results_files import ResultsFile
from switchscope.figures.suite import (BERTOS_COLUMNS, BERTOS_SCENARIOS, RHEALSTONE_SCENARIOS, SWITCH_COUNTS,
                                       result_path, run_name)
from switchscope.present import board_facts, html_report, mechanism, svg, table_notes
from switchscope.present.cells import kernel_named
from switchscope.present.report import aligned, cell


def _value(result: dict) -> str:
    median = cell(result.stats.median)
    if result.ns_per_unit is not None:
        return f"{median} ({result.stats_ns.median / 1000:.2f} µs{board_facts.WAIT_STATES_MARK * bool(board_facts.wait_states(result))})"
    return median


def bertos_columns(outcomes: list[tuple[Point, Result | str]]) -> list[str]:
    """The BeRTOS table's columns: its four, or four per switch mechanism ("software: Cooperative NOPRI")."""
    mechanisms = list(dict.fromkeys(p.group.split(":")[2] for p, _ in outcomes
                                    if p.group.startswith("bertos:") and p.group.count(":") == 2))
    names = [c for c, _ in BERTOS_COLUMNS]
    return [f"{m}: {c}" for m in mechanisms for c in names] if mechanisms else names


def _bertos_column(group: str) -> str:
    _, column, *mechanism = group.split(":")
    return f"{mechanism[0]}: {column}" if mechanism else column


def _bertos(kernel: catalog.Kernel, target: str, outcomes: list[tuple[Point, Result | str]]):
    """The columns, the rows (scenario, a cell per column) and the notes that state every cell's configuration."""
    mine = [(p, o) for p, o in outcomes
            if p.group.startswith("bertos:") and p.job.kernel == kernel and p.job.target.name == target]
    by_cell = {(p.job.scenario.name, _bertos_column(p.group)): o for p, o in mine}
    columns = bertos_columns(mine)
    rows = []
    for name in BERTOS_SCENARIOS:
        row = [name]
        for column in columns:
            outcome = by_cell.get((name, column))
            row.append(_value(outcome) if isinstance(outcome, Result) else "failed" if outcome else "-")
        rows.append(row)
    results = [o for o in by_cell.values() if isinstance(o, Result)]
    notes = []
    if results:
        first = results[0]
        options = {o.name: o for o in kernel.options}
        common = {k: v for k, v in first.options.items()
                  if k not in ("preemption", "priorities", "switch") and all(r.options.get(k) == v for r in results)}
        tick = first.config.get("configTICK_RATE_HZ")
        preemption = options["preemption"].define
        notes = [
            f"median of each distribution, in {first.unit}" + (" (and µs)" if first.ns_per_unit else "")
            + f"; {kernel_named(kernel.title, first.kernel_version)}, probe method" + (f", tick {tick} Hz" if tick else ""),
            f"Cooperative: preemption=off ({preemption}=0); Preemptive: preemption=on ({preemption}=1)",
            "NOPRI: every task at one priority (priorities=off); PRI: low task 1, high task 2. Where the call does "
            "not switch by itself (cooperative, or NOPRI) the window also holds the yield that completes the switch",
            "every cell: " + ", ".join(f"{k}={v}" for k, v in sorted(common.items())),
        ]
        if len(columns) > len(BERTOS_COLUMNS):
            notes.append("software: / pendsv: the switch mechanism of the column group (--config switch=...), "
                         "the Cortex-M3 study's two")
    return columns, rows, notes


def _markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def _figure(path: Path, drawn: str) -> list[Path]:
    outputs.write_text(path, drawn + "\n")
    return [path]


def _curve(results: list[Result], labels: list[str], x_label: str, title: str, path: Path) -> list[Path]:
    """Medians against tasks or switches, each point with its min-max band."""
    unit = results[0].unit
    points = [{"median": r.stats.median, "min": r.stats.min, "max": r.stats.max,
               "title": f"{label}: median {cell(r.stats.median)} {unit}"} for label, r in zip(labels, results)]
    return _figure(path.with_suffix(".svg"), svg.lines(labels, [("", points)], x_label, unit, title))


def _mechanisms(kernel: str, target: str, mine: list[tuple[Point, Result | str]], plots_dir: Path | None,
                written: list[Path]) -> list[str]:
    """The study's comparison of software and PendSV switching: a table and a plot against tasks, and
    against switches; figures are added to `written`."""
    lines = []
    for against in ("tasks", "switches"):
        results = [o for p, o in mine if p.group == f"mechanism-{against}" and isinstance(o, Result)]
        for (*_, unit, options), points in mechanism.paired(results).items():
            tasks = next(iter(points.values()))["software"].tasks
            what = ("time per switch against the number of tasks" if against == "tasks"
                    else f"total time against the number of switches ({tasks} tasks)")
            lines += [f"### Software vs PendSV switching: {what} (rotate, {unit})", "",
                      *_markdown_table(mechanism.header(against, unit), mechanism.rows(points, against)), "",
                      "- relative: how much longer PendSV takes than software (negative: shorter), as the "
                      "Cortex-M3 study states its \"about 1.5%\"; every other option at its default", ""]
            if plots_dir is not None:
                written += _figure(plots_dir / f"mechanism-{against}-{kernel}-{target}.svg",
                                   mechanism.plot(points, against, f"{kernel} on {target}: software vs PendSV "
                                                  f"switching, {what}, {unit}"))
    return lines


def _missing_cell(cell: tuple, failed: set, planned: set) -> str:
    """A side-by-side cell without a result: its measurement failed, is another share's, or none runs it."""
    return "failed" if cell in failed else "-" if cell in planned else "n/a"


def write(out: Path, outcomes: list[tuple[Point, Result | str]], samples: int, wall_seconds: float,
          workers: int, incomplete: str | None = None, share: str | None = None,
          shares: int | None = None, planned: list[Point] = ()) -> list[Path]:
    """summary.md, index.html and the figures of `outcomes` (each point's Result, or why it failed) in `out`;
    the files written, the runs' JSON among them. `share` ("2/8"): the directory holds that share of the
    suite only, `planned` being every point of the suite (a cell of another share is "-", one no kernel
    measures "n/a"); `shares`: it is that many shares merged, and `wall_seconds` their times added."""
    plots_dir = out / "plots"
    draw = incomplete is None  # an interrupted suite writes its summary at once, without figures
    # a measurement shown in two tables (a default configuration is also a BeRTOS column) is one run
    runs: dict[Path, tuple[Point, Result | str]] = {}
    for point, outcome in outcomes:
        runs.setdefault(result_path(out, point), (point, outcome))
    written = [path for path, (_, outcome) in runs.items() if isinstance(outcome, Result)]

    lines = [
        "# switchscope suite",
        "",
        f"switchscope {__version__}; {len(runs)} measurements, {samples} samples each (the switch-count "
        f"curve: {', '.join(map(str, SWITCH_COUNTS))}); "
        + (f"{wall_seconds:.1f} s of measuring over {shares} shares." if shares
           else f"{wall_seconds:.1f} s on {workers} worker(s)."),
        "",
    ]
    measured = [outcome for _, outcome in runs.values() if isinstance(outcome, Result)]
    if measured:  # what a merge of shares says as the whole suite does: no times
        lines += [f"Measured with: {table_notes.provenance_line(measured, when=False).strip()}.", ""]
        lines += [f"{line.strip()}.\n" for line in board_facts.memory_lines(measured)]
    if share and share != "1/1":
        lines += [f"Share {share} of the suite (--subset): the measurements of the other shares are not here "
                  "(- in a table); `switchscope merge` joins the shares.", ""]
    if incomplete:
        lines += [f"**Incomplete: {incomplete}.** `switchscope suite --resume` measures the rest.", ""]
    failures = [(p, o) for p, o in runs.values() if isinstance(o, str)]
    if failures:
        lines += ["## Failures", "", *(f"- {p.job} ({p.samples} samples): {o}" for p, o in failures), ""]

    side_by_side = [(p, o) for p, o in outcomes if p.group == "kernels" and isinstance(o, Result)]
    planned_cells = {(p.job.kernel.name, p.job.target.name, p.job.scenario.name)
                     for p in planned if p.group == "kernels"}
    failed_cells = {(p.job.kernel.name, p.job.target.name, p.job.scenario.name)
                    for p, o in outcomes if p.group == "kernels" and isinstance(o, str)}
    for target in dict.fromkeys(p.job.target.name for p, _ in side_by_side):
        here = [(p, o) for p, o in side_by_side if p.job.target.name == target]
        kernels_here = list(dict.fromkeys([p.job.kernel.name for p, _ in here] +
                                          [kernel for kernel, on, _ in sorted(planned_cells) if on == target]))
        cells = {(p.job.kernel.name, p.job.scenario.name): _value(o) + (f", x{o.x_floor:.2f}" if o.x_floor else "")
                 for p, o in here}
        lines += [f"## Kernels side by side on {target} (default configurations, probe, medians, "
                  f"{here[0][1].unit}; x: the median over the floor kernel's)", "",
                  *_markdown_table(["scenario", *kernels_here],
                                   [[name, *(cells.get((k, name), _missing_cell((k, target, name), failed_cells,
                                                                                planned_cells)) for k in kernels_here)]
                                    for name in BERTOS_SCENARIOS + RHEALSTONE_SCENARIOS]), ""]

    pairs = dict.fromkeys((p.job.kernel, p.job.target.name) for p, _ in outcomes if p.group != "kernels")
    for kernel_entry, target in pairs:
        kernel = kernel_entry.name
        mine = [(p, o) for p, o in outcomes if p.job.kernel == kernel_entry and p.job.target.name == target]
        lines += [f"## {kernel} on {target}", ""]

        columns, rows, notes = _bertos(kernel_entry, target, mine)
        if any(p.group.startswith("bertos:") for p, _ in mine):  # a kernel without the BeRTOS options has none
            lines += ["### Configurations (BeRTOS layout)", "", *_markdown_table(["scenario", *columns], rows), ""]
            lines += [f"- {note}" for note in notes] + [""]
        if draw:
            medians = {(p.job.scenario.name, _bertos_column(p.group)): o.stats.median for p, o in mine
                       if p.group.startswith("bertos:") and isinstance(o, Result)}
            if medians:
                unit = next(o.unit for p, o in mine if isinstance(o, Result))
                written += _figure(plots_dir / f"bertos-{kernel}-{target}.svg",
                                   svg.grouped_bars(list(BERTOS_SCENARIOS), columns, medians, unit,
                                                    f"{kernel} on {target}: switch time by configuration, medians "
                                                    f"in {unit}"))

        by_tasks = [o for p, o in mine if p.group == "tasks" and isinstance(o, Result)]
        if by_tasks:
            lines += ["### Time against the number of tasks (rotate)", "",
                      *_markdown_table(["tasks", "median", "min", "max", "excluded"],
                                       [[str(r.tasks), _value(r), cell(r.stats.min), cell(r.stats.max),
                                         str(r.excluded)] for r in sorted(by_tasks, key=lambda r: r.tasks)]), ""]
            if draw:
                ordered = sorted(by_tasks, key=lambda r: r.tasks)
                written += _curve(ordered, [str(r.tasks) for r in ordered], "number of tasks",
                                  f"{kernel} on {target}: rotate, time per switch (default configuration)",
                                  plots_dir / f"tasks-{kernel}-{target}")

        by_switches = [o for p, o in mine if p.group == "switches" and isinstance(o, Result)]
        if by_switches:
            lines += [f"### Time against the number of switches (rotate, {by_switches[0].tasks} tasks)", "",
                      *_markdown_table(["switches", "total (switches x mean)", "median per switch", "mean", "max"],
                                       [[str(r.count + r.excluded), cell(round(mechanism.total(r))), _value(r),
                                         f"{r.stats.mean:.2f}", cell(r.stats.max)]
                                        for r in sorted(by_switches, key=lambda r: r.count)]), ""]
            if draw:
                ordered = sorted(by_switches, key=lambda r: r.count)
                written += _curve(ordered, [f"{r.count + r.excluded:,}" for r in ordered], "number of switches",
                                  f"{kernel} on {target}: rotate, {ordered[0].tasks} tasks (default configuration)",
                                  plots_dir / f"switches-{kernel}-{target}")

        lines += _mechanisms(kernel, target, mine, plots_dir if draw else None, written)

        for point, outcome in runs.values():
            if draw and isinstance(outcome, Result) and point.job.kernel == kernel_entry \
                    and point.job.target.name == target:
                written += _figure(plots_dir / "histograms" / kernel / target / f"{run_name(point)}.svg",
                                   svg.histogram(outcome.samples, outcome.unit, outcome.stats.as_dict(),
                                                 f"{point.job} ({point.samples} samples), {outcome.unit}"))

    lines += ["## Every run", "", "```", *aligned(
        [["run", "samples", "median", "min", "max", "unit"]]
        + [[str(p.job), str(p.samples), cell(o.stats.median), cell(o.stats.min), cell(o.stats.max),
            o.unit] for p, o in runs.values() if isinstance(o, Result)]), "```", ""]
    summary = out / "summary.md"
    outputs.write_text(summary, "\n".join(lines))
    page = html_report.write(out / "index.html",
                             [ResultsFile(path, [o]) for path, (_, o) in runs.items() if isinstance(o, Result)],
                             "switchscope suite", [f"Incomplete: {incomplete}; switchscope suite --resume measures "
                                                   "the rest."] * bool(incomplete)
                             + [f"failed: {p.job} ({p.samples} samples): {o}" for p, o in failures])
    return [summary, page, *written]


