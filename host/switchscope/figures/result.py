"""One measurement's result, the same type for `run`, `measure` and `analyze`:
the samples in the unit really measured, how they were obtained (method,
kernel, target, configuration, compiler, simulator), and their statistics.

Its JSON form is versioned ("schema": "switchscope.result/1"); report, suite,
plots and compare read Results, and Result.from_json reads back what any
version-1 writer wrote. Adding a field keeps the version; renaming or
removing one, or changing a field's meaning, raises it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from fractions import Fraction

from switchscope import __version__
from switchscope.catalog.configs import changes_scenario
from switchscope.common import provenance
from switchscope.common.errors import SwitchscopeError
from switchscope.decode import stats
from switchscope.figures.result_target import AlteredResult, check_target

SCHEMA = "switchscope.result"
SCHEMA_VERSION = 1
STAT_KEYS = ("min", "median", "mode", "mean", "max", "stddev", "p99")


@dataclass(frozen=True)
class Stats:
    min: float
    median: float
    mode: float
    mean: float
    max: float
    stddev: float
    p99: float

    @classmethod
    def of(cls, values: list) -> "Stats":
        return cls(**stats.statistics(values))

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def scaled(self, factor: float) -> "Stats":
        return Stats(**{key: value * factor for key, value in self.as_dict().items()})


@dataclass
class Result:
    kind: str  # "scenario" (run: a scenario's firmware), "interval" (measure: a user's ELF), "capture" (analyze)
    scenario: str  # the scenario; for measure "FROM..TO"; for analyze the channel
    method: str  # probe, scope, marker, print
    unit: str  # instructions, cycles or ns: what was really counted
    samples: list  # every kept sample, corrected for the method's cost
    overhead: float  # the method's cost, subtracted from each sample
    first: float  # the first sample, kept or not
    excluded_samples: list = field(default_factory=list)  # {"seq", "value", "reason"} of each sample left out
    timing_model: str | None = None  # cycles on QEMU: the core model that turned instructions into cycles
    # cycles from a timing model: {"min": STATS, "max": STATS}, each statistic over the kept windows' least and
    # most cycles the core's manual allows for the same instructions (the samples are the model's point estimates)
    bounds: dict | None = None
    clamped: int = 0  # samples smaller than the overhead, set to 0
    kernel: str | None = None
    kernel_version: str | None = None
    kernel_source: str | None = None
    target: str | None = None
    cpu: str | None = None
    f_cpu_hz: float | None = None  # the clock the unit is a cycle of, when it is cycles
    source: str | None = None  # measure, analyze: the file the user gave
    calibration: list = field(default_factory=list)
    config: dict = field(default_factory=dict)  # what the firmware reports of itself, and the optimisation
    options: dict = field(default_factory=dict)  # the configuration options it was built with
    toolchain: dict = field(default_factory=dict)  # compiler and flags
    simulator: dict = field(default_factory=dict)  # name, version and the options that shape the count
    firmware: dict = field(default_factory=dict)  # flash and RAM used, and the target's limits
    timer: dict | None = None  # probe: the stamp timer's facts
    memory: dict | None = None  # the memory its cycles were counted with (figures/memory_used.py): flash model or none
    scope: dict | None = None  # scope: the pin and its edges
    tasks: int | None = None  # rotate: how many tasks
    pairs: list | None = None  # rotate: [from task, to task] of each kept sample
    sample_tags: list | None = None  # scenarios that tag their samples (the ruler's block sizes)
    # the floor kernel's median for the same scenario, core, unit and method ({"target", "method", "median"}),
    # and this result's median as a multiple of it (figures/floor.py), where one was measured alongside
    floor: dict | None = None
    x_floor: float | None = None
    # a run under load (--config load=...): the positions in `samples` of the kept windows the load's
    # interrupt fell into (flagged "interfered", not excluded: what the load does is the measurement)
    interfered: list | None = None
    # irq-latency: the worst sample ({UNIT: value, "sample": the first at it, "samples": how many are, and where a
    # simulator saw it, "address", "function", "held_from", "held_to": the run of addresses around it where the
    # interrupt waited longer than its least}), how many distinct steps of
    # the workload's loop the sweep asserted at ({"covered", "period", "steps"}), and each sample's step from the
    # loop's top and the address it was asserted at
    worst: dict | None = None
    phases: dict | None = None
    sample_phases: list | None = None
    sample_addresses: list | None = None
    # a Thread-Metric test (figures/thread_metric.py): the loops its round counts, and the loops the firmware
    # counted in a simulated interval of kernel ticks ({"ticks", "loops", "stamp_counts"}, and its length in the
    # unit where the stamp timer counts it)
    thread_metric: dict | None = None
    ticks_in_window: int = 0
    stream_problems: list = field(default_factory=list)
    wall_seconds: float | None = None
    details: dict = field(default_factory=dict)  # what only one kind has (measure: from, to; analyze: t_ab, ...)
    switchscope_version: str = __version__
    measured_at: str | None = field(default_factory=provenance.now)  # UTC, ISO 8601
    project: dict | None = field(default_factory=provenance.project)  # the git commit of the project measured

    @property
    def count(self) -> int:
        return len(self.samples)

    @property
    def excluded(self) -> int:
        return len(self.excluded_samples)

    @property
    def stats(self) -> Stats:
        return Stats.of(self.samples)

    def percentile(self, percent: float) -> float:
        """The nearest-rank percentile of the samples: the smallest with `percent` % of them at or below it."""
        return stats.percentile_nearest_rank(sorted(self.samples), percent) if self.samples else float("nan")

    def scenario_options(self) -> dict:
        """The options it was built with that change its scenario (lock only for sem-shuffle, ...)."""
        options = self.options or {}
        return {k: v for k, v in options.items() if changes_scenario(self.kernel, k, self.scenario, options)}

    @property
    def undisturbed(self) -> list:
        """The kept samples no interrupt of the load fell into (all of them without a load)."""
        skip = set(self.interfered or ())
        return [value for i, value in enumerate(self.samples) if i not in skip]

    @property
    def bound_stats(self) -> "tuple[Stats, Stats] | None":
        """The statistics of the least and of the most cycles the manual allows, when a model counted them."""
        if not self.bounds:
            return None
        return Stats(**self.bounds["min"]), Stats(**self.bounds["max"])

    @property
    def ns_per_unit(self) -> float | None:
        """Nanoseconds per unit: only where the unit is a true clock cycle of a known clock."""
        if self.unit == "cycles" and self.f_cpu_hz:
            return float(Fraction(10**9) / Fraction(self.f_cpu_hz))
        return None

    @property
    def stats_ns(self) -> Stats | None:
        return self.stats.scaled(self.ns_per_unit) if self.ns_per_unit is not None else None

    def to_json(self) -> dict:
        document = {"schema": f"{SCHEMA}/{SCHEMA_VERSION}"}
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name == "details":
                document.update(value)
            elif value is not None:
                document[item.name] = value
        document["count"] = self.count
        document["excluded"] = self.excluded
        document["stats"] = self.stats.as_dict()
        if self.ns_per_unit is not None:
            document["ns_per_unit"] = self.ns_per_unit
            document["stats_ns"] = self.stats_ns.as_dict()
        return document

    @classmethod
    def from_json(cls, document: dict, where: str = "the JSON") -> "Result":
        """A Result from its JSON form; a SwitchscopeError naming what is wrong."""
        if not isinstance(document, dict):
            raise SwitchscopeError(f"{where}: a result must be an object, not {type(document).__name__}")
        schema = document.get("schema", f"{SCHEMA}/{SCHEMA_VERSION}")  # results before the schema field are v1
        name, _, version = str(schema).partition("/")
        if name != SCHEMA or version != str(SCHEMA_VERSION):
            raise SwitchscopeError(f"{where}: schema '{schema}' is not {SCHEMA}/{SCHEMA_VERSION}",
                                   "measure again with this switchscope, or use the version that wrote it")
        names = {item.name for item in dataclasses.fields(cls)} - {"details"}
        derived = {"schema", "count", "excluded", "stats", "ns_per_unit", "stats_ns"}
        missing = [key for key in ("scenario", "method", "unit", "samples") if key not in document]
        if missing:
            raise SwitchscopeError(f"{where}: a result lacks {', '.join(missing)}")
        if not isinstance(document["samples"], list) or not all(
                isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value)
                for value in document["samples"]):
            raise SwitchscopeError(f"{where}: 'samples' must be a list of finite numbers no larger than a float holds")
        if not document["samples"]:  # every result is written with its statistics, which need a sample
            raise SwitchscopeError(f"{where}: 'samples' is empty: a result holds at least one",
                                   "measure again: the file was altered or damaged")
        figures = stats.statistics(document["samples"])
        _check_bounds(document, figures, where)  # first: samples moved outside their range say so, not the stats
        _check_written(document, figures, where)
        check_target(document, where)
        if document.get("worst") is not None or document.get("phases") is not None:
            _check_latency(document, figures, where)
        interfered = document.get("interfered")
        if interfered is not None and not (isinstance(interfered, list) and all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(document["samples"])
                for i in interfered)):
            raise SwitchscopeError(f"{where}: 'interfered' must list positions in 'samples'")
        if document.get("kind") == "switches" or "switches" in document:
            _check_switches(document, where)
        x_floor, floor = document.get("x_floor"), document.get("floor")
        if x_floor is not None and not (isinstance(x_floor, (int, float)) and not isinstance(x_floor, bool)
                                        and math.isfinite(x_floor) and x_floor > 0):
            raise SwitchscopeError(f"{where}: 'x_floor' must be a positive number")
        if floor is not None and not (isinstance(floor, dict) and (isinstance(floor.get("median"), (int, float))
                                                                   or isinstance(floor.get("refused"), str))):
            raise SwitchscopeError(f"{where}: 'floor' must be an object with the floor's 'median', or why none "
                                   "qualified ('refused')")
        known = {key: value for key, value in document.items() if key in names}
        details = {key: value for key, value in document.items() if key not in names and key not in derived}
        # written before "kind" was: what the result holds says which it is
        known.setdefault("kind", "interval" if "from" in document else "capture" if "capture" in document
                         else "scenario")
        known.setdefault("overhead", 0)
        known.setdefault("measured_at", None)  # written before results said when, and where from
        known.setdefault("project", None)
        known.setdefault("first", document["samples"][0] if document["samples"] else 0)
        return cls(**known, details=details)


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer past what a float holds
        return False


# The statistics a least and a most bound: each is a sample's order statistic or their mean, and each sample
# lies between its least and its most. Not the mode (the most frequent value need not lie between the
# most frequent least and most), nor the spread.
BOUNDED_KEYS = ("min", "median", "mean", "max", "p99")


PER_SAMPLE = ("pairs", "sample_tags", "sample_phases", "sample_addresses")  # lists of one entry per kept sample


def _check_written(document: dict, figures: dict, where: str) -> None:
    """What a result writes beside its samples (count, excluded, stats) must be what they give: a reader that
    takes the written figures (another tool, a person) and one that works from the samples must see one result."""
    hint = "measure again: the file was altered or damaged"
    for key, held in (("count", len(document["samples"])), ("excluded", len(document.get("excluded_samples") or []))):
        if key in document and document[key] != held:
            raise AlteredResult(f"{where}: '{key}' is {document[key]}, and the result holds {held} "
                                f"{'samples' if key == 'count' else 'excluded samples'}", hint)
    for key in PER_SAMPLE:  # each entry of these goes with the sample at its place
        given = document.get(key)
        if isinstance(given, list) and len(given) != len(document["samples"]):
            raise AlteredResult(f"{where}: {key} has {len(given)} entries for {len(document['samples'])} samples",
                                hint)
    written = document.get("stats")
    if not isinstance(written, dict):
        return
    for key in STAT_KEYS:
        if key in written and isinstance(written[key], (int, float)) and not math.isclose(
                written[key], figures[key], rel_tol=1e-9, abs_tol=1e-9):
            raise AlteredResult(f"{where}: stats.{key} is {written[key]:g}, and its samples' {key} is "
                                f"{figures[key]:g}", hint)


def _check_latency(document: dict, figures: dict, where: str) -> None:
    """irq-latency: the worst case is the largest sample (no sample above it), in the result's unit, at one of
    them; the phases covered are at most the loop's."""
    hint = "measure again: the file was altered or damaged"
    count, unit = len(document["samples"]), document.get("unit")
    worst, phases = document.get("worst"), document.get("phases")
    if worst is not None:
        value = worst.get(unit) if isinstance(worst, dict) else None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise AlteredResult(f"{where}: worst: no figure in the result's unit ({unit})", hint)
        if value < figures["max"]:
            raise AlteredResult(f"{where}: worst.{unit} is {value:g}, below its largest sample {figures['max']:g}: "
                                "the worst case is the largest sample", hint)
        if worst.get("sample", 0) >= count:
            raise AlteredResult(f"{where}: worst.sample is {worst['sample']}, and the result holds {count} samples",
                                hint)
    if phases is not None and phases["covered"] > phases["period"] and phases["period"]:
        raise AlteredResult(f"{where}: phases.covered is {phases['covered']}, more than the loop's "
                            f"{phases['period']} steps (phases.period)", hint)


