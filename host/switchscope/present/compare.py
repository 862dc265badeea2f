"""`switchscope compare BASE NEW`: did a change make switching slower?

Results are matched by what they measured: kernel, target, scenario, method,
configuration options, rotate's task count and the unit; and by their number
of samples where a side holds several of one such (a suite's rotate at 100,
1,000 and 10,000 switches). Each match is
compared on one statistic (the median by default); since the simulators are
deterministic, by default any increase is a regression. A result on one side
only is listed, never an error; a match counted in another unit, or by
another simulator, is flagged and not compared; one counted with another
memory (a flash model's settings against zero wait states) is compared, and
says so beside its verdict. A comparison that compared
nothing (every pair on one side only or not comparable, a side with no
results or an interrupted one) fails the job. Across targets, only one
core's results are compared (a timing model against its RTL), unless asked.

Cycles from a timing model come with the range the core's manual (TRM)
allows for the same instructions. Where both sides have one, a change is
"outside the TRM range" when the two ranges of the compared statistic do not
overlap: every chip the manual describes sees it. Otherwise it is "inside":
a chip could show one figure for both, and the change may be the model's.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.result import STAT_KEYS, Result
from switchscope.present import board_facts, latency_view

FAIL_ON = ("any", "outside-range")  # which regressions fail `switchscope compare`
CHANGES = ("slower", "within", "faster")  # the verdicts of a figure that moved
COMPARED = ("slower", "within", "same", "faster")  # the verdicts of a pair whose figures were compared
NOT_COMPARED = ("only in base", "only in new", "not comparable")


@dataclass(frozen=True)
class Threshold:
    """How much slower a result may get before it counts as a regression: a
    fraction of the base figure ("2%") or an amount in the result's unit ("5")."""
    amount: float
    relative: bool

    @classmethod
    def parse(cls, text: str) -> "Threshold":
        match = re.fullmatch(r"\s*([0-9]{1,9}(?:\.[0-9]{1,9})?)\s*(%?)\s*", text)
        if not match:
            raise SwitchscopeError(f"--threshold takes a percentage (2%) or an amount in the result's unit (5), "
                                   f"not '{text}'")
        return cls(float(match.group(1)) / (100 if match.group(2) else 1), bool(match.group(2)))

    def allows(self, base: float, new: float) -> bool:
        limit = base * self.amount if self.relative else self.amount
        return new - base <= limit

    def __str__(self) -> str:
        return f"{self.amount * 100:g}%" if self.relative else f"{self.amount:g}"


@dataclass
class Comparison:
    key: tuple
    name: str  # kernel/target/scenario/method [options]
    base: Result | None
    new: Result | None
    metric: str
    verdict: str  # "slower", "faster", "same", "within", "only in base", "only in new", "not comparable"
    why: str = ""  # for "not comparable": what differs

    @property
    def base_value(self) -> float | None:
        return getattr(self.base.stats, self.metric) if self.base and self.verdict != "not comparable" else None

    @property
    def new_value(self) -> float | None:
        return getattr(self.new.stats, self.metric) if self.new and self.verdict != "not comparable" else None

    def _bounds(self, result: Result | None) -> tuple[float, float] | None:
        """(least, most) of the compared statistic that the manual allows, on one side; none for the standard
        deviation, which the spread of the least and of the most cycles does not bound."""
        bounds = result.bound_stats if result and self.verdict != "not comparable" and self.metric != "stddev" \
            else None
        return (getattr(bounds[0], self.metric), getattr(bounds[1], self.metric)) if bounds else None

    @property
    def base_range(self) -> tuple[float, float] | None:
        return self._bounds(self.base)

    @property
    def new_range(self) -> tuple[float, float] | None:
        return self._bounds(self.new)

    @property
    def range(self) -> str | None:
        """"outside": the two TRM ranges do not overlap, so no choice within the manual's ranges makes the two
        figures equal; "inside": they overlap; None where a side has no range."""
        if self.base_range is None or self.new_range is None:
            return None
        (base_low, base_high), (new_low, new_high) = self.base_range, self.new_range
        return "outside" if new_low > base_high or new_high < base_low else "inside"

    @property
    def difference(self) -> float | None:
        if self.base_value is None or self.new_value is None:
            return None
        return self.new_value - self.base_value

    @property
    def percent(self) -> float | None:
        if self.difference is None or not self.base_value:
            return None
        return 100 * self.difference / self.base_value

    @property
    def unit(self) -> str:
        """The unit of both sides, or each side's where they differ ("cycles vs instructions")."""
        units = dict.fromkeys(result.unit for result in (self.base, self.new) if result is not None)
        return " vs ".join(units)

    def as_json(self) -> dict:
        units = {side: result.unit if result else None for side, result in (("base_unit", self.base),
                                                                            ("new_unit", self.new))}
        return {"result": self.name, "metric": self.metric, "unit": None if " vs " in self.unit else self.unit,
                **units,
                "base": self.base_value, "new": self.new_value, "difference": self.difference,
                "percent": self.percent, "verdict": self.verdict, "range": self.range,
                **{side: list(bounds) if bounds else None
                   for side, bounds in (("base_range", self.base_range), ("new_range", self.new_range))},
                **({"why": self.why} if self.why else {})}


