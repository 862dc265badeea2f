"""Kernel and build configurations as data.

A configuration is a mapping of option name to value; every option has a
default, so {} is the default configuration. Options change the firmware
(compiler flags or kernel -D defines) and are recorded with every result.
The build options are here; a kernel's options, the defaults its port
imposes and the combinations it refuses come from its kernel.toml.
Invalid values and combinations are refused with the reason.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from switchscope import catalog
from switchscope.catalog import Kernel, Option, Scenario, Target
from switchscope.catalog.memory import ANY_WAIT_STATES, SLOW_WAIT_STATES, MemorySettings
from switchscope.common.errors import ConfigurationRefused, SwitchscopeError
from switchscope.common.suggest import did_you_mean

# Options of every C build, whatever the kernel; a kernel's own come from its kernel.toml.
BUILD_OPTIONS = {o.name: o for o in [
    Option("opt", "compiler optimisation", ("-O0", "-O1", "-O2", "-O3", "-Os"), "-O2"),
]}


# Options of every run, whatever the kernel: they change what the firmware is told when it starts (run
# parameters) or what the simulator's timing model is told, not the firmware, which stays one build. The memory
# options apply on a target whose flash is modelled (board.toml [flash]): what-if settings of its model.
RUN_OPTIONS = {o.name: o for o in [
    Option("sampling", "windows per tick: as many as fit before the next tick (packed), or one after each tick "
           "(per-tick)", ("packed", "per-tick"), "packed"),
    Option("wait_states", "the flash's wait states: as the firmware programs them, or forced to N",
           ("programmed", *(str(n) for n in range(ANY_WAIT_STATES + 1))), "programmed",
           numeric_range=(0, ANY_WAIT_STATES), target_needs="flash"),
    Option("accelerator", "the flash's accelerator (prefetch, caches): as the firmware programs it, or forced on "
           "or off", ("programmed", "on", "off"), "programmed", target_needs="flash"),
    Option("cache", "the caches at each window (the flash's, or the core's own): as the run left them (warm), or "
           "emptied before it (cold)", ("warm", "cold"), "warm", target_needs="emptiable"),
    Option("fetch_wait_states", "the RAM's wait states on each instruction fetch (a core's RTL behind a slow "
           "memory: its own prefetch logic decides what they cost)", tuple(str(n) for n in range(SLOW_WAIT_STATES + 1)),
           "0", numeric_range=(0, SLOW_WAIT_STATES), target_needs="slow_memory"),
    Option("data_wait_states", "the RAM's wait states on each data access (loads and stores)",
           tuple(str(n) for n in range(SLOW_WAIT_STATES + 1)), "0", numeric_range=(0, SLOW_WAIT_STATES),
           target_needs="slow_memory"),
]}
MEMORY_NEEDS = ("flash", "slow_memory", "emptiable")  # the run options that set a memory: measure's --config takes them


# What the reference manuals and other tools call the memory options: ST's ART, its parts, the latency field.
MEMORY_NAMES_ELSEWHERE = {"art": "accelerator", "prefetch": "accelerator", "icache": "accelerator",
                          "dcache": "accelerator", "latency": "wait_states", "ws": "wait_states", "flash": "cache"}


def options_of(kernel: Kernel) -> dict[str, Option]:
    """Every option a kernel's runs take: the build options (C kernels), the run options, then its own."""
    return {**(BUILD_OPTIONS if kernel.language == "c" else {}), **RUN_OPTIONS, **{o.name: o for o in kernel.options}}


def run_parameters(config: Config) -> list[str]:
    """The run parameters ("name=value", as the firmware reads them) a configuration's run options set."""
    values = config.as_dict()
    return ["per_tick=1"] * (values["sampling"] == "per-tick") + ["cold=1"] * (values.get("cache") == "cold")