def _check_bounds(document: dict, figures: dict, where: str) -> None:
    """The TRM range must be well formed and hold the samples' own statistics (which every reader works
    from) and those written beside them: samples edited to lie outside their range are refused."""
    bounds = document.get("bounds")
    if bounds is None:
        return
    if not (isinstance(bounds, dict) and all(
            isinstance(bounds.get(side), dict) and all(isinstance(bounds[side].get(key), (int, float))
                                                       for key in STAT_KEYS) for side in ("min", "max"))):
        raise SwitchscopeError(f"{where}: 'bounds' must be {{\"min\": statistics, \"max\": statistics}}, "
                               f"each with {', '.join(STAT_KEYS)}")
    if document.get("unit") != "cycles":
        raise AlteredResult(f"{where}: 'bounds' (a TRM range) must be cycles, not {document.get('unit')}",
                            "measure again: the file was altered")
    written = document.get("stats") if isinstance(document.get("stats"), dict) else {}
    for what, held in (("of its samples", figures), ("written in 'stats'", written)):
        outside = [key for key in BOUNDED_KEYS if key in held
                   and not bounds["min"][key] <= held[key] <= bounds["max"][key]]
        if outside:
            key = outside[0]
            raise AlteredResult(f"{where}: the {key} {what}, {held[key]:g}, lies outside its TRM range "
                                f"('bounds': {bounds['min'][key]:g} to {bounds['max'][key]:g}), which no run writes",
                                "measure again: the file was altered")


