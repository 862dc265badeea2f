"""Tables for the terminal and JSON for machines, from Results."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.common import outputs
from switchscope.decode.methods import METHODS, PRINT_IN_WINDOW
from switchscope.figures.result import Result
from switchscope.present import latency_view, ruler_view, table_notes
from switchscope.present.board_facts import micro, us_heading, memory_lines
from switchscope.present.cells import aligned, cell, kernel_named, row_label
from switchscope.present.table_notes import X_FLOOR_COLUMN, measured_when

PERCENTILES = (99.0,)  # the percentiles a table shows unless --percentiles says others (nearest rank)


def percentile_label(percent: float) -> str:
    return "p" + repr(float(percent)).removesuffix(".0")  # every digit it has: p99, p99.9, p99.99999


def columns(percentiles=PERCENTILES) -> tuple[str, ...]:
    return ("count", "excl", "min", "median", "mode", "mean", "max", "stddev",
            *map(percentile_label, percentiles), "first")
RANGE_COLUMN = "TRM range"


def trm_range(result: Result, metric: str = "median", figure=cell) -> str:
    """LOW-HIGH: one statistic of the least and of the most cycles the core's manual allows, each written as
    `figure` writes the table's other numbers; "-" where no timing model gave them (instructions, the AVR's
    cycles, a chip's counter: those counts are exact)."""
    bounds = result.bound_stats
    return f"{figure(getattr(bounds[0], metric))}-{figure(getattr(bounds[1], metric))}" if bounds else "-"


def core_name(model: str | None) -> str:
    """cortex-m3 -> Cortex-M3, cortex-m0plus -> Cortex-M0+, cortex-m4f -> Cortex-M4F: how the manuals spell the core."""
    if not model:
        return "core's"
    if model.startswith("ibex-"):  # ibex-small -> Ibex small: Ibex's configurations are lower case
        return "Ibex " + model.split("-", 1)[1]
    first, *rest = model.split("-")
    return "-".join([first.capitalize(), *(part.upper() for part in rest)]).replace("PLUS", "+")


def caveat_of(result: Result) -> str | None:
    """What the result's board says every result must carry (a core timed on another's machine), if anything."""
    target = catalog.TARGETS.get(result.target)
    return target.caveat if target is not None else None


def simulated_on(result: Result) -> str:
    """The simulator, and the board's caveat."""
    caveat = caveat_of(result)
    return f"on {result.simulator['name']}" + (f" ({caveat})" if caveat else "")


def range_meaning(results: list[Result], metric: str = "median") -> str:
    """What a TRM range is (of one statistic, or of each when `metric` is ""), for the cores of these results;
    "" when none has a range."""
    models = list(dict.fromkeys(r.timing_model for r in results if r.bounds))
    if not models:
        return ""
    what = f"the {metric} of the least and of the most" if metric else "the least and the most"
    flash = any((r.memory or {}).get("model") for r in results if r.bounds)
    return (f"{what} cycles the {' / '.join(map(core_name, models))} TRM allows for the same instructions"
            + (", and the flash's rules for their fetches and loads (docs/measurement.md)" if flash else ""))


def range_note(results: list[Result], metric: str = "median") -> str:
    """The TRM range column's legend; "" when no result has a range."""
    meaning = range_meaning(results, metric)
    return f"{RANGE_COLUMN}: {meaning}" if meaning else ""


def _range_lines(results: list[Result]) -> list[str]:
    """range_note as a line under a table, or nothing."""
    note = range_note(results)
    return [f"  {note}"] if note else []


def with_range(names: list[str], cells: list[str], extra: str, ranged: bool) -> list[str]:
    """A table's cells, one per name, with `extra` (the TRM range, or its header) after the median's when
    `ranged`: the one place that says where the range goes."""
    at = list(names).index("median") + 1
    return [*cells[:at], extra, *cells[at:]] if ranged else list(cells)


def _row(result: Result, with_method: bool = False, percentiles=PERCENTILES) -> list[str]:
    stats = result.stats
    return [row_label(result, with_method), cell(result.count), cell(result.excluded),
            *(cell(value) for value in (stats.min, stats.median, stats.mode, stats.mean, stats.max)),
            f"{stats.stddev:.2f}", *(cell(result.percentile(p)) for p in percentiles), cell(result.first)]


