"""How far each kernel is from the least a switch can cost: every result beside
the floor kernel's figure for the same scenario on the same core, in the same
unit and by the same method, as a multiple of it ("x_floor").

The floor figure comes from the same target when one was measured, otherwise
from another target of the same core whose count the same timing model made
(the MPS2 boards and the STM32 kits run the same instructions in the same
cycles); a silicon count (DWT, a real board) is compared on its own board only.

A multiple is only taken against a floor that did the same work: every option
the two share (the build's optimisation, the lock, the message's size, ...)
at the same value, and every option of the kernel's that changes what the
scenario does (a load beside it, rotate's way round its ring) at its default,
since the floor has no such choice. Where no floor measured qualifies the
result keeps no multiple and says why (`floor["refused"]`).
"""

from __future__ import annotations

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.figures import memory_used
from switchscope.figures.result import Result

FLOOR = "floor"


def _same_point(result: Result) -> tuple:
    return result.scenario, result.unit, result.method, result.tasks


def workload_options(kernel: str, scenario: str) -> dict[str, str]:
    """A kernel's options that change what `scenario` does rather than how the kernel does it (they apply to
    some scenarios only, or with another option's value), with their defaults."""
    found = catalog.KERNELS.get(kernel)
    return {o.name: o.default for o in (found.options if found else ())
            if (o.scenarios or o.requires) and configs.changes_scenario(kernel, o.name, scenario)}


def differences(result: Result, floor: Result) -> tuple[list[str], list[str]]:
    """Why `floor` did other work than `result`: the options they share, that change the scenario, at other
    values; and the workload options the floor has not, chosen away from their defaults."""
    mine, its = result.options or {}, floor.options or {}
    shared = [f"{name}={mine[name]} (the floor's: {its[name]})" for name in sorted(set(mine) & set(its))
              if mine[name] != its[name] and configs.changes_scenario(floor.kernel, name, result.scenario)]
    lacking = [f"{name}={mine[name]} (the floor has no {name})"
               for name, default in sorted(workload_options(result.kernel, result.scenario).items())
               if name not in its and mine.get(name, default) != default]
    memories = [memory_used.said(side) for side in (result, floor)]  # another board's zero wait states, say
    if memories[0] != memories[1]:
        shared.append(f"memory {memories[0] or 'unrecorded'} (the floor's: {memories[1] or 'unrecorded'})")
    return shared, lacking


def floor_for(result: Result, floors: list[Result]) -> tuple[Result | None, str]:
    """The floor result to compare `result` with, or None and why none."""
    candidates = [f for f in floors if _same_point(f) == _same_point(result) and f.cpu == result.cpu and f.samples
                  and (f.target == result.target or (f.timing_model and f.timing_model == result.timing_model))]
    if not candidates:
        return None, ""
    alike = [f for f in candidates if differences(result, f) == ([], [])]
    if not alike:
        nearest = min(candidates, key=lambda f: (f.target != result.target, sum(map(len, differences(result, f)))))
        shared, lacking = differences(result, nearest)
        hint = ("the floor cannot do that work" if lacking
                else "measure the floor with the same options (run --floor does)")
        return None, f"the floor measured other work: {', '.join(shared + lacking)}; {hint}"
    return min(alike, key=lambda f: f.target != result.target), ""  # the same board first


def options_label(result: Result) -> str:
    """The floor's configuration as shown beside a multiple: every option it was built and run with that
    changes its scenario."""
    return ",".join(f"{k}={v}" for k, v in sorted(result.scenario_options().items())) or "default"


KERNEL_FREE = ("tm-basic",)  # the scenarios that call no kernel service: no kernel is a multiple of the floor there


def attach(results: list[Result]) -> None:
    """Sets `x_floor` and `floor` on every non-floor result that has a floor figure among `results`, or
    `floor` = {"refused": why} where the floors measured did other work. Not on an interrupt's latency
    (irq-latency): the floor is the least a switch costs, and a kernel that masks less than the floor does
    waits less."""
    floors = [r for r in results if r.kernel == FLOOR and r.kind == "scenario"]
    for result in results:
        if result.kernel == FLOOR or result.kind != "scenario" or not result.samples:
            continue
        if result.worst:  # an interrupt's latency
            if any(f.scenario == result.scenario for f in floors):
                result.floor = {"refused": "an interrupt's latency is no multiple of the floor's: the floor masks "
                                           "every interrupt in its critical sections, and a kernel that masks less "
                                           "waits less (compare the worst cases side by side)"}
            continue
        if result.scenario in KERNEL_FREE:
            if any(f.scenario == result.scenario for f in floors):
                result.floor = {"refused": f"{result.scenario} uses no kernel service: what sets it apart from the "
                                           "floor's is the compiler's code for the same work, not the kernel"}
            continue
        found, why = floor_for(result, floors)
        result.x_floor, result.floor = None, ({"refused": why} if why else None)
        if found is None or found.stats.median <= 0:
            continue
        result.floor = {"target": found.target, "method": found.method, "median": found.stats.median,
                        "options": options_label(found)}
        result.x_floor = round(result.stats.median / found.stats.median, 2)


def matching_options(job_options: dict[str, str], floor_kernel: catalog.Kernel,
                     scenario: catalog.Scenario) -> dict[str, str]:
    """The options a floor job takes to do a job's work: the job's values of the options the floor has that
    change the scenario."""
    floors = configs.options_of(floor_kernel)
    return {name: value for name, value in job_options.items()
            if name in floors and floors[name].applies_to(scenario) and not floors[name].unmet(job_options)}
