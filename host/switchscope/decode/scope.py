"""The oscilloscope method without an oscilloscope: from the edges of one pin
to the embOS figures tAB, tCD and tCS = tCD - tAB.

Each measurement is two pulses on the pin: a bare one (A rising, B falling),
whose width is the cost of driving the pin, then the window (C rising just
before the switching call, D falling just after the other task resumed).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from switchscope.common import outputs


@dataclass(frozen=True)
class Measurement:
    a: float
    b: float
    c: float
    d: float

    @property
    def t_ab(self) -> float:
        return self.b - self.a

    @property
    def t_cd(self) -> float:
        return self.d - self.c

    @property
    def t_cs(self) -> float:
        return self.t_cd - self.t_ab


class ScopeError(ValueError):
    pass


def pulses(edges: Sequence[tuple[float, int]]) -> list[tuple[float, float]]:
    """(rise, fall) of every complete high pulse; a leading fall or a trailing
    rise (a capture that starts or stops mid-pulse) is left out."""
    found, rise = [], None
    for time, level in edges:
        if level and rise is None:
            rise = time
        elif not level and rise is not None:
            found.append((rise, time))
            rise = None
    return found


def measurements(edges: Sequence[tuple[float, int]]) -> list[Measurement]:
    """Group the pulses of a trace switchscope made into A-B-C-D measurements:
    its first complete pulse is an A-B, and every pulse is one of a pattern."""
    found = pulses(edges)
    if len(found) < 2:
        raise ScopeError(f"no complete A-B-C-D pattern: the pin shows {len(found)} complete pulse(s), "
                         "and a measurement needs two (the bare pulse, then the window)")
    return [Measurement(found[i][0], found[i][1], found[i + 1][0], found[i + 1][1])
            for i in range(0, len(found) - 1, 2)]


@dataclass(frozen=True)
class LeftOut:
    """A pulse or pattern of a capture that gave no figure, and why."""
    time: float  # where it starts, in the capture's seconds
    value: float  # the pattern's tCD - tAB, or the lone pulse's width
    reason: str


GLITCH_FRACTION = 0.5  # a pulse narrower than half the bare pulse is no pin toggle of the firmware's
NATURAL_BREAK = 2.0  # the gaps within patterns and between them differ at least this much, or the pairing is unclear


def paired(edges: Sequence[tuple[float, int]]) -> tuple[list[Measurement], list[LeftOut]]:
    """The A-B-C-D patterns of a capture from real hardware, which may start
    anywhere and may hold glitches, and what was left out with the reason.

    Pulses pair by the gap between them: within a pattern B and C are close,
    between patterns lies the rest of the cycle; the threshold is the widest
    natural break among the gaps. A glitch (a pulse narrower than half the bare
    pulse), a pulse with no partner, the patterns either side of either, and a
    pattern whose window is no longer than its bare pulse are left out, never
    clamped; a capture where they outnumber the patterns kept is refused."""
    found = pulses(edges)
    if len(found) < 2:
        raise ScopeError(f"no complete A-B-C-D pattern: the pin shows {len(found)} complete pulse(s), "
                         "and a measurement needs two (the bare pulse, then the window)")
    bare = bare_width([fall - rise for rise, fall in found])
    left_out: list[LeftOut] = []
    kept_pulses, suspect_after = [], set()  # suspect_after: indices of kept pulses that follow a glitch
    for rise, fall in found:
        if fall - rise < bare * GLITCH_FRACTION:
            left_out.append(LeftOut(rise, fall - rise, f"a glitch: a pulse of {_seconds(fall - rise)}, under half "
                                                       f"the bare pulse's {_seconds(bare)}"))
            suspect_after.add(len(kept_pulses))
        else:
            kept_pulses.append((rise, fall))
    if len(kept_pulses) < 2:
        raise ScopeError("no complete A-B-C-D pattern: every pulse but one or none is a glitch")
    gaps = [kept_pulses[i + 1][0] - kept_pulses[i][1] for i in range(len(kept_pulses) - 1)]
    inner = _inner_gap_limit(gaps)
    patterns: list[tuple[int, Measurement]] = []  # (index of its first pulse, the pattern)
    lone: list[int] = []
    i = 0
    while i < len(kept_pulses):
        if i + 1 < len(kept_pulses) and gaps[i] <= inner and i + 1 not in suspect_after:
            (a, b), (c, d) = kept_pulses[i], kept_pulses[i + 1]
            patterns.append((i, Measurement(a, b, c, d)))
            i += 2
        else:
            lone.append(i)
            i += 1
    last = len(kept_pulses) - 1
    # a lone first pulse is a window whose bare pulse came before the capture; a lone last one a bare pulse whose
    # window came after it, but only where the next pattern would start: a gap between patterns (half the typical
    # one at least) parts it from the pulse before, and it rises after the window before it would have ended (the
    # typical window) and half that gap. The gap alone cannot tell: a pin that dropped inside the last window
    # leaves its last piece past a gap as wide as the drop, which can outlast half the gap between patterns, but
    # that piece always rises within the window
    between = sorted(gap for gap in gaps if gap > inner)
    typical_between = between[len(between) // 2] if between else 0
    windows = sorted(pattern.t_cd for _, pattern in patterns)
    typical_window = windows[len(windows) // 2] if windows else 0
    cut_off = {index for index in lone if index == 0 or (
        index == last and gaps[last - 1] > inner and gaps[last - 1] >= typical_between / 2
        and kept_pulses[last][0] - kept_pulses[last - 1][0] >= typical_window + typical_between / 2)}
    troubled = (set(lone) - cut_off) | suspect_after
    kept = []
    for first, pattern in patterns:
        near = [index for index in (first - 1, first, first + 2) if index in troubled]
        if near:
            left_out.append(LeftOut(pattern.a, pattern.t_cs, "next to a glitch or a pulse with no partner"))
        elif pattern.t_cd <= pattern.t_ab:
            left_out.append(LeftOut(pattern.a, pattern.t_cs, "its window (tCD) is no longer than its bare pulse "
                                                             "(tAB)"))
        else:
            kept.append(pattern)
    for index in lone:
        where = ("at the start of the capture" if index == 0 else "at the end of the capture") \
            if index in cut_off else "with no partner"
        rise, fall = kept_pulses[index]
        left_out.append(LeftOut(rise, fall - rise, f"a pulse {where}"))
    troubles = [item for item in left_out if "of the capture" not in item.reason]
    if not kept or len(troubles) > len(kept):
        raise ScopeError(f"the pulses do not pair cleanly into A-B-C-D patterns: {len(kept)} kept, "
                         f"{len(troubles)} left out (the first: {troubles[0].reason if troubles else 'none'}, "
                         f"at {_seconds(troubles[0].time) if troubles else '-'})")
    return kept, sorted(left_out, key=lambda item: item.time)


def bare_width(widths: Sequence[float]) -> float:
    """The bare pulse's width: half the pulses are bare ones, the narrowest of a clean capture, so the
    lower quartile is one of them however the rest vary, and a few glitches do not move it."""
    return sorted(widths)[(len(widths) - 1) // 4]


def _inner_gap_limit(gaps: list[float]) -> float:
    """The largest gap still within a pattern: the middle of the widest break
    (by ratio) between sorted gaps. With no clear break, every gap pairs."""
    ordered = sorted(gaps)
    best, limit = NATURAL_BREAK, ordered[-1] if ordered else 0.0
    for low, high in zip(ordered, ordered[1:]):
        ratio = high / low if low > 0 else float("inf") if high > 0 else 1.0
        if ratio >= best:
            best, limit = ratio, (low + high) / 2
    return limit


def _seconds(value: float) -> str:
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(value) >= scale:
            return f"{float(value) / scale:.4g} {unit}"
    return f"{float(value) / 1e-12:.4g} ps"


def write_vcd(path: Path, edges: Sequence[tuple[int, int]], signal: str, timescale: str,
              ticks_per_unit: int, comment: str) -> None:
    """Write the pin's edges as a VCD that GTKWave, PulseView and sigrok-cli read.
    `ticks_per_unit`: VCD time steps per measured unit (e.g. 625 steps of 100 ps
    per 62.5 ns cycle)."""
    lines = [
        f"$comment {comment} $end",
        f"$timescale {timescale} $end",
        "$scope module switchscope $end",
        f"$var wire 1 ! {signal} $end",
        "$upscope $end",
        "$enddefinitions $end",
        "#0",
        "$dumpvars 0! $end",
    ]
    for time, level in edges:
        lines.append(f"#{time * ticks_per_unit}")
        lines.append(f"{level}!")
    if edges:
        # one more step so the last edge has a visible extent in viewers
        lines.append(f"#{(edges[-1][0] + 1) * ticks_per_unit}")
    path.parent.mkdir(parents=True, exist_ok=True)
    outputs.write_text(path, "\n".join(lines) + "\n")
