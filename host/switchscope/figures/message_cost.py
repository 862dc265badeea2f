"""msg's cost per byte: among results of the msg scenario that differ in
nothing but msg_size, the least-squares line of the median against the
message's size: its slope (what each byte adds, copied into the queue and
out of it) and where it meets zero bytes (the rest of the hand-over)."""

from __future__ import annotations

from dataclasses import dataclass

from switchscope.figures.result import Result


@dataclass(frozen=True)
class MessageCost:
    kernel: str
    target: str
    method: str
    unit: str
    options: tuple[tuple[str, str], ...]  # the shared configuration, msg_size left out
    by_size: dict[int, Result]  # msg_size: its result

    @property
    def per_byte(self) -> float:
        return fit(self.medians)[0]

    @property
    def fixed(self) -> float:
        return fit(self.medians)[1]

    @property
    def medians(self) -> dict[int, float]:
        return {size: result.stats.median for size, result in sorted(self.by_size.items())}


def fit(points: dict[int, float]) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line through (x, y) points, two x values at least."""
    n = len(points)
    mean_x = sum(points) / n
    mean_y = sum(points.values()) / n
    spread = sum((x - mean_x) ** 2 for x in points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points.items()) / spread
    return slope, mean_y - slope * mean_x


def message_costs(results: list[Result]) -> list[MessageCost]:
    """One line per shared configuration measured at two message sizes or more."""
    groups: dict[tuple, dict[int, Result]] = {}
    for result in results:
        if result.scenario != "msg" or "msg_size" not in result.options:
            continue
        options = tuple(sorted((k, v) for k, v in result.options.items() if k != "msg_size"))
        key = (result.kernel, result.target, result.method, result.unit, options)
        groups.setdefault(key, {})[int(result.options["msg_size"])] = result
    return [MessageCost(*key, by_size=sizes) for key, sizes in groups.items() if len(sizes) > 1]