def memory_settings(config: Config) -> MemorySettings:
    """What a configuration's memory options ask of the timing plugin's flash model (nothing forced by default)."""
    values = config.as_dict()
    wait_states, accelerator = values.get("wait_states", "programmed"), values.get("accelerator", "programmed")
    return MemorySettings(None if wait_states == "programmed" else int(wait_states),
                          None if accelerator == "programmed" else accelerator == "on", values.get("cache") == "cold",
                          int(values.get("fetch_wait_states", 0)), int(values.get("data_wait_states", 0)))


@dataclass(frozen=True)
class Config:
    values: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # sorted, complete
    define_values: tuple[tuple[str, str], ...] = ()  # the -D the values set, sorted

    def __getitem__(self, name: str) -> str:
        return dict(self.values)[name]

    def as_dict(self) -> dict[str, str]:
        return dict(self.values)

    def defines(self) -> dict[str, str]:
        return dict(self.define_values)

    def label(self, defaults: "Config | None" = None) -> str:
        """The options that differ from `defaults` (or all), as name=value."""
        base = defaults.as_dict() if defaults else {}
        changed = [f"{k}={v}" for k, v in self.values if base.get(k) != v]
        return ",".join(changed) or "default"


def split_pairs(pairs: list[str]) -> list[str]:
    """Each --config as its NAME=VALUE[,VALUE...] items: "load=voip,switch=software" is two, a part
    without "=" being a further value of the option before it ("switch=software,pendsv" is one)."""
    items = []
    for pair in pairs:
        for index, part in enumerate(pair.split(",")):
            if index == 0 or "=" in part:
                items.append(part)
            else:
                items[-1] += "," + part
    return items


def _named_once(items: list[str]) -> list[tuple[str, str]]:
    """(name, values) of each NAME=VALUE[,VALUE...] item, an option given twice refused: the one measured
    would be the last, or each value twice."""
    found: dict[str, str] = {}
    for item in items:
        name, sep, values = item.partition("=")
        if not sep or not name.strip():
            raise SwitchscopeError(f"--config takes NAME=VALUE, got '{item}'", "see: switchscope list")
        name = name.strip()
        if name in found:
            raise SwitchscopeError(f"option {name} given twice (--config {name}={found[name]} and {item})",
                                   f"give it once; several values are one list: {name}=A,B")
        found[name] = values
    return list(found.items())


def parse(pairs: list[str]) -> dict[str, str]:
    """["preemption=off,opt=-Os", ...] -> {"preemption": "off", "opt": "-Os"}, with clear errors."""
    chosen = {}
    for name, value in _named_once(split_pairs(pairs)):
        if "," in value:
            raise SwitchscopeError(f"--config {name}={value}: one value each here",
                                   "switchscope sweep measures several values of an option")
        chosen[name] = value.strip()
    return chosen


def variants(pairs: list[str]) -> list[dict[str, str]]:
    """["preemption=on,off", "opt=-O0,-O2"] (or "preemption=on,off,opt=-O0,-O2") -> every combination, as
    option dicts; an option or a value given twice is refused (it would be measured twice)."""
    axes = []
    for name, values in _named_once(split_pairs(pairs)):
        listed = [value.strip() for value in values.split(",")]
        if "" in listed:
            raise SwitchscopeError(f"--config takes NAME=VALUE[,VALUE...], got '{name}={values}'",
                                   "see: switchscope list")
        twice = next((value for index, value in enumerate(listed) if value in listed[:index]), None)
        if twice is not None:
            raise SwitchscopeError(f"--config {name}={values}: {twice} given twice",
                                   "give each value once: each is measured once")
        axes.append([(name, value) for value in listed])
    return [dict(combination) for combination in itertools.product(*axes)] if axes else [{}]


