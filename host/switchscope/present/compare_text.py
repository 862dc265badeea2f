"""What `switchscope compare` prints and writes of its comparisons: the table, the summary and the JUnit file."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from rich.markup import escape

from switchscope.common import outputs
from switchscope.present.compare import (CHANGES, COMPARED, NOT_COMPARED, Comparison, Threshold, common_options,
                                         figure, regressions)
from switchscope.present.report import RANGE_COLUMN, range_note


def _span(bounds: tuple[float, float] | None) -> str:
    return f"{figure(bounds[0])}-{figure(bounds[1])}" if bounds else "-"


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
        rows.append([escape(c.name), c.unit, figure(c.base_value), figure(c.new_value),
                     *([_span(c.base_range), _span(c.new_range)] if ranged else []), difference,
                     percent, verdict + (f" ({escape(c.why)})" if c.why and c.why != shared else "")])
    return rows


def shared_note(found: list[Comparison]) -> str:
    """The note every compared pair carries alike (the same two simulators: a model against an RTL), or ""."""
    notes = {c.why for c in found if c.base is not None and c.new is not None}
    return next(iter(notes)) if len(notes) == 1 and len(found) > 1 else ""


def write_junit(path: Path, found: list[Comparison], threshold: Threshold, fail_on: str = "any",
                gate: tuple[tuple[str, str], ...] = ()) -> None:
    """One test case per comparison: a regression fails, a result on one side only or not comparable is skipped;
    and one failing case for each (name, message) in `gate`: what fails the job beside the comparisons (nothing
    compared, a measurement of the change that failed)."""
    failing = {id(c) for c in regressions(found, fail_on)}
    cases = ElementTree.Element("testsuite", name="switchscope compare", tests=str(len(found) + len(gate)),
                                failures=str(len(failing) + len(gate)),
                                skipped=str(sum(c.verdict in NOT_COMPARED for c in found)))
    for name, message in gate:
        case = ElementTree.SubElement(cases, "testcase", classname="switchscope", name=name)
        ElementTree.SubElement(case, "failure", message=message).text = message
    for c in found:
        case = ElementTree.SubElement(cases, "testcase", classname="switchscope", name=f"{c.name} {c.metric}")
        said = (f"{c.metric} {figure(c.base_value)} -> {figure(c.new_value)} {c.unit}"
                f" ({'' if c.percent is None else f'{c.percent:+.2f}%'}, threshold {threshold})"
                + (f"; {RANGE_COLUMN} {_span(c.base_range)} -> {_span(c.new_range)}" if c.range else ""))
        if id(c) in failing:
            ElementTree.SubElement(case, "failure", message=f"{_verdict(c)}: {said}").text = said
        elif c.verdict in NOT_COMPARED:
            ElementTree.SubElement(case, "skipped", message=c.verdict + (f": {c.why}" if c.why else ""))
        else:
            ElementTree.SubElement(case, "system-out").text = f"{_verdict(c)}: {said}"
    outputs.write_text(path, ElementTree.tostring(cases, encoding="unicode", xml_declaration=True) + "\n")


def _counted(verdict: str, these: list[Comparison]) -> str:
    """"2 slower", and of the changes with a range on both sides, how many lie outside it."""
    said = f"{len(these)} {verdict}"
    if verdict in CHANGES and any(c.range for c in these):
        said += f" ({sum(c.range == 'outside' for c in these)} outside the {RANGE_COLUMN})"
    return said


def summary(found: list[Comparison], threshold: Threshold, ignored: tuple[str, ...] = (), fail_on: str = "any") -> str:
    said = ", ".join(_counted(verdict, these) for verdict in COMPARED
                     if (these := [c for c in found if c.verdict == verdict]))
    left = ", ".join(f"{len(these)} {verdict}" for verdict in NOT_COMPARED
                     if (these := [c for c in found if c.verdict == verdict]))
    compared = sum(c.verdict in COMPARED for c in found)
    allowed = "any increase" if threshold.amount == 0 else f"an increase over {threshold}"
    if fail_on == "outside-range":
        allowed += f", outside the {RANGE_COLUMN} where both sides have one"
    results = [r for c in found for r in (c.base, c.new) if r is not None]
    shared = ", ".join(f"{k}={v}" for k, v in sorted(common_options(results, ignored)))
    note = range_note(results, found[0].metric) if _ranged(found) else ""
    alike = shared_note(found)
    return (f"{compared} compared: {said or 'nothing'}" + (f"; not compared: {left}" if left else "")
            + f" (a regression: {allowed})"
            + (f"\nevery pair: {alike}" if alike else "")
            + (f"\nevery result: {shared}" if shared else "")
            + (f"\n{note};\n  inside it: the two ranges overlap, and the change may be the model's choice within "
               f"them; outside it: they do not, and no choice within the manual's ranges makes the two figures "
               f"equal" if note else ""))
