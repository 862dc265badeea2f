"""The HTML report's parts: its style and sorting script, a result's entry
on the page, and the cells, tables and grids of medians (with µs and the TRM
range beside them) that html_report.py assembles into the page."""


from __future__ import annotations

import re
from html import escape
from pathlib import Path

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.result import STAT_KEYS, Result
from switchscope.figures.suite import BERTOS_COLUMNS
from switchscope.present import board_facts, report, side_by_side, svg

SCENARIO_ORDER = ("resume", "signal", "yield", "isr", "rotate")
BERTOS_OPTIONS = {"preemption", "priorities"}  # configurations that differ in these are BeRTOS's four columns

STYLE = """
:root { color-scheme: light; --ink: #1d2731; --faint: #5c6b7a; --rule: #d5dde5; --band: #f3f6f9; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); margin: 0 auto;
       max-width: 1400px; padding: 1rem 1.2rem 4rem; }
p, ul.note, dl.provenance { max-width: 62rem; }
h1 { font-size: 1.6rem; margin: .4rem 0; } h2 { font-size: 1.25rem; margin-top: 2.4rem;
     border-bottom: 2px solid var(--rule); padding-bottom: .2rem; } h3 { font-size: 1.05rem; margin-top: 1.6rem; }
p.note, ul.note { color: var(--faint); font-size: .88rem; margin: .3rem 0; }
nav ul { columns: 2 18rem; padding-left: 1.1rem; font-size: .92rem; }
.scroll { overflow-x: auto; margin: .5rem 0; }
table { border-collapse: collapse; font-size: .88rem; font-variant-numeric: tabular-nums; }
th, td { padding: .22rem .55rem; border-bottom: 1px solid var(--rule); text-align: right; white-space: nowrap; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
thead th { background: var(--band); position: sticky; top: 0; white-space: normal; vertical-align: bottom; }
td.wrap { white-space: normal; overflow-wrap: normal; min-width: 4.5rem; max-width: 11rem; text-align: left; }
table.results { font-size: .8rem; } table.results th, table.results td { padding: .2rem .3rem; }
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: .7em; }
table.sortable thead th[aria-sort="descending"]::after { content: " \\25BC"; font-size: .7em; }
tbody tr:nth-child(even) { background: #fafbfc; }
small, .us, .floor { color: var(--faint); }
table.grid th, table.grid td { white-space: normal; } .figure, .us, .floor { white-space: nowrap; }
.warning { background: #fff4e0; border-left: 4px solid #e67e22; padding: .5rem .8rem; margin: 1rem 0; }
svg.plot { width: 100%; max-width: 540px; height: auto; display: block; margin: .6rem 0; }
svg.plot rect.bar:hover, svg.plot circle.point:hover { opacity: .7; }
details.result { border: 1px solid var(--rule); border-radius: 6px; margin: .5rem 0; padding: .3rem .8rem; }
details.result > summary { cursor: pointer; font-weight: 600; }
details.result[open] { background: #fcfdfe; }
dl.provenance { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .9rem; font-size: .86rem; }
dl.provenance dt { color: var(--faint); } dl.provenance dd { margin: 0; overflow-wrap: anywhere; }
code { font-size: .82rem; }
input#filter { font: inherit; padding: .3rem .5rem; width: min(100%, 26rem); margin: .3rem 0; }
@media (max-width: 640px) { body { font-size: 14px; padding: .6rem; } th, td { padding: .2rem .35rem; }
                             details.result { padding: .3rem .4rem; } }
"""

# Click a header to sort by it (numbers as numbers, also inside text, by each cell's data-sort when it has one);
# type in the filter to keep the rows that contain the text.
SCRIPT = """
(function () {
  function key(cell) {
    var text = cell.getAttribute("data-sort") || cell.textContent.trim();
    var number = parseFloat(text.replace(/,/g, ""));
    return isNaN(number) || !/^[-+]?[0-9.,]+/.test(text) ? text.toLowerCase() : number;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (header, column) {
      header.addEventListener("click", function () {
        var ascending = header.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("thead th").forEach(function (other) { other.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[column]), y = key(b.cells[column]);
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          // text with numbers in it (msg_size=4, msg_size=16) compares them as numbers
          var order = typeof x === "string" ? x.localeCompare(y, "en", {numeric: true}) : x < y ? -1 : x > y ? 1 : 0;
          return order * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  var filter = document.getElementById("filter");
  if (filter) {
    filter.addEventListener("input", function () {
      var wanted = filter.value.toLowerCase();
      document.querySelectorAll("#every-result tbody tr").forEach(function (row) {
        row.hidden = wanted !== "" && row.textContent.toLowerCase().indexOf(wanted) < 0;
      });
    });
  }
})();
"""


