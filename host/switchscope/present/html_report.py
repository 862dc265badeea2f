"""The HTML report: one self-contained page (styles, a small sorting script and
SVG figures inline; nothing fetched) from any results switchscope wrote.

What it shows, each part only where the results hold it:
- kernels side by side, per target, method and unit (default configurations);
- configurations side by side per kernel and target (the BeRTOS layout when
  the configurations are preemption x priorities);
- rotate against the number of tasks and against the number of switches;
- Thread-Metric's tests: per loop, and the loops of 30 s at the clock;
- the intrusion table;
- every result in one sortable table, and each one's distribution, statistics
  and provenance (method, configuration, compiler, simulator, firmware size,
  stamp timer), with a link to the JSON file it came from.
"""

from __future__ import annotations

import os
from collections import Counter
from html import escape
from pathlib import Path

from switchscope import __version__
from switchscope.common import outputs
from switchscope.figures import floor
from switchscope.figures.message_cost import message_costs
from switchscope.figures.result import STAT_KEYS
from switchscope.figures.results_files import ResultsFile
from switchscope.present import board_facts, html_result, report, svg, switches_view, thread_metric_view

from switchscope.present.html_parts import (
    Entry, number_text, with_us, stat_cells, html_table, scenario_key, preferred, median_cells, median_grid,
    differing_options, options_label, breakable, columns_differ_note, bertos_order, unit_heading, provenance_note, memory_notes, not_measurable, unavailable_notes, BERTOS_OPTIONS, STYLE, SCRIPT,
    name_headings, natural_key,
)

OPENED_AT_MOST = 100  # results whose histograms the page shows open