def statistics_lines(label: str, results: list[Result], with_method: bool = False,
                     percentiles=PERCENTILES, reasons: bool = True) -> list[str]:
    """The table of statistics, one line per result; with the TRM range column and its meaning under the
    table only when a result has a range, so results without one are shown as they always were; and
    (`reasons`, unless the caller says them its own way) why the excluded samples were left out."""
    ranged = any(r.bounds for r in results)
    floored = any(r.x_floor for r in results)
    header = [label, *columns(percentiles)]
    rows = [with_range(header, header, RANGE_COLUMN, ranged) + ([X_FLOOR_COLUMN] if floored else []),
            *(with_range(header, _row(r, with_method, percentiles), trm_range(r), ranged)
              + ([x_floor(r)] if floored else []) for r in results)]
    return aligned(rows) + _range_lines(results) + (table_notes.excluded_lines(results) if reasons else []) \
        + table_notes.floor_lines(results) + table_notes.load_lines(results) + latency_view.text_lines([(row_label(r), r) for r in results])


def counted(count: int, noun: str) -> str:
    """A count and its noun, singular for one: "1 result", "3 files"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def x_floor(result: Result) -> str:
    """The median as a multiple of the floor kernel's, or "-" where none was measured."""
    return f"{result.x_floor:.2f}" if result.x_floor else "-"


def counted_by(result: Result) -> str:
    """What turned the count into the unit, where something did: the timing model, or a chip's cycle counter."""
    if result.timing_model:
        return f" ({result.timing_model} timing model)"
    if (result.timer or {}).get("name") == "DWT":
        return " (DWT, silicon)"
    simulator = (result.simulator or {}).get("name", "")
    if " RTL on Verilator" in simulator:  # the core's own cycles: "Ibex <version> (<config>) RTL on Verilator ..."
        return f" ({simulator.split()[0]} RTL)"
    return ""


def heading(result: Result, methods: "list[Result] | None" = None) -> str:
    """What a table's figures are and how they were obtained. `methods`: one result of each method
    when the table holds several, each method's note then said once."""
    config = result.config
    tick = config.get("configTICK_RATE_HZ")
    model = counted_by(result)
    methods = methods or [result]
    named = ", ".join(r.method for r in methods)
    parts = [kernel_named(result.kernel, result.kernel_version), f"on {result.target} ({result.cpu})",
             f"method{'s' if len(methods) > 1 else ''} {named}", f"unit: {result.unit}{model}"]
    detail = [latency_view.note(r) if r.worst
              else METHODS.get(r.method, PRINT_IN_WINDOW).note(r.overhead, r.unit, (r.scope or {}).get("pin"))
              for r in methods]
    chosen = chosen_options(result)
    if chosen:  # what tells this table from the same kernel's others: the options not at their defaults
        detail.append("options " + ", ".join(f"{name}={value}" for name, value in chosen.items()))
    if tick:  # the kernel's rate is a whole number of Hz: its period, what a user set, is said first
        detail.append(f"preemption={config.get('configUSE_PREEMPTION')}, priorities={config.get('priorities')}, "
                      f"tick every {1000 / float(tick):.3g} ms (configTICK_RATE_HZ {tick}), "
                      f"{config.get('optimisation')}")
    else:
        detail.append(config.get("optimisation", ""))
    detail.append(f"built with {result.toolchain['compiler']}")
    detail.append(simulated_on(result))
    detail.append(measured_when(result))
    return ", ".join(parts) + "\n  " + "; ".join(d for d in detail if d)


def chosen_options(result: Result) -> dict:
    """The result's options that are not its kernel's defaults on its target (none where either is unknown)."""
    kernel, target = catalog.KERNELS.get(result.kernel or ""), catalog.TARGETS.get(result.target or "")
    if not (kernel and target and result.options):
        return {}
    defaults = configs.defaults(kernel, target)
    return {name: value for name, value in sorted(result.options.items())
            if name in defaults and defaults[name] != value}


def us_header(label: str, percentiles=PERCENTILES) -> list[str]:
    return [label, "min", "median", "mode", "mean", "max", "stddev", *map(percentile_label, percentiles)]


def row_us(result: Result, with_method: bool = False, percentiles=PERCENTILES) -> list[str]:
    us, scale = result.stats_ns.scaled(1 / 1000), result.ns_per_unit / 1000
    return [row_label(result, with_method),
            *(f"{value:.3f}" for value in (us.min, us.median, us.mode, us.mean, us.max, us.stddev)),
            *(f"{result.percentile(p) * scale:.3f}" for p in percentiles)]


