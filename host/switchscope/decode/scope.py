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


def measurements(edges: Sequence[tuple[float, int]], aligned: bool = True) -> list[Measurement]:
    """Group pulses into A-B-C-D measurements.

    `aligned`: the first complete pulse is an A-B (a trace switchscope made).
    Otherwise (a capture from real hardware, which may start anywhere) the
    grouping is the one whose pulse pairs lie closest together: within a
    measurement B and C are close, between measurements lies a kernel tick."""
    found = pulses(edges)
    if len(found) < 2:
        raise ScopeError(f"no complete A-B-C-D pattern: the pin shows {len(found)} complete pulse(s), "
                         "and a measurement needs two (the bare pulse, then the window)")
    phase = 0
    if not aligned and len(found) > 2:  # two pulses pair up one way only
        gaps = [sum(found[i + 1][0] - found[i][1] for i in range(start, len(found) - 1, 2)) /
                max(1, len(range(start, len(found) - 1, 2))) for start in (0, 1)]
        phase = 0 if gaps[0] <= gaps[1] else 1
    grouped = [Measurement(found[i][0], found[i][1], found[i + 1][0], found[i + 1][1])
               for i in range(phase, len(found) - 1, 2)]
    if not grouped:
        raise ScopeError(f"no complete A-B-C-D pattern: the {len(found)} pulses on the pin pair up only "
                         "across a gap longer than the one within them")
    return grouped


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
