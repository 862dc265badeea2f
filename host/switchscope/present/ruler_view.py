"""The ruler's self-test as a verdict, not a distribution: firmware/scenarios/ruler.c times blocks of N
single-instruction no-ops, each sample tagged with its block's N, and after the method's overhead every
sample must read exactly N (a nop is one instruction, and one cycle on every core switchscope models or
simulates). One row per length: how many samples read it, their least and most, pass or fail."""

from __future__ import annotations

from switchscope.figures.result import Result
from switchscope.present.cells import aligned, cell, row_label

RULER = "ruler"


def is_ruler(result: Result) -> bool:
    """A ruler's result whose samples carry their block's length (its tags)."""
    return result.scenario == RULER and bool(result.sample_tags)


def by_length(result: Result) -> dict[int, list]:
    """The samples of each block length, the lengths in increasing order."""
    found: dict[int, list] = {}
    for tag, value in zip(result.sample_tags, result.samples):
        found.setdefault(int(tag), []).append(value)
    return dict(sorted(found.items()))


def wrong(result: Result) -> int:
    """How many samples read other than their block's length."""
    return sum(1 for tag, value in zip(result.sample_tags, result.samples) if value != tag)


def failed(results: list[Result]) -> list[Result]:
    """The rulers among `results` that read a length wrong."""
    return [r for r in results if is_ruler(r) and wrong(r)]


def text_lines(results: list[Result], with_method: bool = False) -> list[str]:
    """For each ruler: a row per block length against what it must read, then its verdict."""
    lines = []
    for r in (r for r in results if is_ruler(r)):
        label = row_label(r, with_method)
        rows = [[f"{label}: N nops", f"must read ({r.unit})", "count", "min", "max", "result"]]
        for length, values in by_length(r).items():
            off = sum(1 for value in values if value != length)
            rows.append([str(length), str(length), str(len(values)), cell(min(values)), cell(max(values)),
                         "pass" if not off else f"FAIL ({off} off)"])
        lines += aligned(rows)
        left_out = f"; {r.excluded} left out (a tick fell into them)" if r.excluded else ""
        if wrong(r):
            lines.append(f"  {label}: FAIL: {wrong(r)} of {r.count} samples do not read their block's N{left_out}: "
                         f"the overhead subtracted ({cell(r.overhead)} {r.unit}) or the count is off")
        else:
            lines.append(f"  {label}: pass: all {r.count} samples read their block's N exactly{left_out}")
    return lines