class Entry:
    """A result, where it came from, and its anchor in the page."""

    def __init__(self, index: int, result: Result, file: Path, link: str):
        self.index, self.result, self.file, self.link = index, result, file, link
        self.anchor = f"result-{index}"
        self.defaults = default_options(result)
        self.heading = self.described  # made unique among a page's results by name_headings

    @property
    def is_default(self) -> bool:
        """Measured in its kernel's default configuration (as far as this catalog knows it)."""
        return self.defaults is not None and all(self.defaults.get(k, v) == v for k, v in self.result.options.items())

    @property
    def options_key(self) -> tuple:
        return tuple(sorted(self.result.options.items()))

    @property
    def size(self) -> int:
        return self.result.count + self.result.excluded

    @property
    def changed_options(self) -> list[str]:
        """The options that differ from the kernel's defaults, as name=value."""
        return [f"{k}={v}" for k, v in sorted(self.result.options.items()) if (self.defaults or {}).get(k) != v]

    @property
    def configuration(self) -> str:
        return ", ".join(self.changed_options) or "default configuration"

    @property
    def label(self) -> str:
        r = self.result
        parts = [r.kernel, r.target, r.scenario + (f" ({r.tasks} tasks)" if r.tasks else ""), r.method]
        return " / ".join(str(part) for part in parts if part) or (r.source or r.scenario)

    @property
    def described(self) -> str:
        """What was measured: kernel, target, scenario, tasks, method and each option changed from the
        kernel's defaults."""
        return ", ".join([self.label, *self.changed_options])


# What tells apart results whose description is the same, in the order a heading adds them where needed.
_TELLERS = (lambda e: e.result.unit, lambda e: report.how_counted(e.result), lambda e: f"{e.size:,} samples")


def name_headings(entries: list[Entry], tellers=_TELLERS) -> None:
    """Give each entry a heading no other one has: its description, then what tells it from the others of
    the same description (unit, what counted it, the samples taken) where that differs among them; the
    same measurement made more than once is "run 1", "run 2", ... in the page's order."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        entry.heading = entry.described
        groups.setdefault(entry.heading, []).append(entry)
    pending = [(group, 0) for group in groups.values()]
    while pending:
        group, told = pending.pop()
        if len(group) < 2:
            continue
        if told == len(tellers):
            for run, entry in enumerate(group, 1):
                entry.heading += f", run {run}"
            continue
        said = [tellers[told](entry) for entry in group]
        alike: dict[str, list[Entry]] = {}
        for entry, value in zip(group, said):
            if len(set(said)) > 1:
                entry.heading += f", {value}"
            alike.setdefault(value, []).append(entry)
        pending += [(same, told + 1) for same in alike.values()]


_NUMBER = re.compile(r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")


def natural_key(text: str) -> tuple:
    """A sort key that compares the numbers in a text as numbers: msg_size=4 before msg_size=16, 2 tasks
    before 10 tasks, 300 before 1,000."""
    parts = _NUMBER.split(text)
    return tuple(float(part.replace(",", "")) if i % 2 else part for i, part in enumerate(parts))


def default_options(result: Result) -> dict | None:
    kernel, target = catalog.KERNELS.get(result.kernel or ""), catalog.TARGETS.get(result.target or "")
    return configs.defaults(kernel, target) if kernel and target else None


def number_text(value: float) -> str:
    return svg.figure_number(value)


def beside_median(result: Result) -> list[str]:
    """What goes beside a median: in µs when the unit is a cycle of a known clock, the TRM range when a timing
    model gave one."""
    marked = board_facts.WAIT_STATES_MARK if board_facts.wait_states(result) else ""
    beside = [f"{result.stats_ns.median / 1000:.3f} µs{marked}"] if result.ns_per_unit is not None else []
    beside += [f"worst {number_text(result.stats.max)} {result.unit}"] if result.worst else []
    return beside + ([f"TRM {report.trm_range(result, figure=number_text)}"] if result.bounds else [])


def with_us(result: Result) -> str:
    """The median in its unit, and what goes beside_median it."""
    return f'<span class="figure">{number_text(result.stats.median)} {escape(result.unit)}</span>' + "".join(
        f' <span class="us">({escape(text)})</span>' for text in beside_median(result)) + (
        f' <span class="floor" title="the median over the floor kernel\'s, {number_text(result.floor["median"])} '
        f'{escape(result.unit)} ({escape(result.floor.get("options", ""))})">x{result.x_floor:.2f} floor '
        f'{number_text(result.floor["median"])}</span>' if result.x_floor else "")


def stat_cells(stats) -> list[str]:
    """Each statistic of STAT_KEYS as a cell: figures as they are, the standard deviation to two places."""
    return [f"{stats.stddev:.2f}" if key == "stddev" else number_text(getattr(stats, key)) for key in STAT_KEYS]


def plain_median(result: Result) -> str:
    """with_us as plain text, for a figure's hover title."""
    return f"{number_text(result.stats.median)} {result.unit}" + "".join(f" ({text})" for text in beside_median(result))