def not_applying(chosen: dict[str, str], kernel: Kernel, target: Target, scenario: Scenario) -> dict[str, str]:
    """Why each chosen option the kernel has changes nothing in this scenario, by name: it belongs to other
    scenarios (lock: sem-shuffle), or needs another option's value (load_period_us: load=voip)."""
    options = options_of(kernel)
    values = {**defaults(kernel, target), **{k: v for k, v in chosen.items() if k in options}}
    why = {}
    for name in chosen:
        option = options.get(name)
        if option is None:
            continue
        if not option.applies_on(target):
            why[name] = f"{name} applies on {targets_having(option)} only"
        elif not option.applies_to(scenario):
            why[name] = f"{name} applies to {', '.join(option.scenarios)} only"
        elif (unmet := option.unmet(values)) is not None:
            why[name] = f"{name} applies with {unmet[0]}={unmet[1]} only"
    return why


# what each Option.target_needs is, in words
TARGET_NEEDS = {"flash": "a flash model", "slow_memory": "a RAM of settable wait states",
                "emptiable": "caches to empty (a flash model's, or the core's own)"}


def _targets_applying(option: Option) -> list[str]:
    return [name for name, target in catalog.current().targets.items() if option.applies_on(target)]


def kernels_and_targets(option: Option, kernels: list[str]) -> str:
    """Where `switchscope list` says an option applies: its kernels, or every kernel on the targets it needs."""
    return f"every kernel, on {targets_having(option)}" if option.target_needs else ", ".join(kernels)


def targets_having(option: Option) -> str:
    """The targets an option of some targets applies on, in words: "targets with a flash model (netduinoplus2)"."""
    return f"targets with {TARGET_NEEDS[option.target_needs]} ({', '.join(_targets_applying(option)) or 'none yet'})"


def not_applying_where(option: Option, target: Target, scenario: Scenario) -> str:
    """What a combination an option changes nothing in is named by: its target where the option is another
    target's, else its scenario."""
    return target.name if not option.applies_on(target) else scenario.name


def memory_choice(chosen: dict[str, str], target: Target) -> MemorySettings:
    """measure's --config, on a firmware of one's own: the memory options alone (its build is its own), checked
    as a run's are; cache=cold is refused there, since switchscope's harness is what empties the caches."""
    memory = {name: option for name, option in RUN_OPTIONS.items() if option.target_needs in MEMORY_NEEDS}
    for name, value in chosen.items():
        option = memory.get(name)
        if option is None:
            raise SwitchscopeError(f"measure takes the memory options only ({', '.join(memory)}), not {name}",
                                   f"{did_you_mean(name, memory)}the other options change how switchscope builds "
                                   "its own firmware; yours is measured as you built it")
        if not option.applies_on(target):
            raise SwitchscopeError(f"option {name} applies on {targets_having(option)} only, not {target.name} "
                                   f"({name}={value})", targets_hint(option, target))
        if value not in option.values:
            raise SwitchscopeError(f"'{value}' is not a value of {name}", f"{name} takes {option.describe_values()}")
    if chosen.get("cache") == "cold":
        raise SwitchscopeError("cache=cold empties the caches through switchscope's harness, before each of its "
                               "windows: a firmware of one's own has none", "leave out cache=cold")

    def refuse(why: str, hint: str | None = None):
        raise ConfigurationRefused(f"invalid configuration for {target.name}: {why}", hint)

    values = {**{name: option.default for name, option in memory.items() if option.applies_on(target)}, **chosen}
    if target.flash is not None:
        _check_memory(values, target, refuse)
    _check_slow_memory(values, target, refuse)
    return memory_settings(Config(tuple(sorted(values.items()))))


def applies(chosen: dict[str, str], kernel: Kernel) -> bool:
    """Whether every option chosen is one the kernel has."""
    return all(name in options_of(kernel) for name in chosen)


def option_list(kernel: Kernel) -> str:
    options = options_of(kernel)
    if not options:
        return f"{kernel.title} takes no options"
    return f"{kernel.title} options: " + "; ".join(
        f"{o.name} ({o.describe_values()}, default {o.default})" for o in options.values())


