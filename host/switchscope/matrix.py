"""Many measurements at once: the points of a sweep or a suite, run on all
cores. Every point is one job (kernel, target, scenario, method,
configuration, tasks) at one sample count, and gives a full distribution."""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable

from switchscope.errors import SwitchscopeError
from switchscope.measure import Job, measure
from switchscope.result import Result


@dataclass(frozen=True)
class Point:
    job: Job
    samples: int
    group: str = ""  # what the point belongs to in a report (e.g. "bertos", "tasks", "switches")


def parse_counts(text: str, what: str) -> list[int]:
    """"2-8" or "100,1000,10000" (or a mix: "2-4,8") as a list of positive integers."""
    found = []
    try:
        for part in text.split(","):
            low, sep, high = part.partition("-")
            found += list(range(int(low), int(high) + 1)) if sep else [int(low)]
    except ValueError:
        raise SwitchscopeError(f"{what} takes numbers and ranges such as 2-8 or 100,1000,10000, not '{text}'") from None
    if not found or min(found) < 1:
        raise SwitchscopeError(f"{what} needs positive numbers, not '{text}'")
    return found


def config_variants(pairs: list[str]) -> list[dict[str, str]]:
    """["preemption=on,off", "opt=-O0,-O2"] -> every combination, as option dicts."""
    axes = []
    for pair in pairs:
        name, sep, values = pair.partition("=")
        if not sep or not values:
            raise SwitchscopeError(f"--config takes NAME=VALUE[,VALUE...], got '{pair}'")
        axes.append([(name, value) for value in values.split(",")])
    return [dict(combination) for combination in itertools.product(*axes)] if axes else [{}]


def _measure(point: Point) -> Result:
    return measure(point.job, point.samples)


def run_points(points: list[Point], workers: int | None = None,
               progress: Callable[[int, int], None] | None = None) -> list[tuple[Point, Result | str]]:
    """Measure every point, `workers` at a time (default: every core); each
    outcome is the result, or the error's message. The order is the points'."""
    workers = workers or os.cpu_count() or 1
    outcomes: dict[int, Result | str] = {}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_measure, point): index for index, point in enumerate(points)}
        for done, future in enumerate(as_completed(futures), start=1):
            try:
                outcomes[futures[future]] = future.result()
            except SwitchscopeError as error:
                outcomes[futures[future]] = str(error)
            if progress:
                progress(done, len(points))
    return [(point, outcomes[index]) for index, point in enumerate(points)]
