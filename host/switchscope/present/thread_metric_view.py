"""Thread-Metric's table: its tests down, each kernel on each target (and each
configuration measured) across, every cell the cycles (or instructions) per
loop and, where the unit is a cycle of a known clock, the loops a 30-second
interval holds at that rate; below it, each simulated interval's count beside
the count its length gives."""

from __future__ import annotations

import json
from html import escape

from switchscope.catalog.scenarios import THREAD_METRIC
from switchscope.figures import thread_metric
from switchscope.present.cells import aligned
from switchscope.present.report import options_differing

TEST_ORDER = [scenario.name for scenario in THREAD_METRIC]
LOOPS = {scenario.name: scenario.loops_per_round for scenario in THREAD_METRIC}


def _tests(results: list) -> list:
    return [r for r in results if thread_metric.is_test(r)]


def _key(result) -> tuple:
    return result.kernel, result.target, result.unit, result.method, json.dumps(result.options, sort_keys=True)


def _columns(tests: list) -> dict[tuple, str]:
    """Each column's heading, in the order first met: kernel, target and its clock, method, unit, and the options
    that set it apart from the others."""
    columns = {}
    for result in tests:
        clock = f", {result.f_cpu_hz / 1e6:g} MHz" if result.ns_per_unit is not None else ""
        options = options_differing(result, tests)
        columns.setdefault(_key(result), f"{result.kernel} ({result.target}{clock}, {result.method}, {result.unit}"
                                         + (f", {options}" if options != "default" else "") + ")")
    return columns


def cell(result) -> str:
    """'129.60 (5,787,037)': per loop, and the loops of 30 s at the clock where the unit is a clock's cycle."""
    per_30s = thread_metric.loops_per_interval(result)
    return f"{thread_metric.per_loop(result):,.2f}" + (f" ({per_30s:,.0f})" if per_30s is not None else "")


def interval_text(result) -> str | None:
    """What the simulated interval counted beside what its length gives at the windows' rate."""
    check = thread_metric.interval_check(result)
    if check is None:
        return None
    counted, computed, length = check
    interval = result.thread_metric["interval"]
    return (f"{result.scenario}, {result.kernel} on {result.target}: {interval['ticks']} ticks, {length:,.0f} "
            f"{result.unit}: {counted:,} loops counted, {computed:,.1f} at the windows' rate with the bookkeeping "
            f"({interval[f'bookkeeping_{result.unit}']:,.1f} {result.unit} a round) "
            f"({(counted - computed) / computed * 100:+.2f}%)")


def _grid(tests: list) -> tuple[list[str], list[list[str]]]:
    columns = _columns(tests)
    cells = {(r.scenario, _key(r)): r for r in tests}
    names = sorted({r.scenario for r in tests}, key=lambda name: TEST_ORDER.index(name))
    rows = [[name, str(LOOPS[name]), *(cell(cells[name, key]) if (name, key) in cells else "-" for key in columns)]
            for name in names]
    return ["test", "loops a round", *columns.values()], rows


def caption(tests: list) -> str:
    timed = any(thread_metric.loops_per_interval(r) is not None for r in tests)
    return ("Thread-Metric: each window above is a round of the test's loops; per loop is its median over the loops a "
            "round counts" + (", and in brackets the loops a 30-second interval holds at that rate and the "
                              "board's clock (computed, not counted)" if timed else
                              " (instructions are no time: no 30-second count)") + "; -: not measured (said below):")


def text(results: list) -> str:
    """The table for the terminal, or "" where no result is a Thread-Metric test."""
    tests = _tests(results)
    if not tests:
        return ""
    header, rows = _grid(tests)
    lines = [caption(tests), *aligned([header, *rows])]
    intervals = [line for line in map(interval_text, tests) if line]
    if intervals:
        lines.append("simulated intervals (ticks and all) against the windows' rate:")
        lines += [f"  {line}" for line in intervals]
    return "\n".join(lines)


def html(results: list, table) -> str:
    """The same table for the report, drawn by `table` (html_parts.html_table); "" where there is none."""
    tests = _tests(results)
    if not tests:
        return ""
    header, rows = _grid(tests)
    intervals = [line for line in map(interval_text, tests) if line]
    listed = "".join(f"<li>{escape(line)}</li>" for line in intervals)
    return (f'<p class="note">{escape(caption(tests))}</p>'
            + table([escape(h) for h in header], [[escape(c) for c in row] for row in rows], text_columns=(0,))
            + (f'<p class="note">Simulated intervals, ticks and all, against the windows\' rate:</p><ul>{listed}</ul>'
               if listed else ""))