def _options(result: Result, ignored: tuple[str, ...]) -> tuple:
    """The options results are matched by: a run option of some targets only (the memory's) at its default is as
    good as absent, which it is on the other targets (cache=warm on VexRiscv, none on Ibex)."""
    return tuple(sorted((k, v) for k, v in (result.options or {}).items()
                        if k not in ignored and not _default_of_some_targets(k, v)))


def _default_of_some_targets(name: str, value: str) -> bool:
    option = configs.RUN_OPTIONS.get(name)
    return option is not None and option.target_needs is not None and value == option.default


# In `ignored`: match results whatever their targets (compare a timing model's results with the RTL's).
ACROSS_TARGETS = "(target)"


def _key(result: Result, ignored: tuple[str, ...]) -> tuple:
    target = None if ACROSS_TARGETS in ignored else result.target
    return (result.kernel, target, result.scenario, result.method, _options(result, ignored), result.tasks)


def _size(result: Result) -> int:
    return result.count + result.excluded


def _name(result: Result, ignored: tuple[str, ...], common: frozenset = frozenset()) -> str:
    """kernel/target/scenario/method, with the options in which it differs from the others compared."""
    name = "/".join(str(part) for part in (result.kernel, result.target, result.scenario, result.method) if part)
    if result.tasks:
        name += f"/{result.tasks} tasks"
    options = [f"{k}={v}" for k, v in _options(result, ignored) if (k, v) not in common]
    return name + (f" [{','.join(options)}]" if options else "")


def common_options(results: list[Result], ignored: tuple[str, ...] = ()) -> frozenset:
    """The (option, value) pairs every result shares: said once, not in every name."""
    sets = [set(_options(result, ignored)) for result in results]
    return frozenset(set.intersection(*sets)) if sets else frozenset()


def _core(result: Result) -> tuple[str | None, str | None]:
    """The core a result was counted on: its target's cpu and configuration (Ibex small, maxperf), else the
    cpu the result names."""
    target = catalog.TARGETS.get(result.target) if result.target else None
    return (target.cpu, target.core_config) if target else (result.cpu, None)


def _core_said(result: Result) -> str:
    cpu, config = _core(result)
    clock = f" at {result.f_cpu_hz / 1e6:g} MHz" if result.f_cpu_hz else ""
    target = catalog.TARGETS.get(result.target) if result.target else None
    counted = (f"the {result.timing_model} timing model" if result.timing_model
               else "its RTL" if target and target.simulator == "verilator" else "no timing model")
    return f"{cpu or 'an unnamed core'}{f' {config}' if config else ''}{clock} ({counted})"


def _core_differences(old: Result, now: Result) -> list[str]:
    """What keeps two results of other targets from being one core's figures: another core (or configuration
    of it), another timing model."""
    found = []
    if _core(old) != _core(now):
        found.append(f"core {_core_said(old)} vs {_core_said(now)}")
    elif old.timing_model and now.timing_model and old.timing_model != now.timing_model:
        found.append(f"timing model {old.timing_model} vs {now.timing_model}")
    return found


def _said(value, unit: str | None = None) -> str:
    """A field as text: what a missing one means, never Python's None."""
    if value is not None:
        return str(value)
    return "none (instructions counted)" if unit == "instructions" else "none"


