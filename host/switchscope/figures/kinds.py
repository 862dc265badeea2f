"""The kinds of scenario the measure path knows, by the name a catalog
Scenario gives as its `kind`: a new kind is a module with a ScenarioKind
subclass (figures/scenario_kind.py) and one entry here."""

from __future__ import annotations

from switchscope.catalog.job import Job
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.latency import InterruptLatency
from switchscope.figures.scenario_kind import ScenarioKind

KINDS: dict[str, type[ScenarioKind]] = {
    "switch": ScenarioKind,  # a window a task switch falls in
    "latency": InterruptLatency,  # an interrupt's assertion to its handler, swept over a loop
}


def of(job: Job) -> ScenarioKind:
    """The job's kind of scenario, asked by the measure path for everything that depends on it."""
    kind = KINDS.get(job.scenario.kind)
    if kind is None:
        raise SwitchscopeError(f"{job}: the scenario {job.scenario.name} is of a kind switchscope does not know "
                               f"({job.scenario.kind!r}; known: {', '.join(KINDS)})",
                               "a kind is a ScenarioKind subclass registered in figures/kinds.py")
    return kind(job)
