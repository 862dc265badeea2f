"""How far each kernel is from the least a switch can cost: every result beside
the floor kernel's figure for the same scenario on the same core, in the same
unit and by the same method, as a multiple of it ("x_floor").

The floor figure comes from the same target when one was measured, otherwise
from another target of the same core whose count the same timing model made
(the MPS2 boards and the STM32 kits run the same instructions in the same
cycles), built at the same optimisation where there is a choice; a silicon
count (DWT, a real board) is compared on its own board only.
"""

from __future__ import annotations

from switchscope.figures.result import Result

FLOOR = "floor"


def _same_point(result: Result) -> tuple:
    return result.scenario, result.unit, result.method, result.tasks


def floor_for(result: Result, floors: list[Result]) -> Result | None:
    """The floor result to compare `result` with, or None."""
    candidates = [f for f in floors if _same_point(f) == _same_point(result) and f.cpu == result.cpu and f.samples
                  and (f.target == result.target or (f.timing_model and f.timing_model == result.timing_model))]

    def preference(f: Result) -> tuple:  # the same board first, then one built at the same optimisation
        return f.target != result.target, f.options.get("opt") != result.options.get("opt")
    return min(candidates, key=preference) if candidates else None


def attach(results: list[Result]) -> None:
    """Sets `x_floor` and `floor` on every non-floor result that has a floor figure among `results`. Not on
    an interrupt's latency (irq-latency): the floor is the least a switch costs, and a kernel that masks
    less than the floor does waits less."""
    floors = [r for r in results if r.kernel == FLOOR and r.kind == "scenario"]
    for result in results:
        if result.kernel == FLOOR or result.kind != "scenario" or not result.samples or result.worst:
            continue
        found = floor_for(result, floors)
        if found is None or found.stats.median <= 0:
            continue
        result.floor = {"target": found.target, "method": found.method, "median": found.stats.median}
        result.x_floor = round(result.stats.median / found.stats.median, 2)

