"""From raw timer stamps to a distribution: pure arithmetic, no I/O.

Stamps are raw counts of the target's timer. A difference is taken modulo the
timer's period (so a wrap between the stamps is harmless), converted to the
measured unit, and the probe's own calibrated cost is subtracted.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def elapsed_counts(start: int, end: int, modulus: int, counts_down: bool) -> int:
    """Timer counts from `start` to `end` on a timer that wraps at `modulus`.

    A down-counter goes modulus-1 ... 1, 0, modulus-1 ...; an up-counter the
    other way. Correct as long as less than one full period elapsed."""
    if modulus <= 0:
        raise ValueError(f"timer modulus must be positive, got {modulus}")
    for name, value in (("start", start), ("end", end)):
        if not 0 <= value < modulus:
            raise ValueError(f"{name} stamp {value} outside the timer's range 0..{modulus - 1}")
    return (start - end) % modulus if counts_down else (end - start) % modulus


def elapsed_counts_array(start: np.ndarray, end: np.ndarray, modulus: int, counts_down: bool) -> np.ndarray:
    """elapsed_counts of every (start, end) pair at once."""
    if modulus <= 0:
        raise ValueError(f"timer modulus must be positive, got {modulus}")
    for name, values in (("start", start), ("end", end)):
        outside = np.flatnonzero((values < 0) | (values >= modulus))
        if len(outside):
            raise ValueError(f"{name} stamp {int(values[outside[0]])} outside the timer's range 0..{modulus - 1}")
    return (start - end) % modulus if counts_down else (end - start) % modulus


def counts_to_units_array(counts: np.ndarray, counts_per_unit: Fraction) -> np.ndarray:
    """counts_to_units of every count at once, in integers: floor(c / (p/q) + 1/2) = (2cq + p) // 2p."""
    p, q = counts_per_unit.numerator, counts_per_unit.denominator
    if int(counts.max(initial=0)) * 2 * q + p >= 2**63:
        return np.array([counts_to_units(int(c), counts_per_unit) for c in counts.tolist()], dtype=object)
    return (2 * counts * q + p) // (2 * p)


def counts_to_units(counts: int, counts_per_unit: Fraction) -> int:
    """Convert timer counts to whole units (instructions or cycles), rounding half up.

    Exact when the timer advances at least 2 counts per unit: the +-1 count
    of phase jitter between two reads is then less than half a unit."""
    return math.floor(Fraction(counts) / counts_per_unit + Fraction(1, 2))


def overhead(calibration_units: list[int]) -> int:
    """The probe's own cost: the least of the back-to-back calibration readings."""
    if not calibration_units:
        raise ValueError("no calibration readings")
    return min(calibration_units)


def percentile_nearest_rank(sorted_values: list[int], percent: float) -> int:
    """The smallest value with at least `percent` % of the values at or below it."""
    # exactly, as the percentage is written: 99.9 % of 1000 values is rank 999, where floats say 999.0000000000001
    rank = max(1, math.ceil(Fraction(str(percent)) * len(sorted_values) / 100))
    return sorted_values[rank - 1]


def statistics(values) -> dict[str, float | int]:
    """min, median, mode (the smallest of the most frequent), mean, max,
    population standard deviation and p99 (nearest rank)."""
    ordered = np.sort(np.asarray(values))
    n = len(ordered)
    if not n:
        raise ValueError("no samples to summarise")
    middle = n // 2
    median = ordered[middle].item() if n % 2 else (ordered[middle - 1].item() + ordered[middle].item()) / 2
    distinct, counts = np.unique(ordered, return_counts=True)
    mean = ordered.sum().item() / n
    return {
        "min": ordered[0].item(),
        "median": median,
        "mode": distinct[np.argmax(counts)].item(),  # the first of the most frequent: the smallest
        "mean": mean,
        "max": ordered[-1].item(),
        "stddev": math.sqrt(float(np.mean((ordered - mean) ** 2))),
        "p99": percentile_nearest_rank(ordered, 99).item(),
    }


def intervals(events: list[tuple[int, str]], start: str, stop: str) -> tuple[list[int], int]:
    """Counts between marker events: each `stop` is paired with the latest
    `start` before it that no other `stop` took. Returns the intervals and the
    number of `start` events left unpaired (reached again before any `stop`,
    or after the last one)."""
    found, pending, unpaired = [], None, 0
    for time, name in events:
        if name == start:
            if pending is not None:
                unpaired += 1
            pending = time
        elif name == stop and pending is not None:
            found.append(time - pending)
            pending = None
    return found, unpaired + (pending is not None)