class Page:
    def __init__(self, files: list[ResultsFile], page_path: Path, title: str, warnings: list[str] = ()):
        self.files, self.title, self.warnings = files, title, list(warnings)
        self.entries: list[Entry] = []
        for found in files:
            link = Path(os.path.relpath(found.path.resolve(), page_path.resolve().parent)).as_posix()
            for result in found.results:
                self.entries.append(Entry(len(self.entries) + 1, result, found.path, link))
        name_headings(self.entries)
        floor.attach([entry.result for entry in self.entries])  # files measured apart are compared too
        self.sections: list[tuple[str, str, str]] = []  # (anchor, title, html)

    # -- the parts -------------------------------------------------------------------------------

    def _scenario_entries(self) -> list[Entry]:
        return [e for e in self.entries if e.result.kind == "scenario" and e.result.kernel and e.result.target]

    def side_by_side(self, across: str) -> None:
        """Each kernel in its default configuration, side by side: the kernels on each target
        (across="kernel"), or each kernel's targets (across="target"), per method and unit."""
        fixed = "target" if across == "kernel" else "kernel"
        groups: dict[tuple, list[Entry]] = {}
        for entry in self._scenario_entries():
            r = entry.result
            # kernels on one target are counted alike; targets are compared where their unit is one name
            model = r.timing_model if across == "kernel" else None
            groups.setdefault((getattr(r, fixed), r.method, r.unit, model), []).append(entry)
        parts = []
        for (held, method, unit, _), entries in groups.items():
            names = list(dict.fromkeys(getattr(e.result, across) for e in entries))
            if len(names) < 2:
                continue
            columns: dict[str, list[Entry]] = {}
            named: dict[str, str] = {}  # column -> the kernel or target it holds
            caveats: dict[str, str] = {}  # target -> its board's caveat (a core timed on another's machine)
            software_clz: list[str] = []  # the cores whose column's kernel counts leading zeros in software
            all_default = True
            for name in names:
                mine = [e for e in entries if getattr(e.result, across) == name]
                defaults = [e for e in mine if e.is_default]
                if defaults:
                    chosen_options, differing = defaults[0].options_key, []
                else:  # not measured in its defaults: the configuration measured most, and what it changes
                    chosen_options = Counter(e.options_key for e in mine).most_common(1)[0][0]
                    differing = [f"{k}={v}" for k, v in chosen_options if (mine[0].defaults or {}).get(k) != v]
                    all_default = all_default and not differing
                counted = "" if across == "kernel" else f" ({report.how_counted(mine[0].result)})"
                caveat = report.caveat_of(mine[0].result) if across == "target" else None
                if caveat:
                    caveats[name] = caveat
                    counted += report.CAVEAT_MARK
                if across == "target" and any(board_facts.software_clz(e.result) for e in mine):
                    software_clz.append(mine[0].result.cpu)
                    counted += board_facts.SOFTWARE_CLZ_MARK
                column = name + counted + (f" [{', '.join(differing)}]" if differing else "")
                columns[column] = [e for e in mine if e.options_key == chosen_options]
                named[column] = name
            cells = median_cells(columns)
            # rows measured in two columns or more: the others are in their own tables
            rows = sorted({row for row, _ in cells if sum((row, c) in cells for c in columns) > 1},
                          key=lambda row: scenario_key(*row))
            if not rows:
                continue
            chosen = [cells[(row, c)] for row in rows for c in columns if (row, c) in cells]
            unavailable = {}
            for row in rows:
                for c in columns:
                    kernel, target = (held, named[c]) if across == "target" else (named[c], held)
                    why = None if (row, c) in cells else not_measurable(kernel, target, row[0], method, unit)
                    if why:
                        unavailable[(row, c)] = why
            configuration = "default configuration" + "s" * (across == "kernel") if all_default else \
                "configuration in each column"
            heading = (f"{held}: {unit_heading(chosen[0])}, {configuration}" if across == "kernel" else
                       f"{held} on each target: {chosen[0].result.method} method, {unit}, {configuration}")
            parts.append(
                f"<h3>{escape(heading)}</h3>"
                + median_grid(rows, list(columns), cells, unit, f"{across}s side by side, {held}", unavailable)
                + f'<p class="note">Median of each distribution, in {escape(unit)}; each in its kernel\'s default '
                  f"configuration unless its column says otherwise; a blank cell was not measured. "
                  f"{escape(provenance_note(chosen))}.</p>" + columns_differ_note(columns)
                + unavailable_notes(unavailable, list(columns))
                + "".join(f'<p class="note">{report.CAVEAT_MARK} {escape(target)}: {escape(caveat)}</p>'
                          for target, caveat in caveats.items())
                + (f'<p class="note">{escape(board_facts.software_clz_note(list(dict.fromkeys(software_clz))))}</p>'
                   if software_clz else "")
                + memory_notes([e.result for e in chosen]))
        if parts:
            anchor, title = ("kernels", "Kernels side by side") if across == "kernel" else \
                ("targets", "Targets side by side")
            note = "" if across == "kernel" else (
                '<p class="note">Each target\'s cycles are its own: simavr counts the AVR\'s, Verilator the Ibex '
                "RTL's; on the Cortex-M boards and ibex-qemu they come from the core's timing model under QEMU (a "
                "column names which). Instructions are comparable across Cortex-M targets only.</p>")
            self.sections.append((anchor, title, note + "".join(parts)))

    def configurations(self) -> None:
        """Per kernel and target: each configuration measured, side by side."""
        groups: dict[tuple, list[Entry]] = {}
        for entry in self._scenario_entries():
            r = entry.result
            groups.setdefault((r.kernel, r.target, r.method, r.unit, r.timing_model), []).append(entry)
        parts = []
        for (kernel, target, _, unit, _), entries in groups.items():
            option_sets = list(dict.fromkeys(e.options_key for e in entries))
            if len(option_sets) < 2:
                continue
            differing = differing_options(option_sets)
            labelled = sorted(((options_label(o, differing), o) for o in option_sets),
                              key=lambda pair: bertos_order(pair[0]))
            cells = median_cells({label: [e for e in entries if e.options_key == options] for label, options in labelled})
            columns = [label for label, _ in labelled]
            # rows measured in more than one configuration: the others are in the tables below
            rows = sorted({row for row, _ in cells if sum((row, c) in cells for c in columns) > 1},
                          key=lambda row: scenario_key(*row))
            if not rows:
                continue
            shared = [f"{k}={v}" for k, v in option_sets[0] if k not in differing]
            bertos = BERTOS_OPTIONS <= set(differing) <= BERTOS_OPTIONS | {"switch"}
            notes = [f"Median of each distribution, in {unit}. " + provenance_note(list(cells.values())) + "."]
            if bertos:
                notes.append("Cooperative: preemption=off; Preemptive: preemption=on. NOPRI: every task at one "
                             "priority (priorities=off); PRI: low task 1, high task 2. Where the call does not "
                             "switch by itself (cooperative, or NOPRI) the window also holds the yield that "
                             "completes the switch.")
            notes.append("Every cell: " + (", ".join(shared) or "no other option"))
            parts.append(
                f"<h3>{escape(kernel)} on {escape(target)}: {escape(unit_heading(entries[0]))}"
                f"{' (BeRTOS layout)' if bertos else ''}</h3>"
                + median_grid(rows, columns, cells, unit, f"{kernel} on {target} by configuration")
                + "".join(f'<p class="note">{escape(note)}</p>' for note in notes)
                + memory_notes([e.result for e in cells.values()]))
        if parts:
            self.sections.append(("configurations", "Configurations side by side", "".join(parts)))

    def rotate_curves(self) -> None:
        """The Cortex-M3 study's curves: time per switch against the number of tasks, a line per
        configuration; and against the number of switches, a line per task count."""
        rotate = [e for e in self._scenario_entries() if e.result.scenario == "rotate" and e.result.tasks]
        groups: dict[tuple, list[Entry]] = {}
        for entry in rotate:
            r = entry.result
            groups.setdefault((r.kernel, r.target, r.method, r.unit), []).append(entry)
        parts = []
        pairs = Counter((kernel, target) for kernel, target, _, _ in groups)
        for (kernel, target, method, unit), entries in groups.items():
            # the method and unit in the heading where another chart of this kernel and target has others
            where = f"{kernel} on {target}" + (f", {method} method in {unit}" if pairs[kernel, target] > 1 else "")
            configurations = {}
            for e in sorted(entries, key=lambda e: (not e.is_default, natural_key(e.configuration))):
                configurations.setdefault(e.configuration, {}).setdefault(e.result.tasks, []).append(e)
            curves = {name: {tasks: preferred(same) for tasks, same in by_tasks.items()}
                      for name, by_tasks in configurations.items() if len(by_tasks) > 1}
            if curves:
                parts.append(self._curves(f"{where}: rotate, time per switch against the number of tasks",
                                          curves, "number of tasks", unit, "tasks", str))
            for name, by_tasks in configurations.items():
                curves = {f"{tasks} tasks": {e.size: e for e in same} for tasks, same in sorted(by_tasks.items())}
                curves = {line: by_size for line, by_size in curves.items() if len(by_size) > 1}
                if curves:
                    parts.append(self._curves(f"{where}: rotate, time per switch against the number of "
                                              f"switches", curves, "number of switches", unit, "switches",
                                              "{:,}".format, name))
        if parts:
            self.sections.append(("rotate", "Rotate: tasks and switches", "".join(parts)))

    def thread_metric(self) -> None:
        """Thread-Metric's tests: per loop, and the loops of 30 s at the clock."""
        part = thread_metric_view.html([e.result for e in self._scenario_entries()], html_table)
        if part:
            self.sections.append(("thread-metric", "Thread-Metric", part))

    def application_switches(self) -> None:
        parts = [switches_view.html(e.result, e.anchor) for e in self.entries if e.result.kind == "switches"]
        if parts:
            self.sections.append(("switches", "Task switches of an application", "".join(parts)))

    def message_curves(self) -> None:
        """msg against the message's size, with what each byte adds (a sweep of msg_size)."""
        entries = {id(e.result): e for e in self._scenario_entries()}

        def line_name(cost) -> str:  # the method, unit and the options changed, msg_size aside: the heading says it
            changed = next(iter(entries[id(r)] for r in cost.by_size.values())).changed_options
            return ", ".join([f"{cost.method} method", cost.unit, *(o for o in changed if not o.startswith("msg_size="))])
        parts = [self._curves(f"{cost.kernel} on {cost.target}: msg against the message's size",
                              {line_name(cost): {size: entries[id(r)] for size, r in sorted(cost.by_size.items())}},
                              "message size (bytes)", cost.unit, "bytes", str)
                 + f'<p class="note">{cost.per_byte:,.2f} {escape(cost.unit)} per byte, {cost.fixed:,.1f} at 0 '
                   "bytes: the least-squares line through the medians.</p>"
                 for cost in message_costs([e.result for e in entries.values()])]
        if parts:
            self.sections.append(("msg", "msg: the cost per byte", "".join(parts)))

    def _curves(self, title: str, curves: dict[str, dict[int, Entry]], x_label: str, unit: str, axis: str,
                label, configuration: str = "") -> str:
        """A chart with a line per curve ({name: {x: entry}}), and its table. The heading says the
        configuration when every line has one (`configuration`, or the one curve's name), the legend
        each line's when they differ."""
        xs = sorted({x for curve in curves.values() for x in curve})
        if not configuration and len(curves) == 1:
            configuration = next(iter(curves))
        heading = f"{title} ({configuration})" if configuration else title
        series, rows = [], []
        for name, curve in curves.items():
            points = []
            for x in xs:
                e = curve.get(x)
                points.append(e and {
                    "median": e.result.stats.median, "min": e.result.stats.min, "max": e.result.stats.max,
                    "title": f"{name}, {label(x)} {axis}: median {number_text(e.result.stats.median)} {unit} "
                             f"(min {number_text(e.result.stats.min)}, max {number_text(e.result.stats.max)}, "
                             f"{e.result.excluded} excluded)"})
                if e:
                    rows.append([escape(name), f'<a href="#{e.anchor}">{label(x)}</a>', with_us(e.result),
                                 number_text(e.result.stats.min), number_text(e.result.stats.max),
                                 f"{e.result.stats.mean:,.2f}", str(e.result.excluded)])
            series.append((name, points))
        chosen = [e for curve in curves.values() for e in curve.values()]
        return (f"<h3>{escape(heading)}</h3>"
                + svg.lines([label(x) for x in xs], series, x_label, unit, heading)
                + html_table(["line" if len(curves) > 1 else "", axis, f"median ({escape(unit)})", "min", "max",
                              "mean", "excluded"], rows)
                + f'<p class="note">Line: median; band: min to max. {escape(unit_heading(chosen[0]))}; '
                  f"{escape(provenance_note(chosen))}.</p>" + memory_notes([e.result for e in chosen]))

    def intrusion(self) -> None:
        rows = [row for found in self.files for row in found.intrusion]
        if not rows:
            return
        parts = []
        for target in dict.fromkeys(r.get("target") for r in rows):
            group = [r for r in rows if r.get("target") == target]
            unit = group[0].get("unit", "")
            table_rows = []
            for r in group:
                probe, scope, printed = r.get("probe", {}), r.get("scope", {}), r.get("print", {})
                print_cells = (["n/a", "", ""] if "error" in printed or not printed else
                               [number_text(printed["raw"]), f"+{number_text(printed['adds'])}",
                                f"{printed['factor']:.1f}" if printed.get("factor") else "-"])
                table_rows.append([escape(str(r.get("kernel"))), escape(str(r.get("scenario"))),
                                   number_text(r["marker"]), number_text(probe["raw"]), f"+{number_text(probe['adds'])}",
                                   number_text(probe["corrected"]), f"{probe['residual']:+g}",
                                   number_text(scope["t_cd"]), f"+{number_text(scope['adds'])}", number_text(scope["t_cs"]),
                                   f"{scope['residual']:+g}", *print_cells])
            parts.append(f"<h3>{escape(str(target))}, in {escape(unit)}</h3>" + html_table(
                ["kernel", "scenario", "marker", "probe raw", "adds", "corrected", "residual", "scope tCD", "adds",
                 "tCS", "residual", "print raw", "adds", "× marker"], table_rows, text_columns=(0, 1)))
        parts.append('<p class="note">Medians. The marker method puts no code in the path: its figure is the '
                     "reference. Each method's raw reading, what it adds to the path, its figure after its own "
                     "correction and the error left; the last columns measure a build that prints one trace line "
                     "inside the window.</p>")
        self.sections.append(("intrusion", "Intrusion of each method", "".join(parts)))

    def every_result(self) -> None:
        if not self.entries:
            return
        ranged, note = any(e.result.bounds for e in self.entries), report.range_note([e.result for e in self.entries])
        # "kept" and "excl" add up to the samples taken: a column fewer, so the table fits a 1,400 px screen
        header = ["#", "kernel", "target", "scenario", "tasks", "method", "configuration", "kept",
                  "excl", *report.with_range(STAT_KEYS, STAT_KEYS, report.RANGE_COLUMN, ranged), "unit",
                  "median µs", "file"]
        rows = []
        for e in self.entries:
            r, stats = e.result, e.result.stats
            rows.append([f'<td data-sort="{e.index}"><a href="#{e.anchor}">{e.index}</a></td>',
                         *(escape(str(v or "-")) for v in (r.kernel, r.target, r.scenario)),
                         str(r.tasks or "-"), escape(r.method), breakable(", ".join(e.changed_options) or "default"),
                         f"{r.count:,}", str(r.excluded),
                         *report.with_range(STAT_KEYS, stat_cells(stats), report.trm_range(r, figure=number_text),
                                            ranged),
                         escape(r.unit), f"{r.stats_ns.median / 1000:.3f}" + board_facts.WAIT_STATES_MARK
                         * bool(board_facts.wait_states(r)) if r.ns_per_unit is not None else "-",
                         f'<a href="{escape(e.link)}">{breakable(e.file.name)}</a>'])
        self.sections.append((
            "every-result-section", "Every result",
            '<p class="note">Click a column to sort by it; type to keep the rows that contain the text. '
            '"configuration" lists the options that differ from the kernel\'s defaults; "kept" and "excl" '
            '(excluded) add up to the samples taken.'
            + (f" {escape(note)}." if note else "") + '</p>'
            + memory_notes([e.result for e in self.entries]) +
            '<input id="filter" type="search" placeholder="filter: freertos, rotate, -Os ..." aria-label="filter">'
            + html_table(header, rows, "sortable results", "every-result",
                         text_columns=tuple(i for i, name in enumerate(header)
                                            if name in ("kernel", "target", "scenario", "method", "unit")),
                         wrapped_columns=tuple(header.index(name) for name in ("scenario", "configuration", "file")))))

    def distributions(self) -> None:
        if not self.entries:
            return
        note = "" if len(self.entries) <= OPENED_AT_MOST else (
            f'<p class="note">{len(self.entries):,} results: each opens on a click (a page of more than '
            f"{OPENED_AT_MOST} open histograms is slow to scroll).</p>")
        self.sections.append(("distributions", "Each result: distribution and provenance",
                              note + "".join(html_result.details(e, len(self.entries) <= OPENED_AT_MOST)
                                                     for e in self.entries)))


    # -- the page -------------------------------------------------------------------------------

    def render(self) -> str:
        self.side_by_side("kernel")
        self.side_by_side("target")
        self.configurations()
        self.rotate_curves()
        self.message_curves()
        self.thread_metric()
        self.application_switches()
        self.intrusion()
        self.every_result()
        self.distributions()
        warnings = self.warnings + [f"{f.path}: incomplete: {f.incomplete}" for f in self.files if f.incomplete]
        warnings += [f"{f.path}: failed: {failure.get('job', '')} {failure.get('error', '')}".strip()
                     if isinstance(failure, dict) else f"{f.path}: failed: {failure}"
                     for f in self.files for failure in f.failures]
        # the directories the files are in, as the file system names them ("." says nothing on a page)
        sources = sorted({f.path.resolve().parent if f.path.parent.name != "runs" else f.path.resolve()
                          for f in self.files})
        units = ", ".join(sorted({e.result.unit for e in self.entries})) or "none"
        contents = "".join(f'<li><a href="#{anchor}">{escape(title)}</a></li>' for anchor, title, _ in self.sections)
        body = "".join(f'<section id="{anchor}"><h2>{escape(title)}</h2>{html}</section>'
                       for anchor, title, html in self.sections)
        return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="switchscope {escape(__version__)}">