def _check_switches(document: dict, where: str) -> None:
    """measure --switches: the switches block must describe the samples it sits beside (one entry each,
    naming tasks and causes it lists; the least and most cycles, and the timeline's times, of as many),
    else its tables and figures cannot be drawn."""
    block = document.get("switches")
    hint = "measure again: the file was altered or damaged"
    if not isinstance(block, dict):
        raise AlteredResult(f"{where}: a result of measure --switches lacks its 'switches' block", hint)
    lists = {name: block.get(name) for name in ("tasks", "causes", "samples", "switch_path")}
    for name, value in lists.items():
        if not isinstance(value, list) or not value:
            raise AlteredResult(f"{where}: switches.{name} is {'empty' if value == [] else 'missing'}", hint)
    if not isinstance(block.get("current"), str):
        raise AlteredResult(f"{where}: switches.current (the kernel's current-task variable) is missing", hint)
    count = len(document["samples"])
    if len(lists["samples"]) != count:
        raise AlteredResult(f"{where}: switches.samples has {len(lists['samples'])} entries for {count} samples",
                            hint)
    tasks, causes = len(lists["tasks"]), len(lists["causes"])
    for index, entry in enumerate(lists["samples"]):
        if not (isinstance(entry, list) and len(entry) == 3 and all(isinstance(i, int) for i in entry)
                and 0 <= entry[0] < tasks and 0 <= entry[1] < tasks and 0 <= entry[2] < causes):
            raise AlteredResult(f"{where}: switches.samples[{index}]: {entry} is not [outgoing task, incoming "
                                f"task, cause] among its {tasks} tasks and {causes} causes", hint)
    least, most = block.get("least"), block.get("most")
    if (least is None) != (most is None) or least is not None and not (
            isinstance(least, list) and isinstance(most, list) and len(least) == len(most) == count):
        raise AlteredResult(f"{where}: switches.least and switches.most must both be absent or hold a figure "
                            f"for each of the {count} samples", hint)
    starts, ends = block.get("starts") or [], block.get("ends") or []
    if not (isinstance(starts, list) and isinstance(ends, list) and len(starts) == len(ends) <= count):
        raise AlteredResult(f"{where}: switches.starts and switches.ends must hold as many times, at most one "
                            f"for each of the {count} samples", hint)
