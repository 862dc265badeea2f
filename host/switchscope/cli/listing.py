"""`switchscope list`: the kernels, targets, real boards, scenarios, methods and options there are."""

from __future__ import annotations

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.memory import MemorySettings
from switchscope.common.errors import SwitchscopeError
from switchscope.common.suggest import did_you_mean
from switchscope.decode.methods import METHODS
from switchscope.run.runner import simulator_of

LIST_SECTIONS = ("kernels", "targets", "boards", "scenarios", "methods", "options")


def _list_boards() -> None:
    print("real boards (switchscope run --target BOARD --port DEVICE; --simulate runs the same image simulated):")
    boards = catalog.real_boards()
    width = max((len(name) for name in boards), default=0)
    for name, target in boards.items():
        board = target.real_board
        print(f"  {name.ljust(width)}  {board.summary}")
        print(f"  {''.ljust(width)}    image of target {target.name}; stamps with {board.stamp_timer}; "
              f"{target.uart_baud} baud on {target.uart}; flashed with {board.flasher} ({board.flasher_package})")


def _reports(target: catalog.Target) -> str:
    """What a measurement on the target gives unless told (--unit), and what else it can give."""
    default = target.resolve_unit(None)
    how = {target.unit: simulator_of(target).COUNTS}
    if target.timing_model_for("cycles"):
        how["cycles"] = f"cycles through the {target.timing_model} timing model"
    others = [how[unit] for unit in target.units if unit != default]
    return f"reports {how[default]}" + (f"; --unit {'/'.join(u for u in target.units if u != default)}: "
                                        f"{', '.join(others)}" if others else "")


def _scenario_notes(scenario: catalog.Scenario) -> list[str]:
    """A window of a scenario of several, and the kernels that cannot run it, each with its reason."""
    notes = []
    if scenario.group:
        windows = [s.name for s in catalog.scenario_groups()[scenario.group]]
        notes.append(f"a window of {scenario.group} ({', '.join(windows)}; --scenario {scenario.group} runs each)")
    if scenario.suite:
        notes.append(f"a test of {scenario.suite} (--scenario {scenario.suite} runs every one; all leaves them out)")
    for kernel in catalog.KERNELS.values():
        why = next((why for name, why in kernel.not_applicable if name in (scenario.name, scenario.group)), None)
        if why:
            notes.append(f"n/a on {kernel.name}: {why}")
    by_reason: dict[str, list[str]] = {}  # a reason many boards share, said once with them all
    for target in catalog.TARGETS.values():
        why = next((why for name, why in target.not_applicable if name in (scenario.name, scenario.group)), None)
        if why:
            by_reason.setdefault(why, []).append(target.name)
    few = [t.name for t in catalog.TARGETS.values() if not t.holds_tasks_of(scenario)]
    if few:
        by_reason.setdefault(f"it runs {scenario.tasks} tasks, more than the kernel heap holds there (board.toml, "
                             "max_tasks; C kernels)", []).extend(few)
    notes += [f"n/a on {', '.join(targets)}: {why}" for why, targets in by_reason.items()]
    return notes


def command_list(args) -> int:
    shown = args.section or "all"
    if shown not in (*LIST_SECTIONS, "all"):
        raise SwitchscopeError(f"switchscope list shows {', '.join(LIST_SECTIONS)} or all, not '{shown}'",
                               f"{did_you_mean(shown, (*LIST_SECTIONS, 'all'))}"
                               "switchscope list, with no subject, shows them all")
    sections = [("kernels", catalog.KERNELS), ("targets", catalog.TARGETS),
                ("scenarios", catalog.SCENARIOS), ("methods", METHODS)]
    if shown in ("boards", "all"):
        _list_boards()
    for title, table in sections:
        if shown not in (title, "all"):
            continue
        print(f"{title}:")
        width = max(len(name) for name in table)
        for name, item in table.items():
            note = " (not in 'all')" if getattr(item, "check", False) else ""
            print(f"  {name.ljust(width)}  {item.summary}{note}")
            if isinstance(item, catalog.Target):
                print(f"  {''.ljust(width)}    {_reports(item)}")
                if item.flash is not None:
                    print(f"  {''.ljust(width)}    memory: {MemorySettings().describe(item.flash)} "
                          f"({item.flash.wait_states_source}); --config wait_states, accelerator, cache")
                if item.slow_memory is not None:
                    caches = f", {item.slow_memory.caches} (cache)" if item.slow_memory.caches else ""
                    print(f"  {''.ljust(width)}    memory: a RAM of 0 wait states by default{caches}; --config "
                          f"fetch_wait_states, data_wait_states (0 to {item.slow_memory.most_wait_states})"
                          + (", cache" if caches else ""))
                for scenario, why in item.not_applicable:
                    print(f"  {''.ljust(width)}    {scenario}: n/a, {why}")
            if isinstance(item, catalog.Kernel):
                print(f"  {''.ljust(width)}    targets: {', '.join(item.targets) or 'none'}")
                for scenario, why in item.not_applicable:
                    print(f"  {''.ljust(width)}    {scenario}: n/a, {why}")
                if item.switches:
                    print(f"  {''.ljust(width)}    measure --switches: a change of {item.switches.current} in "
                          f"{' / '.join(item.switches.switch_path)}")
                elif item.switches_unavailable:
                    print(f"  {''.ljust(width)}    measure --switches: n/a, {item.switches_unavailable}")
            if isinstance(item, catalog.Scenario):
                for line in _scenario_notes(item):
                    print(f"  {''.ljust(width)}    {line}")
    if shown not in ("options", "all"):
        return 0
    print("configuration options (--config NAME=VALUE):")
    every_option = {}
    for kernel in catalog.KERNELS.values():
        for name, option in configs.options_of(kernel).items():
            every_option.setdefault(name, (option, []))[1].append(kernel.name)
    width = max(len(name) for name in every_option)
    for name, (option, kernels) in every_option.items():
        print(f"  {name.ljust(width)}  {option.summary} [{option.describe_values().replace(' | ', '|')}, "
              f"default {option.default}] ({configs.kernels_and_targets(option, kernels)})")
    return 0