def defaults(kernel: Kernel, target: Target) -> dict[str, str]:
    """Every option's value when none is chosen: the kernel's defaults, the CPU's where it has no count-leading-zeros
    instruction (optimised_selection off: one rule on every core), then its port's for this target."""
    values = {name: option.default_without_clz if option.default_without_clz and not target.has_clz
              else option.default for name, option in options_of(kernel).items() if option.applies_on(target)}
    port = kernel.port(target)
    values.update({k: v for k, v in (port.defaults if port else ()) if k in values})
    return values


def resolve(chosen: dict[str, str], kernel: Kernel, target: Target, scenario: Scenario,
            tasks: int | None = None) -> Config:
    """The complete configuration for one run, or a SwitchscopeError saying
    what is wrong with the choice."""
    options = options_of(kernel)
    values = defaults(kernel, target)
    for name, why in not_applying(chosen, kernel, target, scenario).items():
        if chosen[name] == values.get(name):  # its default, as a complete configuration read back holds it
            continue
        raise SwitchscopeError(f"option {why}, not {not_applying_where(options[name], target, scenario)} "
                               f"({name}={chosen[name]})", applying_hint(options[name], scenario, target))
    for name, value in chosen.items():
        option = options.get(name)
        if option is None:
            known_elsewhere = any(name in options_of(other) for other in catalog.current().kernels.values())
            meant = MEMORY_NAMES_ELSEWHERE.get(name)
            hint = (f"did you mean {meant}? " if meant in options_of(kernel) else did_you_mean(name, options_of(kernel)))
            raise SwitchscopeError(f"option '{name}' does not apply to {kernel.name}" if known_elsewhere
                                   else f"unknown configuration option '{name}'", hint + option_list(kernel))
        if value not in option.values:
            # a number out of a range is no misspelling of one in it: "99" is not "9"
            guess = "" if option.numeric_range and value.lstrip("+-").isdigit() else did_you_mean(value, option.values)
            raise SwitchscopeError(f"'{value}' is not a value of {name}",
                                   f"{guess}{name} takes {option.describe_values()}")
        values[name] = value
    for name, value in list(values.items()):  # defaults a chosen value brings, below the user's own choices
        for brought in dict(options[name].implies).get(value, ()):
            if brought[0] not in chosen:
                values[brought[0]] = brought[1]
    _check(values, kernel, target, scenario, tasks)
    defines: dict[str, str] = {}
    for name, value in values.items():
        defines.update(options[name].defines(value))
    return Config(tuple(sorted(values.items())), tuple(sorted(defines.items())))


def _check(values: dict[str, str], kernel: Kernel, target: Target, scenario: Scenario, tasks: int | None) -> None:
    def refuse(why: str, hint: str | None = None):
        raise ConfigurationRefused(f"invalid configuration for {target.name}/{scenario.name}: {why}", hint)

    if conflict := _conflict(values, kernel, target, scenario):
        chosen = {key: value for key, value in conflict.when if key not in TARGET_FACTS}
        refuse(conflict.why, conflict.hint and conflict.hint.replace(
            "{targets}", ", ".join(_targets_taking(chosen, kernel, scenario)) or "none"))
    if target.flash is not None:
        _check_memory(values, target, refuse)
    _check_slow_memory(values, target, refuse)
    if tasks is not None:
        if scenario.name != "rotate":
            refuse("--tasks applies to the rotate scenario only")
        if not 2 <= tasks <= target.max_tasks:
            refuse(f"rotate takes 2 to {target.max_tasks} tasks on {target.name}, not {tasks}",
                   "the kernel heap of the target holds no more" if tasks > target.max_tasks else None)


