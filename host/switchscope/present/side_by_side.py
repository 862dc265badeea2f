"""The terminal's tables that set one measurement beside its kind: by method, by target, by kernel."""

from __future__ import annotations

from switchscope.figures.result import Result
from switchscope.present.board_facts import SOFTWARE_CLZ_MARK, micro, software_clz, software_clz_note, \
    memory_lines
from switchscope.present.cells import aligned, cell, row_label
from switchscope.present.report import CAVEAT_MARK, RANGE_COLUMN, caveat_of, how_counted, trm_range, x_floor


def method_comparison(results: list[Result]) -> str:
    """Where one (kernel, target, scenario, unit, configuration) was measured by several methods: their
    medians side by side, and each one's difference from the first; where the rows differ in options (a run
    of --method all at two values of one), an options column says which is which."""
    groups: dict = {}
    for r in results:
        groups.setdefault((r.kernel, r.target, row_label(r), r.unit), []).append(r)
    by_case: dict = {}
    for (kernel, target, scenario, unit), found in groups.items():
        options = options_apart(found)
        for r in found:
            by_case.setdefault((kernel, target, scenario, unit, options.get(id(r), "")), {})[r.method] = r
    cases = {case: methods for case, methods in by_case.items() if len(methods) > 1}
    if not cases:
        return ""
    methods = list(dict.fromkeys(m for case in cases.values() for m in case))
    reference = methods[0]
    differ = any(case[-1] for case in cases)
    header = ["kernel", "target", "scenario", *(["options"] if differ else []), "unit",
              *(f"{m} median" for m in methods), *(f"{m} - {reference}" for m in methods[1:])]
    rows = [header]
    for (kernel, target, scenario, unit, options), found in cases.items():
        medians = {m: found[m].stats.median for m in methods if m in found}
        rows.append([kernel, target, scenario, *([options or "-"] if differ else []), unit,
                     *(cell(medians[m]) if m in medians else "-" for m in methods),
                     *(cell(medians[m] - medians[reference]) if m in medians and reference in medians else "-"
                       for m in methods[1:])])
    return "methods side by side (medians):\n" + "\n".join(aligned(rows))


def options_apart(found: list[Result], joiner: str = ",") -> dict[int, str]:
    """Each result's options in which it differs from the others of `found`, as name=value (joined by `joiner`:
    no space in a terminal's cell); {} when alike. Only the options every one of them has: another kernel's
    own options are no difference of configuration."""
    names = sorted(set.intersection(*(set(r.options) for r in found)))
    varying = [name for name in names if len({r.options.get(name) for r in found}) > 1]
    return {id(r): joiner.join(f"{name}={r.options.get(name, '-')}" for name in varying) for r in found} \
        if varying else {}


def _side_by_side(results: list[Result], across: str) -> str:
    """Where one (scenario, method, unit) of one kernel (across="target") or on one target (across="kernel")
    was measured on several targets or of several kernels: a row each, with its median, what counted it,
    the manual's range where a model gave one, the time at the board's clock and the multiple of the
    floor kernel on the same core. Rows that differ in options say them (an options column); irq-latency
    rows give their worst case beside the median; marks beside a row are spelled out under the table."""
    held = "kernel" if across == "target" else "target"
    by_case: dict = {}
    for r in results:
        by_case.setdefault((getattr(r, held), row_label(r), r.method, r.unit), []).append(r)
    cases = {case: found for case, found in by_case.items() if len({getattr(r, across) for r in found}) > 1}
    if not cases:
        return ""
    shown = [r for found in cases.values() for r in found]
    options = {key: said for found in cases.values() for key, said in options_apart(found).items()}
    worst = any(r.worst for r in shown)
    header = [held, "scenario", "method", across, *(["core", "counted by"] if across == "target" else ["version"]),
              *(["options"] if options else []), "median", *(["max (worst)"] if worst else []), "unit",
              RANGE_COLUMN, "median µs", "clock", "x floor"]
    rows = [header]
    caveats: dict[str, str] = {}  # target -> its caveat, for the rows marked with CAVEAT_MARK
    clz = []
    for (fixed, scenario, method, unit), found in cases.items():
        for r in found:
            clock = f"{r.f_cpu_hz / 1e6:g} MHz" if r.f_cpu_hz else "-"
            caveat = caveat_of(r) if across == "target" else None
            if caveat:
                caveats[r.target] = caveat
            if software_clz(r):
                clz.append(r.cpu)
            mark = SOFTWARE_CLZ_MARK if software_clz(r) else ""  # beside the core that lacks the instruction
            name = getattr(r, across) + ("" if across == "target" else mark)
            described = ([(r.cpu or "?") + mark, how_counted(r) + (CAVEAT_MARK if caveat else "")]
                         if across == "target" else [r.kernel_version or "-"])
            rows.append([fixed, scenario, method, name, *described,
                         *([options.get(id(r)) or "-"] if options else []), cell(r.stats.median),
                         *([cell(r.stats.max)] if worst else []), unit, trm_range(r), micro(r), clock, x_floor(r)])
    notes = [f"  {CAVEAT_MARK} {target}: {caveat}" for target, caveat in caveats.items()]
    notes += [f"  {software_clz_note(list(dict.fromkeys(clz)))}"] if clz else []
    notes += memory_lines([r for found in cases.values() for r in found])
    if options:
        notes.append("  options: those in which the rows of one scenario differ")
    if worst:
        notes.append("  max (worst): the largest latency kept, the figure that matters for an interrupt")
    return f"{across}s side by side (medians):\n" + "\n".join(aligned(rows) + notes)


def target_comparison(results: list[Result]) -> str:
    """Where one (kernel, scenario, method, unit) was measured on several targets: a row per target
    (_side_by_side). A row whose board carries a caveat (a core timed on another's machine) is marked, the
    caveat under the table."""
    return _side_by_side(results, "target")


def kernel_comparison(results: list[Result]) -> str:
    """Where one (target, scenario, method, unit) was measured of several kernels: a row per kernel."""
    return _side_by_side(results, "kernel")