def table(results: list[Result], percentiles=PERCENTILES) -> str:
    """One block per (kernel, target, unit, configuration), one line per scenario (and method, when
    several measured it); for results in true cycles, the same statistics again in µs. A ruler is
    its lengths, each read or not as it must be (ruler_view), not one distribution of them all."""
    blocks = []
    groups: dict[tuple, list[Result]] = {}
    for result in results:
        key = (result.kernel, result.target, result.unit, json.dumps(result.options, sort_keys=True))
        groups.setdefault(key, []).append(result)
    for group in groups.values():
        methods = list({r.method: r for r in group}.values())
        several = len(methods) > 1
        spread = [r for r in group if not ruler_view.is_ruler(r)]
        lines = [heading(group[0], methods), *ruler_view.text_lines(group, several)]
        if spread:
            lines += statistics_lines("scenario", spread, several, percentiles)
        if spread and group[0].ns_per_unit is not None:
            lines.append(us_heading(group[0]))
            lines += aligned([us_header("scenario", percentiles), *(row_us(r, several, percentiles) for r in spread)])
            lines += memory_lines(spread)
        lines += table_notes.firmware_lines(group)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def capture_table(result: Result) -> str:
    """The table of `switchscope analyze`."""
    details = result.details
    clock = f", clock {details['clock_hz'] / 1e6:g} MHz" if details.get("clock_hz") else ""
    lines = [f"{result.source}: {details['capture']}, channel {details['channel']}{clock}, unit: {result.unit}",
             f"  tCS = tCD - tAB per pattern; bare pulse tAB = {cell(result.overhead)} {result.unit} (mode)",
             *statistics_lines("channel", [result], reasons=False)]
    if result.excluded_samples:  # a capture's left-out pulses and patterns, by reason, with the first's time
        reasons = Counter(str(item.get("reason")) for item in result.excluded_samples)
        first = {}
        for item in result.excluded_samples:
            first.setdefault(str(item.get("reason")), item.get("at_s"))
        lines.append(f"  left out, not measured ({result.excluded}):")
        lines += [f"    {count} x {reason}" + (f" (first at {first[reason]:.9g} s)" if first[reason] is not None
                                                 else "") for reason, count in reasons.items()]
    if result.ns_per_unit is not None:
        lines.append("  in µs:")
        lines += aligned([us_header("channel"), row_us(result)])
    return "\n".join(lines)


def marker_table(result: Result) -> str:
    """The table of `switchscope measure`."""
    start, stop = result.details["from"], result.details["to"]
    lines = [f"{result.source} on {result.target} ({result.cpu}), marker method, unit: {result.unit}{counted_by(result)}",
             f"  from {start['point']} (0x{start['address']:x}) "
             f"to {stop['point']} (0x{stop['address']:x}); {simulated_on(result)}",
             *statistics_lines("interval", [result])]
    if result.ns_per_unit is not None:
        lines.append(us_heading(result))
        lines += aligned([us_header("interval"), row_us(result)]) + memory_lines([result])
    return "\n".join(lines)


def how_counted(result: Result) -> str:
    """In a word or two, what produced the cycles: a manual's timing model, a core's RTL, an exact simulator."""
    if result.timing_model:
        return f"{core_name(result.timing_model)} model"
    through = counted_by(result).strip(" ()")
    return through or (result.simulator or {}).get("name", "?").split()[0].removeprefix("switchscope-")


CAVEAT_MARK = "†"  # beside what counted a row whose board carries a caveat, spelled out under the table


def options_differing(result: Result, among: list[Result]) -> str:
    """The options of `result` that differ from its kernel's defaults on its target, or from another
    result of `among` on the same target (all of them, for a kernel the catalogue does not know)."""
    try:
        defaults = configs.defaults(catalog.KERNELS[result.kernel], catalog.TARGETS[result.target])
    except KeyError:
        defaults = {}
    varying = {name for other in among if other.target == result.target
               for name, value in other.options.items() if result.options.get(name) != value}
    return ",".join(f"{k}={v}" for k, v in sorted(result.options.items())
                    if k in varying or k not in defaults or defaults[k] != v) or "default"


