"""Thread-Metric's figures from one of its tests' results.

Thread-Metric reports how many loops a test's counters counted in a 30-second
interval at the board's clock. switchscope times a round of the test's loops
exactly (firmware/scenarios/thread_metric.h): the loops a round
counts divide the window's cycles into cycles per loop, and the clock turns
them into loops per 30 seconds, computed, not counted. The firmware also
counts the loops of a short simulated interval, ticks and all; where the
stamp timer ticks in the result's unit (the simulator's own time: simavr's
and the RTL's cycles, QEMU's instructions) the loops that interval's length
gives at the windows' rate are set beside the count.
"""

from __future__ import annotations

from fractions import Fraction

INTERVAL_SECONDS = 30  # Thread-Metric's reporting interval


def facts(meta: dict, target, unit: str) -> dict | None:
    """{"loops_per_round", "interval": {"ticks", "loops", "stamp_counts"[, UNIT]}} from a test's stream, or None
    for any other scenario. UNIT, the interval's length in the result's unit, where the stamp timer counts it."""
    if "tm_loops_per_round" not in meta:
        return None
    record = {"loops_per_round": int(meta["tm_loops_per_round"])}
    if "tm_interval_loops" in meta:
        counts = int(meta["tm_interval_stamp_counts"])
        tallies, tally_counts = int(meta["tm_tallies"]), int(meta["tm_tallies_stamp_counts"])
        interval = {"ticks": int(meta["tm_interval_ticks"]), "loops": int(meta["tm_interval_loops"]),
                    "stamp_counts": counts, "tallies": tallies, "tallies_stamp_counts": tally_counts}
        if unit == target.unit and "stamp_clock_hz" in meta:  # the simulator's own time base
            per_count = target.counts_per_unit(int(meta["stamp_clock_hz"]))
            interval[unit] = float(Fraction(counts) / per_count)
            interval[f"bookkeeping_{unit}"] = float(Fraction(tally_counts, tallies) / per_count)
        record["interval"] = interval
    return record


def is_test(result) -> bool:
    return bool(getattr(result, "thread_metric", None))


def per_loop(result) -> float:
    """The median window's units per loop of the suite's counting."""
    return result.stats.median / result.thread_metric["loops_per_round"]


def loops_per_interval(result, seconds: float = INTERVAL_SECONDS) -> float | None:
    """The loops `seconds` at the board's clock hold at the windows' rate; None unless the unit is a cycle of a
    known clock."""
    if result.ns_per_unit is None or per_loop(result) <= 0:
        return None
    return seconds * 1e9 / result.ns_per_unit / per_loop(result)


def interval_check(result) -> tuple[int, float, float] | None:
    """(loops counted, loops its length gives, its length in the result's unit) of the simulated interval, where
    its length is known in the result's unit. The loops its length gives: at the windows' rate, each round
    followed by the interval's bookkeeping (timed alone by the firmware)."""
    interval = (result.thread_metric or {}).get("interval") or {}
    length = interval.get(result.unit)
    if length is None or per_loop(result) <= 0:
        return None
    loops = result.thread_metric["loops_per_round"]
    round_with_bookkeeping = result.stats.median + interval[f"bookkeeping_{result.unit}"]
    return interval["loops"], length / round_with_bookkeeping * loops, length
