"""One measurement to make: a kernel, a target, a scenario and a method, in
a configuration (None: the kernel's defaults), with rotate's task count and
the unit asked for."""

from __future__ import annotations

from dataclasses import dataclass

from switchscope.catalog import configs
from switchscope.catalog.configs import Config
from switchscope.catalog.model import Kernel, Target
from switchscope.catalog.scenarios import Scenario
from switchscope.decode.methods import Method


@dataclass(frozen=True)
class Job:
    kernel: Kernel
    target: Target
    scenario: Scenario
    method: Method
    config: Config | None = None  # None: the default configuration
    tasks: int | None = None  # rotate only: how many tasks
    unit: str | None = None  # None: the target's own unit (board.toml); "cycles" on QEMU: the timing model

    @property
    def counted_in(self) -> str:
        return self.target.resolve_unit(self.unit)

    def resolved_config(self) -> Config:
        return self.config or configs.resolve({}, self.kernel, self.target, self.scenario, self.tasks)

    def __str__(self) -> str:
        name = f"{self.kernel.name}/{self.target.name}/{self.scenario.name}/{self.method.name}"
        if self.tasks:
            name += f"/{self.tasks} tasks"
        if self.unit and self.unit != self.target.resolve_unit(None):
            name += f" (in {self.unit})"
        return name + (f" [{self.changed_options()}]" if self.changed_options() else "")

    def changed_options(self) -> str:
        """The options not at their defaults, as "name=value,...", or "" for the default configuration."""
        if not self.config:
            return ""
        defaults = configs.resolve({}, self.kernel, self.target, self.scenario, self.tasks)
        return self.config.label(defaults) if self.config != defaults else ""
