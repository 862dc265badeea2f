"""`switchscope compare BASE NEW`: did a change make switching slower?

Results are matched by what they measured: kernel, target, scenario, method,
configuration options, rotate's task count and the unit. Each match is
compared on one statistic (the median by default); since the simulators are
deterministic, by default any increase is a regression. A result on one side
only is listed, never an error; a match counted in another unit, or by
another simulator, is flagged and not compared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from rich.markup import escape

from switchscope import outputs, results_files
from switchscope.errors import SwitchscopeError
from switchscope.result import STAT_KEYS, Result


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
                "percent": self.percent, "verdict": self.verdict, **({"why": self.why} if self.why else {})}


def _options(result: Result, ignored: tuple[str, ...]) -> tuple:
    return tuple(sorted((k, v) for k, v in (result.options or {}).items() if k not in ignored))


def _key(result: Result, ignored: tuple[str, ...]) -> tuple:
    return (result.kernel, result.target, result.scenario, result.method, _options(result, ignored), result.tasks)


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
    by_key: dict[tuple, list[Result | None]] = {}
    for side, results in ((0, base), (1, new)):
        for result in results:
            pair = by_key.setdefault(_key(result, ignored), [None, None])
            if pair[side] is not None:
                raise SwitchscopeError(f"{'base' if side == 0 else 'new'}: two results for {_name(result, ignored)}",
                                       "compare files that hold one result per measurement, or ignore fewer options")
            pair[side] = result
    found = []
    common = common_options([*base, *new], ignored)
    for key, (old, now) in by_key.items():
        name = _name(old or now, ignored, common)
        if old is None or now is None:
            found.append(Comparison(key, name, old, now, metric, "only in base" if now is None else "only in new"))
            continue
        differences = []
        if old.unit != now.unit:
            differences.append(f"unit {old.unit} vs {now.unit}")
        if old.timing_model != now.timing_model:
            differences.append(f"timing model {old.timing_model} vs {now.timing_model}")
        if differences:
            found.append(Comparison(key, name, old, now, metric, "not comparable", "; ".join(differences)))
            continue
        before, after = getattr(old.stats, metric), getattr(now.stats, metric)
        if after > before:
            verdict = "within" if threshold.allows(before, after) else "slower"
        else:
            verdict = "faster" if after < before else "same"
        simulators = (old.simulator or {}).get("name"), (now.simulator or {}).get("name")
        compilers = (old.toolchain or {}).get("compiler"), (now.toolchain or {}).get("compiler")
        changed = [f"{k} {old.options.get(k)} vs {now.options.get(k)}" for k in ignored
                   if (old.options or {}).get(k) != (now.options or {}).get(k)]
        notes = [f"simulator {simulators[0]} vs {simulators[1]}" if simulators[0] != simulators[1] else "",
                 f"compiler {compilers[0]} vs {compilers[1]}" if compilers[0] != compilers[1] else "", *changed]
        found.append(Comparison(key, name, old, now, metric, verdict, "; ".join(n for n in notes if n)))
    return sorted(found, key=lambda c: c.name)


def regressions(found: list[Comparison]) -> list[Comparison]:
    return [c for c in found if c.verdict == "slower"]


def _figure(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def table_rows(found: list[Comparison]) -> list[list[str]]:
    colour = {"slower": "red", "faster": "green"}
    rows = [["result", "unit", "base", "new", "difference", "percent", "verdict"]]
    for c in found:
        shade = colour.get(c.verdict)
        verdict = f"[{shade}]{c.verdict}[/{shade}]" if shade else c.verdict
        difference = "-" if c.difference is None else f"{c.difference:+.2f}".rstrip("0").rstrip(".")
        percent = "-" if c.percent is None else f"{c.percent:+.2f}%"
        rows.append([escape(c.name), (c.base or c.new).unit, _figure(c.base_value), _figure(c.new_value), difference,
                     percent, verdict + (f" ({escape(c.why)})" if c.why else "")])
    return rows


def write_junit(path: Path, found: list[Comparison], threshold: Threshold) -> None:
    """One test case per comparison: a regression fails, a result on one side only or not comparable is skipped."""
    suite = ElementTree.Element("testsuite", name="switchscope compare", tests=str(len(found)),
                                failures=str(len(regressions(found))),
                                skipped=str(sum(c.verdict in ("only in base", "only in new", "not comparable")
                                                for c in found)))
    for c in found:
        case = ElementTree.SubElement(suite, "testcase", classname="switchscope", name=f"{c.name} {c.metric}")
        said = (f"{c.metric} {_figure(c.base_value)} -> {_figure(c.new_value)} {(c.base or c.new).unit}"
                f" ({'' if c.percent is None else f'{c.percent:+.2f}%'}, threshold {threshold})")
        if c.verdict == "slower":
            ElementTree.SubElement(case, "failure", message=f"slower: {said}").text = said
        elif c.verdict in ("only in base", "only in new", "not comparable"):
            ElementTree.SubElement(case, "skipped", message=c.verdict + (f": {c.why}" if c.why else ""))
        else:
            ElementTree.SubElement(case, "system-out").text = f"{c.verdict}: {said}"
    outputs.write_text(path, ElementTree.tostring(suite, encoding="unicode", xml_declaration=True) + "\n")


def summary(found: list[Comparison], threshold: Threshold, ignored: tuple[str, ...] = ()) -> str:
    counts = {verdict: sum(c.verdict == verdict for c in found)
              for verdict in ("slower", "within", "same", "faster", "only in base", "only in new", "not comparable")}
    said = ", ".join(f"{n} {verdict}" for verdict, n in counts.items() if n)
    allowed = "any increase" if threshold.amount == 0 else f"an increase over {threshold}"
    results = [r for c in found for r in (c.base, c.new) if r is not None]
    shared = ", ".join(f"{k}={v}" for k, v in sorted(common_options(results, ignored)))
    return (f"{len(found)} compared: {said or 'nothing'} (a regression: {allowed})"
            + (f"\nevery result: {shared}" if shared else ""))

