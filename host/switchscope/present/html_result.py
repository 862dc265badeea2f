"""Each result's part of the HTML report: its distribution, its statistics
(and, under a load, those of the windows the load's interrupt fell into and
of the others), and its provenance, from method and configuration to the
compiler, the simulator and the file it came from."""

from __future__ import annotations

from html import escape

from switchscope.decode.methods import METHODS, PRINT_IN_WINDOW
from switchscope.figures.result import STAT_KEYS, Stats
from switchscope.present import board_facts, latency_view, report, svg, table_notes
from switchscope.present.cells import kernel_named
from switchscope.present.html_parts import Entry, number_text, stat_cells, with_us, html_table


def details(entry: Entry, opened: bool) -> str:
    """A result's part of the page: its histogram, statistics and provenance, folded unless `opened`."""
    r, stats = entry.result, entry.result.stats
    header = ["", *STAT_KEYS]
    rows = [[escape(r.unit), *stat_cells(stats)]]
    if r.bounds:  # each statistic's range, under it
        # a spread has no range: the spread of the least cycles does not bound the spread of the real ones
        rows += [[f"TRM {side}", *("-" if key == "stddev" else cell for key, cell in zip(STAT_KEYS, stat_cells(bound)))]
                 for side, bound in zip(("least", "most"), r.bound_stats)]
    if r.ns_per_unit is not None:
        us = r.stats_ns.scaled(1 / 1000)
        rows.append(["µs" + board_facts.WAIT_STATES_MARK * bool(board_facts.wait_states(r)),
                     *(f"{getattr(us, k):.3f}" for k in STAT_KEYS)])
    load_rows, load_fact, beside = under_load(r)
    rows += load_rows
    method = METHODS.get(r.method, PRINT_IN_WINDOW)
    note = (latency_view.NOTES[r.method] if r.worst
            else method.note(r.overhead, r.unit, (r.scope or {}).get("pin")))
    facts = [("method", f"{r.method}: {method.summary}; {note}"),
             ("unit", r.unit + report.counted_by(r)
              + (f"; clock {r.f_cpu_hz / 1e6:g} MHz" if r.f_cpu_hz else "")),
             ("kernel", kernel_named(r.kernel, r.kernel_version)
              + (f" (from {r.kernel_source})" if r.kernel_source else "") if r.kernel else None),
             ("target", f"{r.target} ({r.cpu})" if r.target else None),
             ("memory", board_facts.memory_of(r)),
             ("flash wait states", f"{board_facts.WAIT_STATES_MARK} {board_facts.wait_states_note(r)}"
              if board_facts.wait_states(r) and r.ns_per_unit is not None else None),
             ("x floor", f"{r.x_floor:.2f}: the median over the floor kernel's, {number_text(r.floor['median'])} "
                         f"{r.unit} ({r.floor.get('method')} on {r.floor.get('target')}"
                         + (f"; {r.floor['options']}" if r.floor.get("options") else "") + ")" if r.x_floor
              else f"none: {r.floor['refused']}" if r.floor and "refused" in r.floor else None),
             ("source", r.source),
             ("load", load_fact),
             ("options", ", ".join(f"{k}={v}" for k, v in sorted(r.scenario_options().items()))),
             ("firmware reports", ", ".join(f"{k}={v}" for k, v in board_facts.settings_that_apply(r).items())),
             ("compiler", (r.toolchain or {}).get("compiler")),
             ("flags", " ".join((r.toolchain or {}).get("cflags", []))),
             ("simulator", "; ".join(str(v) for v in ((r.simulator or {}).get("name"),
                                                    (r.simulator or {}).get("options")) if v)),
             ("firmware size", "flash {flash_bytes:,} of {flash_limit:,} bytes, static RAM {ram_bytes:,} of "
                               "{ram_limit:,} bytes".format(**r.firmware) if {"flash_bytes", "flash_limit",
                               "ram_bytes", "ram_limit"} <= set(r.firmware) else None),
             ("stamp timer", ", ".join(f"{k} {v}" for k, v in r.timer.items()) if r.timer else None),
             ("scope pin", ", ".join(f"{k} {v}" for k, v in r.scope.items() if not isinstance(v, list))
              if r.scope else None),
             ("samples", f"{r.count:,} kept of {entry.size:,}; first {number_text(r.first)}"
              + (f"; {r.clamped} clamped to 0" if r.clamped else "")
              + (f"; {r.ticks_in_window} with a tick in the window" if r.ticks_in_window else "")),
             ("excluded", table_notes.excluded_reasons(r) or None),
             ("stream problems", "; ".join(map(str, r.stream_problems)) or None),
             ("measured in", f"{r.wall_seconds:.2f} s" if r.wall_seconds is not None else None),
             ("switchscope", r.switchscope_version),
             ("details", ", ".join(f"{k}={v}" for k, v in r.details.items()
                                   if not isinstance(v, (list, dict))) or None)]
    listed = "".join(f"<dt>{escape(name)}</dt><dd>{escape(str(value))}</dd>" for name, value in facts if value)
    listed += f'<dt>JSON</dt><dd><a href="{escape(entry.link)}">{escape(str(entry.file))}</a></dd>'
    what = "interrupt latency" if r.worst else "switch time"
    figure = svg.histogram(r.samples, r.unit, stats.as_dict(), f"distribution of {entry.heading}, {r.unit}",
                           what=what) + latency_view.html(r) if r.samples else "<p>No sample was kept.</p>"
    return (f'<details class="result" id="{entry.anchor}"{" open" * opened}><summary>#{entry.index} {escape(entry.heading)}: '
            f"median {with_us(r)}{beside}</summary>{figure}{html_table(header, rows)}"
            + (f'<p class="note">{escape(report.range_note([r], ""))}.</p>' if r.bounds else "") +
            f'<dl class="provenance">{listed}</dl></details>')


def under_load(result) -> tuple[list[list[str]], str | None, str]:
    """What a run under a load (load=voip) adds: rows of statistics for the windows the load's interrupt fell
    into and for the others (undisturbed), the load's fact, and what the summary says beside the median.
    Nothing for a run without a load."""
    if result.interfered is None:
        return [], None, ""
    hit = [result.samples[i] for i in result.interfered if 0 <= i < result.count]
    parts = [("interfered", hit), ("undisturbed", result.undisturbed)]
    rows = [[f"{name} ({len(values):,})", *stat_cells(Stats.of(values))] for name, values in parts if values]
    said = [f"{len(values):,} {name}: median {number_text(Stats.of(values).median)} {result.unit}"
            for name, values in parts if values]
    config, options = result.config, result.options
    setting = {name: config.get(name, options.get(name)) for name in ("load", "load_period_us", "load_tasks")}
    fact = (f"load={setting['load']}: a timer interrupt every {setting['load_period_us']} µs, "
            f"{setting['load_tasks']} encoding task(s); of the {result.count:,} kept windows, {'; '.join(said)} "
            "(every one of them in the figures above: what the load does is the measurement)")
    return rows, fact, f' <span class="us">({escape("; ".join(said))})</span>'
