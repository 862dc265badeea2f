"""`switchscope compare BASE NEW`: did a change make switching slower?

Results are matched by what they measured: kernel, target, scenario, method,
configuration options, rotate's task count and the unit; and by their number
of samples where a side holds several of one such (a suite's rotate at 100,
1,000 and 10,000 switches). Each match is
compared on one statistic (the median by default); since the simulators are
deterministic, by default any increase is a regression. A result on one side
only is listed, never an error; a match counted in another unit, or by
another simulator, is flagged and not compared.

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
from pathlib import Path
from xml.etree import ElementTree

from rich.markup import escape

from switchscope.common import outputs
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import results_files
from switchscope.figures.result import STAT_KEYS, Result
from switchscope.present import latency_view
from switchscope.present.report import RANGE_COLUMN, range_note

FAIL_ON = ("any", "outside-range")  # which regressions fail `switchscope compare`
CHANGES = ("slower", "within", "faster")  # the verdicts of a figure that moved


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

    def as_json(self) -> dict:
        return {"result": self.name, "metric": self.metric, "unit": (self.base or self.new).unit,
                "base": self.base_value, "new": self.new_value, "difference": self.difference,
                "percent": self.percent, "verdict": self.verdict, "range": self.range,
                **{side: list(bounds) if bounds else None
                   for side, bounds in (("base_range", self.base_range), ("new_range", self.new_range))},
                **({"why": self.why} if self.why else {})}


def _options(result: Result, ignored: tuple[str, ...]) -> tuple:
    return tuple(sorted((k, v) for k, v in (result.options or {}).items() if k not in ignored))


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


def load(path: Path, side: str) -> list[Result]:
    """Every result in a JSON file (run, sweep, measure, analyze: {"results": [...]}) or in a suite's
    directory (its runs/**/*.json); an intrusion report's rows are medians, not results, and are left out."""
    return results_files.results(path, side)


def compare(base: list[Result], new: list[Result], metric: str, threshold: Threshold,
            ignored: tuple[str, ...] = ()) -> list[Comparison]:
    """`ignored`: configuration options left out of the matching (to compare -O2 with -Os, ignore opt)."""
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
            differences.append(f"timing model {old.timing_model} vs {now.timing_model}")
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
            worse_worst = f"worst {_figure(old.stats.max)} -> {_figure(now.stats.max)} {now.unit}"
            if not threshold.allows(old.stats.max, now.stats.max):
                verdict = "slower"
        simulators = (old.simulator or {}).get("name"), (now.simulator or {}).get("name")
        compilers = (old.toolchain or {}).get("compiler"), (now.toolchain or {}).get("compiler")
        changed = [f"{k} {old.options.get(k)} vs {now.options.get(k)}" for k in ignored
                   if (old.options or {}).get(k) != (now.options or {}).get(k)]
        notes = [worse_worst, f"simulator {simulators[0]} vs {simulators[1]}" if simulators[0] != simulators[1] else "",
                 f"compiler {compilers[0]} vs {compilers[1]}" if compilers[0] != compilers[1] else "", *changed]
        found.append(Comparison(key, name, old, now, metric, verdict, "; ".join(n for n in notes if n)))
    if base and new and all(c.verdict in ("only in base", "only in new") for c in found):
        raise SwitchscopeError(f"nothing in common to compare: {len(base)} result(s) only in base, {len(new)} only in "
                               "new", _matching_hint(base, new, ignored))
    return sorted(found, key=lambda c: c.name)


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
        return (f"they differ in {', '.join(differing)}: to compare across that, add "
                + " ".join(f"--ignore-option {key}" for key in differing))
    if ACROSS_TARGETS not in ignored and {what(r)[2:] for r in base} & {what(r)[2:] for r in new}:
        return ("they measured the same scenarios on other targets: to hold one target against another (a timing "
                "model against the RTL), add --across-targets")
    return "the two sides measured other kernels, targets, scenarios or methods: compare measurements of the same ones"


def regressions(found: list[Comparison], fail_on: str = "any") -> list[Comparison]:
    """The comparisons that fail the command: every "slower" one; with fail_on "outside-range", not those inside
    the TRM range (a chip could show one figure for both). A slower result without a range on both sides still
    fails: its count is exact (instructions, the AVR's cycles), or nothing says the change is the model's."""
    return [c for c in found if c.verdict == "slower" and not (fail_on == "outside-range" and c.range == "inside")]