<title>{escape(self.title)}</title><style>{STYLE}</style></head>
<body><header><h1>{escape(self.title)}</h1>
<p class="note">switchscope {escape(__version__)}; {report.counted(len(self.entries), 'result')} from {report.counted(len(self.files), 'file')};
units: {escape(units)}. Every figure says its unit: cycles and instructions are what the simulator or
board counted, µs appear only where the unit is a cycle of a known clock. Each result below names its
method, configuration, compiler and simulator.</p>
<p class="note">read from: {escape(", ".join(map(str, sources[:6])) + (" ..." if len(sources) > 6 else ""))}</p>
</header>
{"".join(f'<div class="warning">{escape(w)}</div>' for w in warnings)}
<nav><ul>{contents}</ul></nav>
{body}
<script>{SCRIPT}</script>
</body></html>
"""


def render(files: list[ResultsFile], page_path: Path, title: str = "switchscope report",
           warnings: list[str] = ()) -> str:
    """The page for these files, its links relative to where it will be written; `warnings`
    (what failed, what is incomplete) head the page."""
    return Page(files, page_path, title, warnings).render()


def write(path: Path, files: list[ResultsFile], title: str = "switchscope report", warnings: list[str] = ()) -> Path:
    outputs.write_text(path, render(files, path, title, warnings))
    return path
