"""Choosing what to measure, for run, sweep, intrusion and suite alike: the
selection is expanded into jobs, what a kernel cannot measure is dropped with
its reason (said once for all the combinations it covers), and each
configuration is resolved once."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from switchscope.catalog import configs
from switchscope.catalog import Kernel, Option, Scenario, Target
from switchscope.catalog.job import Job
from switchscope.decode.methods import METHODS, Method
from switchscope.common.errors import ConfigurationRefused, SwitchscopeError


@dataclass(frozen=True)
class Skipped:
    """Combinations left out, all for one reason."""
    kernel: str
    target: str
    reason: str
    what: tuple[str, ...]  # scenario/method of each

    def __str__(self) -> str:
        what = ", ".join(self.what) if len(self.what) <= 4 else f"{len(self.what)} scenario/method combinations"
        return f"{self.kernel}/{self.target} ({what}): {self.reason}"

    def as_json(self) -> dict:
        return {"kernel": self.kernel, "target": self.target, "combinations": list(self.what), "reason": self.reason}


@dataclass
class Plan:
    jobs: list[Job] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    # options chosen that apply to some of the combinations only, each said once: "lock applies to
    # sem-shuffle only: yield, isr measured without it"
    notes: list[str] = field(default_factory=list)


class _LeftOut:
    """The chosen options a combination measures without (they change nothing in it), and where each
    applied: an option that applied nowhere is refused, one that applied somewhere is said once."""

    def __init__(self):
        self.applied: set[str] = set()
        # name: (why, the option, the first combination left without it (target, scenario), the targets or
        # scenarios left without it)
        self.left: dict[str, tuple[str, Option, tuple[Target, Scenario], list[str]]] = {}

    def keep(self, variant: dict[str, str], kernel: Kernel, target: Target, scenario: Scenario) -> dict[str, str]:
        """The part of `variant` that applies to the combination."""
        why = configs.not_applying(variant, kernel, target, scenario)
        for name in variant:
            if name in why:
                option = configs.options_of(kernel)[name]
                where = self.left.setdefault(name, (why[name], option, (target, scenario), []))[3]
                if (named := configs.not_applying_where(option, target, scenario)) not in where:
                    where.append(named)
            elif name in configs.options_of(kernel):
                self.applied.add(name)
        return {name: value for name, value in variant.items() if name not in why}

    def notes(self, variants: list[dict[str, str]]) -> list[str]:
        """What was left out where, once per option; an option that applied to nothing asked for is refused."""
        notes = []
        for name, (why, option, (target, scenario), where) in self.left.items():
            other_targets = not option.applies_on(target)
            listed = other_targets or not option.applies_to(scenario)  # else: another option's value it needs
            noun = "targets" if other_targets else "scenarios"
            if name not in self.applied:
                values = ",".join(dict.fromkeys(variant[name] for variant in variants if name in variant))
                raise SwitchscopeError(f"option {why}" + (f", not {_listed(where, noun)}" if listed else "")
                                       + f" ({name}={values})", configs.applying_hint(option, scenario, target))
            notes.append(f"{why}: {_listed(where, noun)} measured without it" if listed else
                         f"{why}: measured without it where " + " or ".join(f"{k} is not {v}"
                                                                             for k, v in option.requires))
        return notes


def _listed(names: list[str], noun: str = "scenarios") -> str:
    return ", ".join(names) if len(names) <= 4 else f"{', '.join(names[:3])} and {len(names) - 3} other {noun}"


def _foreign_options(kernel: Kernel, options: dict[str, str]) -> str | None:
    """Why the kernel cannot take the chosen options, or None."""
    foreign = [name for name in options if name not in configs.options_of(kernel)]
    return f"{kernel.title} has no option {', '.join(foreign)}" if foreign else None


def plan(kernels: list[Kernel], targets: list[Target], scenarios: list[Scenario], methods: list[Method],
         variants: list[dict[str, str]] = ({},), tasks: list[int | None] = (None,),
         strict_options: bool | None = None, unit: str | None = None, method_chosen: bool = True) -> Plan:
    """Every measurable combination as a Job with its configuration resolved.
    `variants` are the option choices to measure (each one a configuration);
    `tasks` the task counts of rotate (other scenarios take none). An option a
    kernel does not have skips that kernel, or is an error with
    `strict_options` (by default: when one kernel was selected). `unit`: what to
    count (None: each target's default unit); a target that cannot count it is an error.
    With several `variants` or `targets`, a combination a kernel refuses (its conflicts) is skipped with the
    reason, as one it cannot measure is. An option that changes nothing in a combination (kernel.toml: its
    `scenarios`, or the option value it `requires`) is left out of that combination's configuration, and said
    once in the plan's notes; one that changes nothing in any is refused. Without `method_chosen` a latency
    scenario (irq-latency) is measured the one way it can be, by the simulator (marker), whatever `methods`
    says."""
    strict = len(kernels) == 1 if strict_options is None else strict_options
    # several values of an option, or several targets: a combination the kernel refuses is skipped with its reason
    several_choices = len(variants) > 1 or len(targets) > 1
    found = Plan()
    reasons: dict[tuple[str, str, str], list[str]] = {}
    for target in targets:
        target.resolve_unit(unit)  # refuses a unit the target cannot count, naming the ones it can
    combinations = list(itertools.product(kernels, targets, scenarios, methods, range(len(variants))))
    if not method_chosen:
        combinations = list(dict.fromkeys((k, t, s, METHODS["marker"] if s.latency else m, v)
                                          for k, t, s, m, v in combinations))
    left_out, planned = _LeftOut(), set()
    for kernel, target, scenario, method, variant_index in combinations:
        variant = variants[variant_index]
        why = kernel.not_measured(target, scenario, method, unit)
        if why is None and not strict:
            why = _foreign_options(kernel, variant)
        if why:
            what = f"{scenario.name}/{method.name}"
            entries = reasons.setdefault((kernel.name, target.name, why), [])
            if what not in entries:
                entries.append(what)
            continue
        variant = left_out.keep(variant, kernel, target, scenario)
        combination = (kernel.name, target.name, scenario.name, method.name, tuple(sorted(variant.items())))
        if combination in planned:  # values of an option it is measured without: once, not once per value
            continue
        planned.add(combination)
        for count in (tasks if scenario.name == "rotate" else [None]):
            try:
                config = configs.resolve(variant, kernel, target, scenario, count)
            except ConfigurationRefused as refused:
                if not several_choices:  # the one thing asked for cannot be: say so, measure nothing
                    raise
                what = f"{scenario.name}/{method.name} " + ",".join(f"{k}={v}" for k, v in variant.items())
                reasons.setdefault((kernel.name, target.name, refused.message.split(": ", 1)[-1]), []).append(what)
                continue
            found.jobs.append(Job(kernel, target, scenario, method, config, count, unit))
    found.skipped = [Skipped(kernel, target, why, tuple(what)) for (kernel, target, why), what in reasons.items()]
    found.notes = left_out.notes(variants)
    return found
