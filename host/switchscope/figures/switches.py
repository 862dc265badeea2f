"""`switchscope measure --switches`: every task switch of a firmware the user
built, found by the simulator in the flow of the kernel's switching code
(exceptions on Cortex-M, calls and interrupts on the AVR; nothing added to
the firmware), each timed from the entry of that code to the first
instruction of the task it switched to, with the task it left, the task it
entered and what caused it; grouped by task pair and by cause beside the
whole."""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Callable

import numpy as np

from switchscope.build import native
from switchscope.catalog import Kernel, Target, switches_targets
from switchscope.catalog.memory import MemorySettings
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.decode import elf
from switchscope.decode.switches import Flow, Switch, switches
from switchscope.figures import memory_used
from switchscope.figures.measure_elf import check_built_for
from switchscope.figures.result import Result, Stats
from switchscope.run.runner import run

TIMELINE_SWITCHES = 300  # how many of the first switches keep their times
EVENTS_PER_SWITCH = 4  # an entry, a tail-chain perhaps, a return; and the interrupts between that switch nothing


def marks_of(kernel: Kernel, target: Target):
    """The kernel's marks of a switch, where this target can follow them; else why not."""
    if kernel.switches is None:
        why = kernel.switches_unavailable or "its kernel.toml has no [switches] table"
        raise SwitchscopeError(f"{kernel.title}: no switches to find: {why}",
                               "measure --switches takes a kernel whose kernel.toml has [switches] "
                               "(see: switchscope list kernels)")
    if target.switches_unavailable:
        elsewhere = switches_targets(target.cpu) or switches_targets()
        raise SwitchscopeError(f"--switches on {target.name}: {target.switches_unavailable}",
                               f"measure the switches with --target {' or '.join(elsewhere)}, with the image built for it")
    return kernel.switches


def riscv_interrupt_vectors(events, interrupt: int) -> set[int]:
    """The vectors of that interrupt the flow entered: on Ibex (run/verilator.py) an interrupt is logged
    at its vector, mtvec + 4 * cause, then a chain@ to the kernel's switching code it goes on to; Ibex's
    mtvec is 256-byte aligned (its vectored mode, the only one it has), so the cause is the vector's
    offset in its 256 bytes."""
    found, events = set(), list(events)
    for before, after in zip(events, events[1:]):
        flow = Flow.of(before)
        if (flow is not None and flow.kind != "resume" and after.name.startswith("chain@")
                and flow.address & 0xFF == 4 * interrupt):
            found.add(flow.address)
    return found


def _addresses(found: dict[str, int], names: tuple[str, ...]) -> set[int]:
    return {found[name] & ~1 for name in names if name in found}


class _Names:
    """What a switch's addresses are called: a task by its name, a code address by its function."""

    def __init__(self, firmware_elf: Path, found: dict[str, int], helpers: tuple[str, ...], target: Target):
        self.helpers = set(helpers)
        self.latency_timer = target.latency_timer  # the board's spare timer: named by what it is
        self.functions = elf.functions(firmware_elf)
        self.starts = [start for start, _, _ in self.functions]
        self.by_address = {address & ~1: name for name, address in found.items()}
        self.vectors = elf.avr_vectors(firmware_elf) if elf.machine(firmware_elf) == "EM_AVR" else {}
        self.tasks: dict[int, str] = {}

    def function(self, address: int) -> str:
        at = bisect.bisect_right(self.starts, address) - 1
        if at >= 0 and self.functions[at][0] <= address < self.functions[at][1]:
            return self.functions[at][2]
        return f"0x{address:x}"

    def task(self, word: int) -> str:
        return self.tasks.get(word) or f"task@0x{word:x}"

    def handler(self, address: int) -> str:
        """An interrupt's handler by name: the function at the address, or the one its vector jumps to (AVR)."""
        address = self.vectors.get(address, address)
        return self.by_address.get(address, f"0x{address:x}")

    def cause(self, switch: Switch) -> str:
        if switch.cause == "call":
            called = self.function(switch.cause_address)
            if called in self.helpers and switch.caller is not None:  # taken on the way out of the port's helper
                called = self.function(switch.caller & ~1)
            return f"call in {called}"
        if switch.cause == "tick":
            return "tick"
        handler = self.handler(switch.cause_address)
        if self.latency_timer and handler == self.latency_timer.handler:
            return self.latency_timer.interrupt
        return f"interrupt {handler}"