def compare(base: list[Result], new: list[Result], metric: str, threshold: Threshold,
            ignored: tuple[str, ...] = (), allow_different_cores: bool = False) -> list[Comparison]:
    """`ignored`: configuration options left out of the matching (to compare -O2 with -Os, ignore opt);
    `allow_different_cores`: across targets, give verdicts between other cores too (else not comparable)."""
    if metric not in STAT_KEYS:
        raise SwitchscopeError(f"--metric takes one of {', '.join(STAT_KEYS)}, not '{metric}'")
    if ACROSS_TARGETS in ignored:
        for side, results in (("base", base), ("new", new)):
            targets = sorted({r.target for r in results})
            if len(targets) > 1:
                raise SwitchscopeError(f"--across-targets holds one target against another, and {side} holds "
                                       f"{len(targets)}: {', '.join(targets)}",
                                       "write each target's results to a file of its own (run --target ibex "
                                       "--json rtl.json; run --target ibex-qemu --json model.json)")
    # results that differ only in their number of samples (a suite's rotate at 100, 1,000 and 10,000 switches)
    # are matched by it too
    sized = {key for results in (base, new) for key, n in Counter(_key(r, ignored) for r in results).items() if n > 1}
    by_key: dict[tuple, list[Result | None]] = {}
    for side, results in ((0, base), (1, new)):
        for result in results:
            key = _key(result, ignored)
            key += (_size(result),) if key in sized else ()
            pair = by_key.setdefault(key, [None, None])
            if pair[side] is not None:
                raise SwitchscopeError(f"{'base' if side == 0 else 'new'}: two results for {_name(result, ignored)} "
                                       f"with {_size(result):,} samples",
                                       "compare files that hold one result per measurement, or ignore fewer options")
            pair[side] = result
    found = []
    common = common_options([*base, *new], ignored)
    for key, (old, now) in by_key.items():
        either = old or now
        name = _name(either, ignored, common)
        if ACROSS_TARGETS in ignored and old is not None and now is not None and old.target != now.target:
            name = name.replace(f"/{either.target}/", f"/{old.target} vs {now.target}/", 1)
        name += f" ({_size(either):,} samples)" if _key(either, ignored) in sized else ""
        if old is None or now is None:
            found.append(Comparison(key, name, old, now, metric, "only in base" if now is None else "only in new"))
            continue
        differences = []
        if old.unit != now.unit:
            differences.append(f"unit {old.unit} vs {now.unit}")
        if old.timing_model != now.timing_model and ACROSS_TARGETS not in ignored:
            differences.append(f"timing model {_said(old.timing_model, old.unit)} vs "
                               f"{_said(now.timing_model, now.unit)}")
        other_cores = _core_differences(old, now) if ACROSS_TARGETS in ignored else []
        if not allow_different_cores:
            differences += other_cores
        differences += _sweep_differences(old, now)
        if differences:
            found.append(Comparison(key, name, old, now, metric, "not comparable", "; ".join(differences)))
            continue
        before, after = getattr(old.stats, metric), getattr(now.stats, metric)
        if after > before:
            verdict = "within" if threshold.allows(before, after) else "slower"
        else:
            verdict = "faster" if after < before else "same"
        worse_worst = ""
        if old.worst and now.worst and metric != "max" and now.stats.max > old.stats.max:
            # an interrupt's latency is judged by its worst case as well as by the statistic compared
            worse_worst = f"worst {figure(old.stats.max)} -> {figure(now.stats.max)} {now.unit}"
            if not threshold.allows(old.stats.max, now.stats.max):
                verdict = "slower"
        simulators = (old.simulator or {}).get("name"), (now.simulator or {}).get("name")
        compilers = (old.toolchain or {}).get("compiler"), (now.toolchain or {}).get("compiler")
        memories = board_facts.memory_of(old), board_facts.memory_of(now)  # a flash model's settings, or none
        changed = [f"{k} {(old.options or {}).get(k, 'unset')} vs {(now.options or {}).get(k, 'unset')}"
                   for k in ignored if (old.options or {}).get(k) != (now.options or {}).get(k)]
        notes = [worse_worst, *other_cores,
                 f"simulator {_said(simulators[0])} vs {_said(simulators[1])}" if simulators[0] != simulators[1]
                 else "",
                 f"compiler {_said(compilers[0])} vs {_said(compilers[1])}" if compilers[0] != compilers[1] else "",
                 f"memory {_said(memories[0])} vs {_said(memories[1])}" if memories[0] != memories[1] else "",
                 *changed]
        found.append(Comparison(key, name, old, now, metric, verdict, "; ".join(n for n in notes if n)))
    return sorted(found, key=lambda c: c.name)


