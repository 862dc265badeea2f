"""Kernel and build configurations as data.

A configuration is a mapping of option name to value; every option has a
default, so {} is the default configuration. Options change the firmware
(compiler flags or kernel -D defines) and are recorded with every result.
Invalid values and combinations are refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from switchscope.catalog import Kernel, Scenario, Target
from switchscope.errors import SwitchscopeError

ON_OFF = ("on", "off")


@dataclass(frozen=True)
class Option:
    name: str
    summary: str
    values: tuple[str, ...]
    default: str
    define: str | None = None  # the -D it sets, with 1/0 for on/off or the value itself
    kernels: tuple[str, ...] = ()  # empty: any kernel
    numeric: bool = False
    inverted: bool = False  # the define is 1 for "off"

    def defines(self, value: str) -> dict[str, str]:
        if self.define is None:
            return {}
        flags = {"on": "0", "off": "1"} if self.inverted else {"on": "1", "off": "0"}
        return {self.define: flags.get(value, value)}


OPTIONS = {o.name: o for o in [
    Option("opt", "compiler optimisation", ("-O0", "-O1", "-O2", "-O3", "-Os"), "-O2", kernels=("freertos",)),
    Option("preemption", "preemptive (on) or cooperative (off) scheduling", ON_OFF, "on",
           "configUSE_PREEMPTION", ("freertos",)),
    Option("priorities", "tasks at their own priorities (on) or all at one (off)", ON_OFF, "on",
           "SWITCHSCOPE_SAME_PRIORITY", ("freertos",), inverted=True),
    Option("time_slicing", "switch between equal-priority tasks at each tick", ON_OFF, "on",
           "configUSE_TIME_SLICING", ("freertos",)),
    Option("max_priorities", "number of priority levels (4 to 32)", tuple(str(n) for n in range(4, 33)), "8",
           "configMAX_PRIORITIES", ("freertos",), numeric=True),
    Option("optimised_selection", "the port's count-leading-zeros task selection", ON_OFF, "on",
           "configUSE_PORT_OPTIMISED_TASK_SELECTION", ("freertos",)),
    Option("trace", "the trace facility (task numbers, run-time records)", ON_OFF, "off",
           "configUSE_TRACE_FACILITY", ("freertos",)),
    Option("stack_check", "stack overflow checking at each switch: off, 1 or 2", ("off", "1", "2"), "off",
           "configCHECK_FOR_STACK_OVERFLOW", ("freertos",)),
    Option("assert", "configASSERT checks", ON_OFF, "off", "SWITCHSCOPE_FREERTOS_ASSERT", ("freertos",)),
]}

# Defaults that a target's port imposes: the ATmega port has no optimised task
# selection and four priority levels by default.
TARGET_DEFAULTS = {"atmega328p": {"optimised_selection": "off", "max_priorities": "4"}}


@dataclass(frozen=True)
class Config:
    values: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # sorted, complete

    def __getitem__(self, name: str) -> str:
        return dict(self.values)[name]

    def as_dict(self) -> dict[str, str]:
        return dict(self.values)

    def label(self, defaults: "Config | None" = None) -> str:
        """The options that differ from `defaults` (or all), as name=value."""
        base = defaults.as_dict() if defaults else {}
        changed = [f"{k}={v}" for k, v in self.values if base.get(k) != v]
        return ",".join(changed) or "default"

    def defines(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for name, value in self.values:
            found.update(OPTIONS[name].defines(value))
        return found


def parse(pairs: list[str]) -> dict[str, str]:
    """["preemption=off", ...] -> {"preemption": "off"}, with clear errors."""
    chosen = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise SwitchscopeError(f"--config takes NAME=VALUE, got '{pair}'", _option_list())
        chosen[name.strip()] = value.strip()
    return chosen


def applies(chosen: dict[str, str], kernel: Kernel) -> bool:
    """Whether every option chosen is one the kernel has."""
    return all(name in OPTIONS and (not OPTIONS[name].kernels or kernel.name in OPTIONS[name].kernels)
               for name in chosen)


def _option_list() -> str:
    return "options: " + "; ".join(f"{o.name} ({'|'.join(o.values) if not o.numeric else '4..32'}, "
                                   f"default {o.default})" for o in OPTIONS.values())


def resolve(chosen: dict[str, str], kernel: Kernel, target: Target, scenario: Scenario,
            tasks: int | None = None) -> Config:
    """The complete configuration for one run, or a SwitchscopeError saying
    what is wrong with the choice."""
    values = {name: option.default for name, option in OPTIONS.items()
              if not option.kernels or kernel.name in option.kernels}
    values.update({k: v for k, v in TARGET_DEFAULTS.get(target.name, {}).items() if k in values})
    for name, value in chosen.items():
        option = OPTIONS.get(name)
        if option is None:
            raise SwitchscopeError(f"unknown configuration option '{name}'", _option_list())
        if option.kernels and kernel.name not in option.kernels:
            raise SwitchscopeError(f"option '{name}' does not apply to {kernel.name}")
        if value not in option.values:
            raise SwitchscopeError(f"'{value}' is not a value of {name}",
                                   f"{name} takes {' | '.join(option.values) if not option.numeric else '4 to 32'}")
        values[name] = value
    _check(values, target, scenario, tasks)
    return Config(tuple(sorted(values.items())))


def _check(values: dict[str, str], target: Target, scenario: Scenario, tasks: int | None) -> None:
    def refuse(why: str, hint: str | None = None):
        raise SwitchscopeError(f"invalid configuration for {target.name}/{scenario.name}: {why}", hint)

    if values.get("optimised_selection") == "on":
        if target.name in TARGET_DEFAULTS and TARGET_DEFAULTS[target.name].get("optimised_selection") == "off":
            refuse("the FreeRTOS port for this target has no optimised task selection",
                   "use optimised_selection=off")
        if int(values.get("max_priorities", "8")) > 32:
            refuse("optimised task selection handles at most 32 priority levels")
    if (scenario.name == "rotate" and values.get("priorities") == "off" and values.get("preemption") == "on"
            and values.get("time_slicing") == "on"):
        refuse("rotate with all tasks at one priority and preemption on needs time_slicing=off: "
               "otherwise the tick rotates the tasks itself, outside the measured windows",
               "add --config time_slicing=off, or use priorities=on")
    if tasks is not None:
        if scenario.name != "rotate":
            refuse("--tasks applies to the rotate scenario only")
        if not 2 <= tasks <= target.max_tasks:
            refuse(f"rotate takes 2 to {target.max_tasks} tasks on {target.name}, not {tasks}",
                   "the kernel heap of the target holds no more" if tasks > target.max_tasks else None)