def measure_switches(firmware_elf: Path, target: Target, kernel: Kernel, count: int, time_limit: float,
                     note: Callable[[str], None] | None = None, memory: MemorySettings = MemorySettings()) -> Result:
    """Every task switch of the firmware; `note` gets what check_built_for says of the ELF's core (a smaller
    one's code, or a core the ELF does not record), once the kernel's marks are known to be measurable;
    `memory`: what is forced of the target's flash model."""
    marks = marks_of(kernel, target)
    said = check_built_for(firmware_elf, target)
    if said and note:
        note(said)
    found = elf.symbols(firmware_elf)
    if marks.current not in found:
        raise SwitchscopeError(f"{firmware_elf} has no symbol {marks.current}: {kernel.title} keeps its current task "
                               f"there, so this is no {kernel.title} firmware, or its symbols were stripped",
                               f"give the ELF as linked (with its symbol table), built with {kernel.title}, or the "
                               "--kernel it was built with")
    switch_path, tick = _addresses(found, marks.switch_path), _addresses(found, marks.tick)
    if not switch_path:
        raise SwitchscopeError(f"{firmware_elf} has none of {', '.join(marks.switch_path)}: the handler "
                               f"{kernel.title} switches in", "give a firmware built with the kernel's own port")
    name_offset = elf.member_offset(firmware_elf, marks.task_struct, marks.name_field)
    native.ensure(target.simulator, target.core_config)
    output = run(target, firmware_elf, [], count, time_limit, unit="cycles", stop_after=count,
                 switch_word=(found[marks.current], name_offset or 0, marks.name_bytes if name_offset else 0),
                 switch_path=tuple(sorted(switch_path)), more_events=EVENTS_PER_SWITCH * count, memory=memory)
    if target.simulator == "simavr":  # an interrupt is logged at its vector: its handler is what the vector jumps to
        tick |= {slot for slot, handler in elf.avr_vectors(firmware_elf).items() if handler in tick}
    if target.simulator == "verilator" and marks.tick_interrupt is not None:
        tick |= riscv_interrupt_vectors(output.events or [], marks.tick_interrupt) - switch_path
    found_switches, unswitched = switches(output.events or [], switch_path, tick)
    if not found_switches:
        said = output.stream.last_output() or ["(nothing)"]
        if output.events_limited:  # a tight loop of interrupts that never switch: bounded by the log's size
            why = f"the run was ended after {len(output.events or [])} exception entries and returns, none a switch"
        else:
            why = output.stopped or f"the firmware ended (exit {output.exit_code})"
        raise FirmwareFailed(f"{firmware_elf}: no task switch found ({marks.current} never changed in "
                             f"{', '.join(marks.switch_path)}); {why}",
                             "a firmware whose tasks never switch has nothing to measure; last output: "
                             + "; ".join(said))
    names = _Names(firmware_elf, found, marks.helpers, target)
    for switch in found_switches:  # a task's name is read as it is switched to
        if switch.incoming_name:
            names.tasks.setdefault(switch.incoming, switch.incoming_name)
    in_firmware = [name for name in marks.switch_path if name in found]  # the switching code this firmware has
    result = _result(firmware_elf, target, kernel, found_switches, unswitched, names, in_firmware, output, count)
    result.memory = memory_used.record(target, "cycles", memory, own_firmware=True)
    return result


def _result(firmware_elf, target, kernel, found: list[Switch], unswitched: int, names: _Names,
            switch_path: list[str], output, count: int) -> Result:
    tasks = list(dict.fromkeys(names.task(w) for s in found for w in (s.outgoing, s.incoming)))
    causes = list(dict.fromkeys(names.cause(s) for s in found))
    samples = [s.end - s.start for s in found]
    bounds = None
    if all(s.least is not None for s in found):
        bounds = {"min": Stats.of(np.array([s.least[1] - s.least[0] for s in found])).as_dict(),
                  "max": Stats.of(np.array([s.most[1] - s.most[0] for s in found])).as_dict()}
    return Result(
        kind="switches", scenario="switches", method="marker", unit="cycles", timing_model=target.timing_model,
        bounds=bounds, samples=samples, overhead=0, first=samples[0], kernel=kernel.name,
        source=str(firmware_elf), target=target.name, cpu=target.cpu, f_cpu_hz=target.f_cpu_hz,
        simulator={"name": output.simulator, "options": output.options},
        wall_seconds=round(output.wall_seconds, 3),
        details={"switches": {
            "current": kernel.switches.current, "switch_path": switch_path,
            "tasks": tasks, "causes": causes,
            # each sample's [outgoing task, incoming task, cause], indices into the lists above
            "samples": [[tasks.index(names.task(s.outgoing)), tasks.index(names.task(s.incoming)),
                         causes.index(names.cause(s))] for s in found],
            # each sample's least and most cycles the core's manual allows, for the groups' ranges
            "least": [s.least[1] - s.least[0] for s in found] if bounds else None,
            "most": [s.most[1] - s.most[0] for s in found] if bounds else None,
            # the first switches' times, for a timeline of which task ran when
            "starts": [s.start for s in found[:TIMELINE_SWITCHES]], "ends": [s.end for s in found[:TIMELINE_SWITCHES]],
            "unswitched": unswitched, "asked": count, "stopped": output.stopped}},
    )