def _figure(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def _span(bounds: tuple[float, float] | None) -> str:
    return f"{_figure(bounds[0])}-{_figure(bounds[1])}" if bounds else "-"


def _verdict(c: Comparison) -> str:
    """The verdict, and for a figure that moved, whether it moved beyond the model's uncertainty."""
    return c.verdict + (f", {c.range} the {RANGE_COLUMN}" if c.range and c.verdict in CHANGES else "")


def _ranged(found: list[Comparison]) -> bool:
    return any(c.base_range or c.new_range for c in found)


def table_rows(found: list[Comparison], fail_on: str = "any") -> list[list[str]]:
    """With the TRM range of each side only when a result has one; a slower result that does not fail the
    command (inside the range with fail_on "outside-range") is yellow, not red."""
    failing = {id(c) for c in regressions(found, fail_on)}
    ranged = _ranged(found)
    shared = shared_note(found)  # said once, under the table (summary), not on every row
    rows = [["result", "unit", "base", "new", *(["base " + RANGE_COLUMN, "new " + RANGE_COLUMN] if ranged else []),
             "difference", "percent", "verdict"]]
    for c in found:
        shade = {"slower": "red" if id(c) in failing else "yellow", "faster": "green"}.get(c.verdict)
        verdict = f"[{shade}]{_verdict(c)}[/{shade}]" if shade else _verdict(c)
        difference = "-" if c.difference is None else f"{c.difference:+.2f}".rstrip("0").rstrip(".")
        percent = "-" if c.percent is None else f"{c.percent:+.2f}%"
        rows.append([escape(c.name), (c.base or c.new).unit, _figure(c.base_value), _figure(c.new_value),
                     *([_span(c.base_range), _span(c.new_range)] if ranged else []), difference,
                     percent, verdict + (f" ({escape(c.why)})" if c.why and c.why != shared else "")])
    return rows


def shared_note(found: list[Comparison]) -> str:
    """The note every compared pair carries alike (the same two simulators: a model against an RTL), or ""."""
    notes = {c.why for c in found if c.base is not None and c.new is not None}
    return next(iter(notes)) if len(notes) == 1 and len(found) > 1 else ""


def write_junit(path: Path, found: list[Comparison], threshold: Threshold, fail_on: str = "any") -> None:
    """One test case per comparison: a regression fails, a result on one side only or not comparable is skipped."""
    failing = {id(c) for c in regressions(found, fail_on)}
    suite = ElementTree.Element("testsuite", name="switchscope compare", tests=str(len(found)),
                                failures=str(len(failing)),
                                skipped=str(sum(c.verdict in ("only in base", "only in new", "not comparable")
                                                for c in found)))
    for c in found:
        case = ElementTree.SubElement(suite, "testcase", classname="switchscope", name=f"{c.name} {c.metric}")
        said = (f"{c.metric} {_figure(c.base_value)} -> {_figure(c.new_value)} {(c.base or c.new).unit}"
                f" ({'' if c.percent is None else f'{c.percent:+.2f}%'}, threshold {threshold})"
                + (f"; {RANGE_COLUMN} {_span(c.base_range)} -> {_span(c.new_range)}" if c.range else ""))
        if id(c) in failing:
            ElementTree.SubElement(case, "failure", message=f"{_verdict(c)}: {said}").text = said
        elif c.verdict in ("only in base", "only in new", "not comparable"):
            ElementTree.SubElement(case, "skipped", message=c.verdict + (f": {c.why}" if c.why else ""))
        else:
            ElementTree.SubElement(case, "system-out").text = f"{_verdict(c)}: {said}"
    outputs.write_text(path, ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n")


def _counted(verdict: str, these: list[Comparison]) -> str:
    """"2 slower", and of the changes with a range on both sides, how many lie outside it."""
    said = f"{len(these)} {verdict}"
    if verdict in CHANGES and any(c.range for c in these):
        said += f" ({sum(c.range == 'outside' for c in these)} outside the {RANGE_COLUMN})"
    return said


def summary(found: list[Comparison], threshold: Threshold, ignored: tuple[str, ...] = (), fail_on: str = "any") -> str:
    verdicts = ("slower", "within", "same", "faster", "only in base", "only in new", "not comparable")
    said = ", ".join(_counted(verdict, these) for verdict in verdicts
                     if (these := [c for c in found if c.verdict == verdict]))
    allowed = "any increase" if threshold.amount == 0 else f"an increase over {threshold}"
    if fail_on == "outside-range":
        allowed += f", outside the {RANGE_COLUMN} where both sides have one"
    results = [r for c in found for r in (c.base, c.new) if r is not None]
    shared = ", ".join(f"{k}={v}" for k, v in sorted(common_options(results, ignored)))
    note = range_note(results, found[0].metric) if _ranged(found) else ""
    alike = shared_note(found)
    return (f"{len(found)} compared: {said or 'nothing'} (a regression: {allowed})"
            + (f"\nevery pair: {alike}" if alike else "")
            + (f"\nevery result: {shared}" if shared else "")
            + (f"\n{note};\n  inside it: the two ranges overlap, and the change may be the model's choice within "
               f"them; outside it: they do not, and no choice within the manual's ranges makes the two figures "
               f"equal" if note else ""))