def sweep_table(results: list[Result], percentiles=PERCENTILES) -> str:
    """One line per point of a sweep, and under them what they were measured with, as a run's heading says."""
    ranged = any(r.bounds for r in results)
    header = ["kernel", "target", "scenario", "tasks", "method", "options", "samples", "count", "excl", "min",
              "median", "mean", *map(percentile_label, percentiles), "max", "unit", "median µs"]
    rows = [with_range(header, header, RANGE_COLUMN, ranged)]
    for r in results:
        options = options_differing(r, results)
        stats = r.stats
        us = micro(r)
        rows.append(with_range(header, [r.kernel, r.target, r.scenario, str(r.tasks or "-"), r.method, options,
                                        str(r.count + r.excluded), str(r.count), str(r.excluded),
                                        cell(stats.min), cell(stats.median), f"{stats.mean:.2f}",
                                        *(cell(r.percentile(p)) for p in percentiles), cell(stats.max), r.unit,
                                        us], trm_range(r), ranged))
    excluded = [f"  excl, {r.kernel} {row_label(r)} on {r.target} [{options_differing(r, results)}]: "
                f"{r.excluded:,} left out: {table_notes.excluded_reasons(r)}" for r in results if r.excluded_samples]
    return "\n".join(aligned(rows) + _range_lines(results) + excluded + memory_lines(results)
                     + [table_notes.provenance_line(results)])


def write_json(path: Path, results: list, failures: list[dict], not_applicable: list[dict] = (),
               incomplete: str | None = None, subset: dict | None = None, plan: dict | None = None) -> None:
    """{"results": [...]} with every Result in its versioned form (intrusion rows as they are);
    `incomplete` says why a command wrote only part of what it was asked for, `subset` which share of a
    plan it holds (--subset), `plan` the sweep's plan its points belong to."""
    document = {"results": [r.to_json() if isinstance(r, Result) else r for r in results]}
    if plan:
        document["plan"] = plan
    if subset:
        document["subset"] = subset
    if incomplete:
        document["incomplete"] = incomplete
    if failures:
        document["failures"] = failures
    if not_applicable:
        document["not_applicable"] = list(not_applicable)
    outputs.write_text(path, json.dumps(document, indent=1) + "\n")


def _print_cells(row: dict) -> list[str]:
    printed = row["print"]
    if "error" in printed:
        return ["n/a", "", ""]
    ticks = " *" if printed["ticks_in_window"] else ""
    return [f"{cell(printed['raw'])}{ticks}", f"+{cell(printed['adds'])}", f"{printed['factor']:.1f}"]


def intrusion_table(rows: list[dict]) -> str:
    """The intrusion report's rows (figures.intrusion.report) as text: one block per target, the marker figure, then each method's raw reading,
    what it added, its corrected figure and the residual error."""
    blocks = []
    for target in dict.fromkeys(r["target"] for r in rows):
        group = [r for r in rows if r["target"] == target]
        unit = group[0]["unit"]
        lines = [f"intrusion on {target}, in {unit} (medians; the marker method puts no code in the path)",
                 *aligned([["scenario", "marker",
                             "probe raw", "adds", "corrected", "residual",
                             "scope tCD", "adds", "tCS", "residual",
                             "print raw", "adds", "x marker"],
                            *([r["scenario"], cell(r["marker"]),
                               cell(r["probe"]["raw"]), f"+{cell(r['probe']['adds'])}",
                               cell(r["probe"]["corrected"]), f"{r['probe']['residual']:+g}",
                               cell(r["scope"]["t_cd"]), f"+{cell(r['scope']['adds'])}",
                               cell(r["scope"]["t_cs"]), f"{r['scope']['residual']:+g}",
                               *_print_cells(r)]
                              for r in group)])]
        for r in group:
            if "error" in r["print"]:
                lines.append(f"  print, {r['scenario']}: n/a: {r['print']['error']}")
        if any(r["print"].get("ticks_in_window") for r in group):
            lines.append("  * the printing window is longer than a tick: the tick interrupt falls inside it "
                         "(kept, as part of the cost)")
        ns = group[0]["ns_per_unit"]
        printed = [r for r in group if "adds" in r["print"]]
        if ns and printed:
            worst = max(printed, key=lambda r: r["print"]["adds"])
            memory = (worst.get("memory") or {}).get("description")
            lines.append(f"  printing one trace line inside the window adds up to "
                         f"{worst['print']['adds'] * ns / 1000:.1f} µs at {1000 / ns:g} MHz ({worst['scenario']})"
                         + (f"; memory: {memory}" if memory else ""))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