def nothing_compared(found: list[Comparison], ignored: tuple[str, ...] = ()) -> SwitchscopeError | None:
    """Why a comparison compared nothing, as the error that fails the job (exit 2: a job that compared nothing
    must not pass), or None when it compared something."""
    if any(c.verdict in COMPARED for c in found):
        return None
    base = [c.base for c in found if c.base is not None]
    new = [c.new for c in found if c.new is not None]
    unlike = [c for c in found if c.verdict == "not comparable"]
    if not unlike:
        return SwitchscopeError(f"nothing in common to compare: {len(base)} result(s) only in base, {len(new)} only "
                                "in new", _matching_hint(base, new, ignored))
    reasons = list(dict.fromkeys(c.why for c in unlike))
    hint = ("--allow-different-cores gives verdicts between them all the same"
            if ACROSS_TARGETS in ignored and any(_core_differences(c.base, c.new) for c in unlike)
            else "compare results counted the same way: in one unit, by one timing model")
    return SwitchscopeError(f"nothing compared: {len(unlike)} pair(s) not comparable ({reasons[0]}"
                            + (f"; and {len(reasons) - 1} other reason(s)" if len(reasons) > 1 else "") + ")"
                            + (f", {len(found) - len(unlike)} on one side only" if len(found) > len(unlike) else ""),
                            hint)


def _sweep_differences(old: Result, now: Result) -> list[str]:
    """Why two interrupt latencies are not alike distributions: one sweep met the whole loop and the other part
    of it, or one holds a sample per step of the loop and the other every sample its run took."""
    if not (old.phases and now.phases):
        return []
    def coverage(phases: dict) -> str:
        return f"{phases['covered']} of {phases['period']} steps" if latency_view.partial(phases) else "all steps"
    found = []
    if latency_view.partial(old.phases) or latency_view.partial(now.phases):
        if coverage(old.phases) != coverage(now.phases):
            found.append(f"the loop's phases covered: {coverage(old.phases)} vs {coverage(now.phases)}")
    if bool(old.phases.get("one_per_phase")) != bool(now.phases.get("one_per_phase")):
        each = {True: "one sample per step of the loop", False: "every sample the run took"}
        found.append(f"{each[bool(old.phases.get('one_per_phase'))]} vs {each[bool(now.phases.get('one_per_phase'))]}")
    return found


def _matching_hint(base: list[Result], new: list[Result], ignored: tuple[str, ...]) -> str:
    """What would pair the two sides: the options in which results of one kernel, target, scenario and method
    differ, to ignore; else that they measured other things."""
    def what(result: Result) -> tuple:
        target = None if ACROSS_TARGETS in ignored else result.target
        return result.kernel, target, result.scenario, result.method, result.tasks
    differing = sorted({key for old in base for now in new if what(old) == what(now)
                        for key in {*(old.options or {}), *(now.options or {})} - set(ignored)
                        if (old.options or {}).get(key) != (now.options or {}).get(key)})
    if differing:
        hint = (f"they differ in {', '.join(differing)}: to compare across that, add "
                + " ".join(f"--ignore-option {key}" for key in differing))
        cores = next((said for old in base for now in new if what(old) == what(now)
                      for said in _core_differences(old, now)), None)  # what --ignore-option leaves apart
        if ACROSS_TARGETS in ignored and cores:
            hint += (f"; even so, they differ in {cores}: such pairs are listed as not comparable, "
                     "unless --allow-different-cores asks for verdicts all the same")
        return hint
    if ACROSS_TARGETS not in ignored and {what(r)[2:] for r in base} & {what(r)[2:] for r in new}:
        return ("they measured the same scenarios on other targets: to hold one target against another (a timing "
                "model against the RTL), add --across-targets")
    return "the two sides measured other kernels, targets, scenarios or methods: compare measurements of the same ones"


def regressions(found: list[Comparison], fail_on: str = "any") -> list[Comparison]:
    """The comparisons that fail the command: every "slower" one; with fail_on "outside-range", not those inside
    the TRM range (a chip could show one figure for both). A slower result without a range on both sides still
    fails: its count is exact (instructions, the AVR's cycles), or nothing says the change is the model's."""
    return [c for c in found if c.verdict == "slower" and not (fail_on == "outside-range" and c.range == "inside")]


def figure(value: float | None) -> str:
    """A statistic as a table shows it: whole where it is whole, else to two places; "-" where there is none."""
    if value is None:
        return "-"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


