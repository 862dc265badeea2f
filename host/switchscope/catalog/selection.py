"""Choosing kernels, targets, scenarios and methods by name, as the command
line gives them: one name, a comma list of names (yield,isr), or 'all'. An
unknown name is refused with the closest valid one; a name given twice, an
empty item, or 'all' among other names is refused with what to write."""

from __future__ import annotations

from switchscope.catalog.folders import current
from switchscope.catalog.model import Kernel, Target
from switchscope.catalog.scenarios import SCENARIOS, Scenario
from switchscope.common.errors import SwitchscopeError, UnknownName
from switchscope.common.suggest import did_you_mean
from switchscope.decode.methods import METHODS, Method


def names(kind: str, requested: str) -> list[str]:
    """The names of a --kind value: 'yield' or 'yield,isr' (each checked once), or ['all']."""
    given = [item.strip() for item in requested.split(",")]
    if "" in given:
        raise UnknownName(f"--{kind} '{requested}': an empty name in the list",
                          f"write {kind} names separated by commas, e.g. --{kind} {_example(kind)}")
    twice = next((name for index, name in enumerate(given) if name in given[:index]), None)
    if twice:
        raise SwitchscopeError(f"--{kind} '{requested}': {twice} given twice", f"give each {kind} once")
    if "all" in given and len(given) > 1:
        raise SwitchscopeError(f"--{kind} '{requested}': 'all' is every {kind} already", "give 'all' alone, or names")
    return given


def _example(kind: str) -> str:
    return {"kernel": "freertos,floor", "target": "mps2-an385,atmega328p", "scenario": "yield,isr",
            "method": "probe,marker"}.get(kind, "a,b")


def _select(kind: str, table: dict, requested: str, aliases: dict[str, list] | None = None,
            more_hint: str = "", aliases_listed: bool = True) -> list:
    """The items a --kind value names, in the order given, each once; `aliases` are further names
    that stand for one or more items (a scenario group; a real board, said in `more_hint` instead)."""
    given = names(kind, requested)
    if given == ["all"]:
        return [item for item in table.values() if not getattr(item, "check", False)
                and not getattr(item, "suite", None)]
    aliases = aliases or {}
    chosen = []
    for name in given:
        if name in aliases:
            chosen += aliases[name]
        elif name in table:
            chosen.append(table[name])
        else:
            where = f" in '{requested}'" if len(given) > 1 else ""
            valid = ", ".join([*table, *(aliases if aliases_listed else ()), "all"])
            raise UnknownName(f"unknown {kind} '{name}'{where}",
                              f"{did_you_mean(name, [*table, *aliases])}valid {kind}s: {valid} (see: switchscope "
                              f"list){more_hint}")
    return list(dict.fromkeys(chosen))  # a group and one of its windows, a board and its twin: measured once


def select_kernels(name: str) -> list[Kernel]:
    return _select("kernel", current().kernels, name)


def real_boards() -> dict[str, Target]:
    """The real kits, by name, each with the target whose image it runs."""
    return {t.real_board.name: t for t in current().targets.values() if t.real_board}


def select_targets(name: str) -> list[Target]:
    """Targets by name; a real kit's name (arduino-uno) selects the target whose image it runs."""
    boards = real_boards()
    return _select("target", current().targets, name, {board: [target] for board, target in boards.items()
                                                       if board not in current().targets},
                   f"; real boards (with --port): {', '.join(boards)}" if boards else "", aliases_listed=False)


def real_boards_named(name: str) -> list[str]:
    """The real kits (arduino-uno) among the names of a --target value, which are no simulated target."""
    return [item.strip() for item in name.split(",") if item.strip() in real_boards()
            and item.strip() not in current().targets]


def _scenarios_by(field: str) -> dict[str, list[Scenario]]:
    """The scenarios that name something in `field` (a group, a suite), by that name, in the catalog's order."""
    found: dict[str, list[Scenario]] = {}
    for scenario in SCENARIOS.values():
        if getattr(scenario, field):
            found.setdefault(getattr(scenario, field), []).append(scenario)
    return found


def scenario_groups() -> dict[str, list[Scenario]]:
    """The scenarios that measure several windows, by name, with a scenario of its own for each window."""
    return _scenarios_by("group")


def scenario_suites() -> dict[str, list[Scenario]]:
    """The published suites (thread-metric), by name, each with its tests."""
    return _scenarios_by("suite")


def select_scenarios(name: str) -> list[Scenario]:
    """Scenarios by name; a scenario of several windows (deadlock-break) selects each of them, a suite's name
    (thread-metric) each of its tests."""
    return _select("scenario", SCENARIOS, name, {**scenario_groups(), **scenario_suites()})


def select_methods(name: str) -> list[Method]:
    return _select("method", METHODS, name)


def switches_targets(cpu: str | None = None) -> list[str]:
    """The targets on which measure --switches finds a firmware's task switches (of this cpu, if given)."""
    return [name for name, target in current().targets.items()
            if target.switches_unavailable is None and cpu in (None, target.cpu)]