def _check_memory(values: dict[str, str], target: Target, refuse) -> None:
    """The memory options' values this target's flash has: its register's wait states, its accelerator, caches."""
    flash, wait_states = target.flash, values["wait_states"]
    if wait_states != "programmed" and int(wait_states) > flash.most_wait_states:
        refuse(f"wait_states={wait_states}: {target.name}'s flash takes 0 to {flash.most_wait_states} wait states",
               f"its {flash.register_layout or 'flash'} interface holds no more")
    if values["accelerator"] == "on" and not flash.has_accelerator:
        refuse(f"accelerator=on: {target.name}'s flash has no accelerator to turn on")
    if values["cache"] == "cold" and not flash.has_cache:
        refuse(f"cache=cold: {target.name}'s flash has no cache to empty ({flash.accelerator()})",
               "every window of it reads the flash as the first does: leave out cache=cold")
    if values["cache"] == "cold" and values["accelerator"] == "off":
        refuse("cache=cold with accelerator=off: the caches are off, there is nothing to empty",
               "leave out cache=cold, or measure it with the accelerator as programmed or on")


def _check_slow_memory(values: dict[str, str], target: Target, refuse) -> None:
    """The wait states this target's slow memory takes."""
    for name in ("fetch_wait_states", "data_wait_states"):
        if target.slow_memory is not None and int(values.get(name, 0)) > target.slow_memory.most_wait_states:
            refuse(f"{name}={values[name]}: {target.name}'s RAM takes 0 to {target.slow_memory.most_wait_states} "
                   "wait states")


TARGET_FACTS = ("cpu", "target", "scenario", "fpu")  # what a conflict's `when` may name besides options


def _conflict(values: dict[str, str], kernel: Kernel, target: Target, scenario: Scenario):
    """The first of the kernel's conflicts the configuration `values` meets on this target and scenario, or None."""
    facts = {**values, "cpu": target.cpu, "target": target.name, "scenario": scenario.name,
             "fpu": target.fpu or "none"}
    # a scenario's group names each of its windows (scenario = "deadlock-break")
    return next((conflict for conflict in kernel.conflicts
                 if all(facts.get(key) == value or key == "scenario" and scenario.group == value
                        for key, value in conflict.when)), None)


def _targets_taking(chosen: dict[str, str], kernel: Kernel, scenario: Scenario) -> list[str]:
    """The kernel's targets that measure the scenario with the `chosen` option values (and the rest at their
    defaults): what a conflict's hint names as {targets}, from the catalog, so that it cannot fall behind it."""
    targets = catalog.current().targets
    return [name for name in kernel.targets
            if any(kernel.not_measured(targets[name], scenario, method) is None for method in catalog.METHODS.values())
            and _conflict({**defaults(kernel, targets[name]), **chosen}, kernel, targets[name], scenario) is None]


def targets_hint(option: Option, target: Target | None = None) -> str:
    having = _targets_applying(option)
    hint = "leave it out" + (f", or measure it with --target {' or '.join(having)}" if having else "")
    if target is not None and option.target_needs == "flash" and target.slow_memory is not None:
        hint += f"; {target.name}'s RAM takes fetch_wait_states=N and data_wait_states=N instead"
    return hint


def applying_hint(option: Option, scenario: Scenario, target: Target) -> str:
    if not option.applies_on(target):
        return targets_hint(option, target)
    if not option.applies_to(scenario):
        return f"leave it out, or measure it with --scenario {' or '.join(option.scenarios)}"
    return "add " + " ".join(f"--config {name}={value}" for name, value in option.requires) + ", or leave it out"


def changes_scenario(kernel: str, option: str, scenario: str, values: dict[str, str] | None = None) -> bool:
    """Whether a kernel's option (by names) changes a scenario's firmware, in a configuration of `values`
    (load_period_us only with load=voip); an unknown kernel, option or scenario (a result read back from
    another version) is taken to."""
    found, chosen = catalog.KERNELS.get(kernel), catalog.SCENARIOS.get(scenario)
    options = options_of(found) if found else {}
    if option not in options or chosen is None:
        return True
    return options[option].applies_to(chosen) and not (values is not None and options[option].unmet(values))
