"""`switchscope analyze`: the oscilloscope method on a capture taken from real
hardware (or from a switchscope trace): tAB, tCD and tCS for every A-B-C-D
pattern on one channel, with the same statistics and JSON as `run`."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from pathlib import Path

from switchscope.decode import capture_files, scope, stats
from switchscope.decode.capture_files import CaptureError
from switchscope.figures.result import Result

MIN_SAMPLES_PER_PULSE = 2  # a pulse one sample wide could be anything from 0 to 2 sample periods


def analyze(path: Path, channel: str, clock_hz: float | None = None) -> Result:
    found = capture_files.read(path, channel)
    widths = [fall - rise for rise, fall in scope.pulses(found.edges)]
    narrowest = min(widths, default=None)
    if narrowest is not None and narrowest <= 0:
        raise CaptureError(f"{path}, channel {channel}: a pulse of zero width (both its edges at one time stamp): "
                           "the capture cannot tell them apart", "capture again at a higher sample rate")
    # the bare pulse, the narrowest the firmware makes (a narrower glitch is left out later), in whole sample
    # periods: a CSV time column is rounded, so 2 periods may read 1.98
    bare = scope.bare_width(widths) if widths else None
    if bare is not None and round(bare / found.resolution) < MIN_SAMPLES_PER_PULSE:
        raise CaptureError(
            f"{path}: the sample rate is too coarse: the bare pulse on {channel} spans "
            f"{float(bare / found.resolution):.2f} sample period(s) of {float(found.resolution) * 1e9:g} ns",
            f"capture again at a sample rate of at least {MIN_SAMPLES_PER_PULSE / float(bare) / 1e6:.3g} MHz "
            "(several times that for precise figures)")
    try:
        patterns, left_out = scope.paired(found.edges)
    except scope.ScopeError as error:
        raise CaptureError(f"{path}, channel {channel}: {error}") from None

    if found.time_base:  # a switchscope VCD: its time steps count cycles, or QEMU's instructions
        stated_unit, seconds_per_unit = found.time_base
        if stated_unit == "instructions" and clock_hz:
            raise CaptureError(f"{path} counts QEMU instructions ({float(seconds_per_unit) * 1e9:g} ns of virtual "
                               "time each), not cycles: --clock cannot turn them into cycles",
                               "leave out --clock (the figures are then in instructions), or record the VCD "
                               "in cycles (switchscope run --unit cycles)")
        if stated_unit == "cycles" and clock_hz and Fraction(clock_hz) != 1 / seconds_per_unit:
            raise CaptureError(f"{path} counts cycles of {float(1 / seconds_per_unit) / 1e6:g} MHz, not of "
                               f"{clock_hz / 1e6:g} MHz", "leave out --clock: the VCD states its clock")
        unit, per_second = stated_unit, 1 / seconds_per_unit
        clock_hz = float(per_second) if stated_unit == "cycles" else None
    elif clock_hz:
        unit, per_second = "cycles", Fraction(clock_hz)
    else:
        unit, per_second = "ns", Fraction(10**9)
    counted = unit != "ns"
    to_unit = lambda seconds: stats.counts_to_units(seconds * per_second, Fraction(1)) if counted \
        else float(seconds * per_second)

    t_ab = [to_unit(m.t_ab) for m in patterns]
    t_cd = [to_unit(m.t_cd) for m in patterns]
    values = [cd - ab for ab, cd in zip(t_ab, t_cd)]  # each positive: paired() left out any other
    excluded = [{"seq": None, "value": to_unit(item.value) if item.value >= 0 else -to_unit(-item.value),
                 "reason": item.reason, "at_s": float(item.time)} for item in left_out]

    return Result(
        kind="capture",
        scenario=channel,
        method="scope",
        unit=unit,
        samples=values,
        overhead=Counter(t_ab).most_common(1)[0][0],
        first=values[0],
        excluded_samples=excluded,
        source=str(path),
        f_cpu_hz=clock_hz,
        details={"capture": found.source, "channel": channel, "clock_hz": clock_hz,
                 "resolution_ns": float(found.resolution * 10**9),
                 "t_ab": stats.statistics(t_ab), "t_cd": stats.statistics(t_cd)},
    )