def breakable(text: str) -> str:
    """A long name (a file's, a configuration) as HTML that may break over lines only after its separators
    (- _ . , / =) and where a number ends and a word begins (stm32|vldiscovery), never inside a word: td.wrap
    breaks nowhere else."""
    return "<wbr>".join(escape(part) for part in re.split(r"(?<=[-_.,/=])|(?<=[0-9])(?=[A-Za-z])", text))


def html_table(header: list[str], rows: list[list[str]], css_class: str = "", table_id: str = "",
               text_columns: tuple[int, ...] = (0,), wrapped_columns: tuple[int, ...] = ()) -> str:
    """Cells are HTML already; the columns in `text_columns` are words, left-aligned, the others numbers;
    those in `wrapped_columns` are long words (options, file names) that may break over lines."""
    attributes = (f' class="{css_class}"' if css_class else "") + (f' id="{table_id}"' if table_id else "")
    head = "".join(f'<th{" class=text" if i in text_columns else ""} scope="col">{h}</th>'
                   for i, h in enumerate(header))

    def cell_class(i: int) -> str:
        return " class=wrap" if i in wrapped_columns else " class=text" if i in text_columns else ""
    body = "".join("<tr>" + "".join(cell if cell.startswith("<td") else f"<td{cell_class(i)}>{cell}</td>"
                                    for i, cell in enumerate(row)) + "</tr>" for row in rows)
    return f'<div class="scroll"><table{attributes}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def scenario_key(scenario: str, tasks: int | None) -> tuple:
    order = SCENARIO_ORDER.index(scenario) if scenario in SCENARIO_ORDER else len(SCENARIO_ORDER)
    return order, scenario, tasks or 0


def row_name(scenario: str, tasks: int | None) -> str:
    return scenario + (f" ({tasks} tasks)" if tasks else "")


def preferred(entries: list[Entry]) -> Entry:
    """Of several measurements of one thing, the one with the most samples (the first of those)."""
    return max(entries, key=lambda e: e.size)


def median_cells(columns: dict[str, list[Entry]]) -> dict[tuple, Entry]:
    """{((scenario, tasks), column): the result shown there}, from each column's results."""
    cells = {}
    for column, entries in columns.items():
        by_row: dict[tuple, list[Entry]] = {}
        for e in entries:
            by_row.setdefault((e.result.scenario, e.result.tasks), []).append(e)
        for row, found in by_row.items():
            cells[(row, column)] = preferred(found)
    return cells


def median_grid(rows: list[tuple], columns: list[str], cells: dict[tuple, Entry], unit: str, what: str,
                unavailable: dict[tuple, str] | None = None) -> str:
    """A table of medians, rows (scenario, tasks) by columns, each cell a link to its result; then the
    same as grouped bars. A cell without a result is "n/a" where it cannot be measured (`unavailable`:
    {(row, column): why}, the reason in its title), else blank: not measured."""
    unavailable = unavailable or {}

    def missing(row: tuple, column: str) -> str:
        why = unavailable.get((row, column))
        return f'<td title="{escape(why)}">n/a</td>' if why else ""
    table_rows = [[row_name(*row), *(f'<a href="#{cells[(row, c)].anchor}">{with_us(cells[(row, c)].result)}</a>'
                                     if (row, c) in cells else missing(row, c) for c in columns)] for row in rows]
    shown = [(row, c) for row in rows for c in columns if (row, c) in cells]
    values = {(row_name(*row), c): cells[(row, c)].result.stats.median for row, c in shown}
    worst = {(row_name(*row), c): cells[(row, c)].result.stats.max for row, c in shown if cells[(row, c)].result.worst}
    titles = {(row_name(*row), c): f"{c}, {row_name(*row)}: median {plain_median(cells[(row, c)].result)}"
              for row, c in shown}
    return (html_table(["scenario (median)", *map(escape, columns)], table_rows, "grid")
            + svg.grouped_bars([row_name(*row) for row in rows], columns, values, unit,
                               f"{what}: medians in {unit}" + (", the worst case above each" if worst else ""),
                               titles, worst=worst)
            + ('<p class="note">An interrupt\'s latency: its worst case (max) beside each median, and as the '
               "whisker above its bar.</p>" if worst else ""))


def not_measurable(kernel: str, target: str, scenario: str, method: str, unit: str) -> str | None:
    """Why the catalog says this kernel cannot be measured so on this target (its n/a rules), or None: where
    nothing says so, a missing figure was only not measured."""
    found = (catalog.KERNELS.get(kernel), catalog.TARGETS.get(target), catalog.SCENARIOS.get(scenario),
             catalog.METHODS.get(method))
    if None in found:
        return None
    try:
        return found[0].not_measured(*found[1:], unit)
    except SwitchscopeError as refused:  # a unit the target cannot count
        return refused.message


def unavailable_notes(unavailable: dict[tuple, str], columns: list[str]) -> str:
    """Under a grid: what each n/a cell means, once per reason."""
    said: dict[str, list[str]] = {}
    for (row, column), why in unavailable.items():
        if column in columns:
            said.setdefault(why, []).append(f"{column}, {row_name(*row)}")
    return "".join(f'<p class="note">n/a ({escape("; ".join(where))}): cannot be measured there: {escape(why)}</p>'
                   for why, where in said.items())


def differing_options(option_sets: list[tuple]) -> list[str]:
    names = sorted({k for options in option_sets for k, _ in options})
    return [name for name in names if len({dict(options).get(name) for options in option_sets}) > 1]


def columns_differ_note(columns: dict[str, list[Entry]]) -> str:
    """Under a grid whose columns are kernels or targets: the options in which their configurations differ
    (each column's own defaults: FreeRTOS's optimised selection is off on ARMv6-M, its switch ecall on
    RISC-V), each column's values; "" when they are alike."""
    first = {column: entries[0].result for column, entries in columns.items() if entries}
    apart = side_by_side.options_apart(list(first.values()), ", ") if len(first) > 1 else {}  # breaks on a phone
    if not apart:
        return ""
    said = "; ".join(f"{column}: {apart[id(r)]}" for column, r in first.items())
    return f'<p class="note">The columns\' configurations differ: {escape(said)}.</p>'


def options_label(options: tuple, differing: list[str]) -> str:
    """A configuration's column name: a BeRTOS column's (with its switch mechanism, the column group, where
    that differs too), else the differing options' values."""
    values = dict(options)
    if BERTOS_OPTIONS <= set(differing) <= BERTOS_OPTIONS | {"switch"}:
        for column, chosen in BERTOS_COLUMNS:
            if all(values.get(k) == v for k, v in chosen.items()):
                return f"{values['switch']}: {column}" if "switch" in differing else column
    return ", ".join(f"{name}={values.get(name)}" for name in differing) or "default"


def bertos_order(label: str) -> tuple:
    """BeRTOS columns in the layout's order, grouped by mechanism; any other column after them."""
    group, _, column = label.rpartition(": ")
    names = [c for c, _ in BERTOS_COLUMNS]
    return (0, natural_key(group), names.index(column)) if column in names else (1, natural_key(label), 0)


def unit_heading(entry: Entry) -> str:
    r = entry.result
    clock = f" at {r.f_cpu_hz / 1e6:g} MHz" if r.ns_per_unit is not None else ""
    return f"{r.method} method, {r.unit}{clock}{report.counted_by(r)}"


def memory_notes(results: list[Result]) -> str:
    """Under a table with µs: the memory each board's figures were counted with (board_facts.memory_lines)."""
    return "".join(f'<p class="note">{escape(line.strip())}</p>' for line in board_facts.memory_lines(results))


def provenance_note(entries: list[Entry]) -> str:
    """What every figure of a table was measured with: compiler, simulator, switchscope."""
    said = []
    for name, get in (("built with", lambda r: (r.toolchain or {}).get("compiler")),
                      ("on", lambda r: (r.simulator or {}).get("name")),
                      ("switchscope", lambda r: r.switchscope_version)):
        values = list(dict.fromkeys(str(v) for v in (get(e.result) for e in entries) if v))
        if values:
            said.append(f"{name} {' / '.join(values)}")
    meaning = report.range_meaning([e.result for e in entries])  # what "(TRM a-b)" beside a median is
    return "; ".join(said + ([f"(TRM a-b) beside a median: {meaning}"] if meaning else []))
