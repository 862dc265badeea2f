"""`switchscope measure`: the marker method on a firmware the user built,
between two points given as symbols or addresses. Nothing about the firmware
is assumed but the target it was built for; the run ends once enough
intervals are counted, or when the firmware stops."""

from __future__ import annotations

import re
from pathlib import Path

from switchscope.build import native
from switchscope.build.firmware import link_flags
from switchscope import catalog
from switchscope.catalog import Target
from switchscope.catalog.memory import MemorySettings
from switchscope.common import paths
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.common.suggest import did_you_mean
from switchscope.decode import arm_build, elf, stats
from switchscope.figures import memory_used
from switchscope.figures.result import Result, Stats
from switchscope.run.runner import run, simulator_of


def resolve(point: str, found: dict[str, int], path: Path) -> int:
    """A symbol of the ELF, or an address written as 0x... ."""
    if point.lower().startswith("0x"):
        try:
            return int(point, 16)
        except ValueError:
            raise SwitchscopeError(f"'{point}' is not an address") from None
    if point in found:
        return found[point]
    raise SwitchscopeError(f"{path} has no symbol '{point}'",
                           did_you_mean(point, found)
                           + "give a symbol the ELF defines (see: nm) or an address such as 0x1a2c")


# the architecture each Cortex-M core of a board.toml executes, as an ELF's build attributes name it
# (GCC records -mcpu=cortex-m0 and cortex-m0plus as ARMv6S-M: ARMv6-M with SVC, which every Cortex-M0 and M0+ has)
CORE_ARCHITECTURES = {"cortex-m0": "ARMv6S-M", "cortex-m0plus": "ARMv6S-M", "cortex-m3": "ARMv7-M",
                      "cortex-m4": "ARMv7E-M", "cortex-m4f": "ARMv7E-M"}
# the architectures a core of each runs unchanged besides its own: ARMv7E-M adds the DSP instructions to ARMv7-M,
# which holds ARMv6-M
RUNS_ALSO = {"ARMv6S-M": ("ARMv6-M",), "ARMv7-M": ("ARMv6-M", "ARMv6S-M"),
             "ARMv7E-M": ("ARMv7-M", "ARMv6-M", "ARMv6S-M")}


# a core as a compiler may name it in Tag_CPU_name (armcc and clang write the core; GCC writes the architecture,
# "6S-M", "7-M", "7E-M"), as a board.toml cpu; a Cortex-M4 image fits the Cortex-M4 with or without its FPU
NAMED_CORES = {"cortex-m0": ("cortex-m0",), "cortex-m0plus": ("cortex-m0plus",), "cortex-m0+": ("cortex-m0plus",),
               "cortex-m3": ("cortex-m3",), "cortex-m4": ("cortex-m4", "cortex-m4f"),
               "cortex-m4f": ("cortex-m4", "cortex-m4f")}


def _named_core(firmware_elf: Path) -> str | None:
    """The core the ELF's Tag_CPU_name names, normalised ("Cortex-M0" -> "cortex-m0"), where it names one."""
    name = str((elf.arm_attributes(firmware_elf) or {}).get("TAG_CPU_NAME", "")).strip().lower().replace(" ", "-")
    return name if name in NAMED_CORES else None


def _fits(firmware_elf: Path, target: Target) -> bool:
    """Whether an Arm ELF was built for exactly this target's core: its architecture, the core its attributes name
    (if any), and floating-point instructions where the board's build has an FPU, none where it has not."""
    core = CORE_ARCHITECTURES.get(target.cpu)
    named = _named_core(firmware_elf)
    return (core == arm_build.arm_architecture(firmware_elf) and (named is None or target.cpu in NAMED_CORES[named])
            and (arm_build.arm_floating_point(firmware_elf) is not None) == (target.fpu is not None))


def _fitting_boards(firmware_elf: Path) -> list[Target]:
    """The Cortex-M targets that run the image as built: its core, and its addresses in their memory."""
    return [t for t in catalog.current().targets.values() if t.simulator == "qemu" and not t.is_riscv
            and _fits(firmware_elf, t) and _holds(firmware_elf, t)]


LINKER_REGION = re.compile(r"(\w+)\s*(?:\([^)]*\))?\s*:\s*ORIGIN\s*=\s*(0x[0-9A-Fa-f]+|\d+)\s*,\s*"
                           r"LENGTH\s*=\s*(0x[0-9A-Fa-f]+|\d+)\s*([KM]?)")


LINKER_INCLUDE = re.compile(r"^\s*INCLUDE\s+(\S+)", re.MULTILINE)


def linked_memory(target: Target) -> tuple[Path, list[tuple[int, int]]] | None:
    """The linker script a target's images are linked with (board.toml's -T) and its MEMORY regions, as
    (start, end) addresses; None where the target names none."""
    flags = link_flags(target)
    script = Path(flags[flags.index("-T") + 1]) if "-T" in flags[:-1] else None
    if script is None or not script.is_file():
        return None
    folders = [Path(flags[i + 1]) for i, flag in enumerate(flags[:-1]) if flag == "-L"] + [script.parent]

    def included(match: re.Match) -> str:  # as the linker does: the first of its -L folders that has the file
        found = next((folder / match[1] for folder in folders if (folder / match[1]).is_file()), None)
        return found.read_text() if found else ""
    text = LINKER_INCLUDE.sub(included, script.read_text())
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20}
    regions = [(int(origin, 0), int(origin, 0) + int(length, 0) * scale[unit])
               for _, origin, length, unit in LINKER_REGION.findall(text)]
    return script, regions


def _outside(firmware_elf: Path, regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (start, end) of each segment the image loads that lies in none of the regions."""
    return [(first, end) for first, end, _ in elf.loaded_segments(firmware_elf)
            if not any(start <= first and end <= region_end for start, region_end in regions)]


def _holds(firmware_elf: Path, target: Target) -> bool:
    """Whether every segment the image loads lies in one region of the target's linker script MEMORY (False
    where the target links no C image: it runs none of one's own)."""
    memory = linked_memory(target)
    return bool(memory and memory[1]) and not _outside(firmware_elf, memory[1])


def _runs(firmware_elf: Path, target: Target) -> bool:
    """Whether the target runs the image as built: its instruction set, on Cortex-M its core, and its memory."""
    machine = simulator_of(target).elf_machine(target)
    return machine == elf.machine(firmware_elf) and (machine != "EM_ARM" or _fits(firmware_elf, target)) \
        and _holds(firmware_elf, target)


def _same_board(one: Target, other: Target) -> bool:
    """Whether two targets' images are one board's build (the same board code, defines and UART): the microbit's
    on the Cortex-M0+, the MPS2's on its Cortex-M4; not the STM32 F1's on the F4."""
    defines = [sorted(flag for flag in target.cflags if flag.startswith("-D")) for target in (one, other)]
    return one.board_code == other.board_code and defines[0] == defines[1] and one.uart == other.uart


def _boards_named(firmware_elf: Path) -> list[Target]:
    """The targets whose name the image carries as a string of its own (BOARD_NAME, which switchscope's board
    code prints at start), where it carries any."""
    loaded = b"\0" + b"\0".join(data for _, _, data in elf.loaded_segments(firmware_elf)) + b"\0"
    return [t for t in catalog.current().targets.values() if b"\0" + t.name.encode() + b"\0" in loaded]


def _check_linked_for(firmware_elf: Path, target: Target) -> None:
    """An image is linked for one machine's memory map (simple_system's RAM at 0x100000, virt's at 0x80000000,
    the nRF51's flash at 0, the STM32's at 0x8000000): one linked for another is refused, naming where the
    target's images are linked. One that names the board it was built for (its BOARD_NAME), another board's
    build, is refused too: its UART and timers are another chip's."""
    memory = linked_memory(target)
    if memory is None or not memory[1]:
        return
    script, regions = memory
    if outside := next(iter(_outside(firmware_elf, regions)), None):
        others = [t.name for t in catalog.current().targets.values() if t.name != target.name
                  and _runs(firmware_elf, t)]
        origins = " or ".join(f"{start:#x}" for start, _ in regions)
        raise SwitchscopeError(
            f"{firmware_elf} loads {outside[0]:#x} to {outside[1]:#x}, outside "
            f"{target.name}'s memory: {target.name} runs images linked at {origins} ({script})",
            (f"give --target {' or '.join(others)}, the machine it is linked for, or " if others else "")
            + f"link it with {script}")
    named = _boards_named(firmware_elf)
    if named and not any(_same_board(board, target) for board in named):
        boards = [t.name for t in catalog.current().targets.values()
                  if any(_same_board(t, board) for board in named) and _runs(firmware_elf, t)]
        raise SwitchscopeError(
            f"{firmware_elf} is built for {' and '.join(board.name for board in named)} (the board name it "
            f"carries), and {target.name} is another board: the image reaches for that board's UART and timers, "
            f"which {target.name} has elsewhere",
            (f"give --target {' or '.join(boards)}, or " if boards else "")
            + f"build it for {target.name} (switchscope new-project --target {target.name})")


def check_built_for(firmware_elf: Path, target: Target) -> str | None:
    """The firmware is an ELF for the target's architecture, and on Cortex-M for the target's core or one it
    runs unchanged (ARMv7-M code on a Cortex-M4), with floating-point instructions only where the target's model
    times them, linked for the target's memory and naming no other board (its BOARD_NAME); or a clear error: code
    for a larger architecture, or for another board's memory or peripherals, would not run, and code for another
    core of the same architecture, or with an FP context the model does not time, would give another core's
    figures. Returns what to say where the ELF does not record its core (or
    records only its architecture, which several of the simulated cores execute) or was built for a smaller one,
    else None."""
    if not firmware_elf.is_file():  # never opened unless a regular file: a FIFO would wait for a writer forever
        if not firmware_elf.exists():
            raise SwitchscopeError(f"no firmware file {firmware_elf}",
                                   "give your firmware's ELF as your build writes it (switchscope new-project starts "
                                   "one), or --build-example for switchscope's own example")
        kind = "a directory" if firmware_elf.is_dir() else paths.special_kind(firmware_elf)
        raise SwitchscopeError(f"{firmware_elf} is {kind}, not a firmware file",
                               "give the ELF file the firmware's build wrote (its linker's output, e.g. app.elf)")
    wanted = simulator_of(target).elf_machine(target)
    built_for = elf.machine(firmware_elf)
    if built_for != wanted:
        raise SwitchscopeError(f"{firmware_elf} is built for {elf.MACHINES.get(built_for, built_for)}, and "
                               f"{target.name} is {elf.MACHINES[wanted]}",
                               "give the --target the ELF was built for (see: switchscope list targets)")
    note = None if wanted != "EM_ARM" else _check_core(firmware_elf, target)
    _check_linked_for(firmware_elf, target)
    return note


def _check_core(firmware_elf: Path, target: Target) -> str | None:
    """check_built_for's Cortex-M part: the image's architecture, core and floating point against the target's."""
    core = CORE_ARCHITECTURES.get(target.cpu)
    if core is None:
        return None
    architecture = arm_build.arm_architecture(firmware_elf)
    if architecture is None:
        return (f"{firmware_elf} does not record the core it was built for (no Arm build attributes): it runs as "
                f"{target.name}'s {target.cpu}")
    if architecture != core and architecture not in RUNS_ALSO.get(core, ()):
        cores = [cpu for cpu, named in CORE_ARCHITECTURES.items() if named == architecture]
        boards = [t.name for t in catalog.current().targets.values() if t.cpu in cores and t.simulator == "qemu"
                  and _holds(firmware_elf, t)]
        raise SwitchscopeError(
            f"{firmware_elf} is built for {architecture}"
            + (f" ({arm_build.ARM_M_CORES[architecture]})" if architecture in arm_build.ARM_M_CORES else "")
            + f", and {target.name} is a {target.cpu} ({core}): its figures would be the {target.cpu} model's "
              "of code built for another core",
            (f"give --target {' or '.join(boards)}, or " if boards else "")
            + f"build it for the {target.cpu} (-mcpu={target.cpu})")
    floating_point, named = arm_build.arm_floating_point(firmware_elf), _named_core(firmware_elf)
    fitting = [t.name for t in _fitting_boards(firmware_elf)]
    if floating_point is not None and target.fpu is None:
        raise SwitchscopeError(
            f"{firmware_elf} is built with floating-point instructions ({floating_point}), and {target.name}'s "
            f"{target.cpu} is built without an FPU: its model times no floating-point instruction and no FP "
            "context (the extended exception frame, s16-s31 saved at a switch), so its figures would leave them out",
            (f"give --target {' or '.join(fitting)}, the core with its FPU, or " if fitting else "")
            + "build it with -mfloat-abi=soft")
    if architecture in RUNS_ALSO.get(core, ()):
        return (f"{firmware_elf} is built for {architecture} ({arm_build.ARM_M_CORES[architecture]}): the {target.cpu} "
                f"runs it unchanged, and its {target.cpu} model times it as that core runs it")
    if named is not None and target.cpu not in NAMED_CORES[named]:
        raise SwitchscopeError(
            f"{firmware_elf} is built for the {named} (its build attributes' Tag_CPU_name), and {target.name} is "
            f"a {target.cpu}: the same instructions, timed by another core's model",
            (f"give --target {' or '.join(fitting)}, or " if fitting else "") + f"build it with -mcpu={target.cpu}")
    siblings = sorted({t.cpu for t in catalog.current().targets.values() if t.simulator == "qemu"
                       and CORE_ARCHITECTURES.get(t.cpu) == core and (t.fpu is None) == (target.fpu is None)})
    if named is None and len(siblings) > 1:
        others = [t.name for t in catalog.current().targets.values() if t.name in fitting and t.cpu != target.cpu]
        return (f"{firmware_elf} records its architecture ({architecture}), not its core (Tag_CPU_name "
                f"{(elf.arm_attributes(firmware_elf) or {}).get('TAG_CPU_NAME', 'none')!r}), and "
                f"{' and '.join(siblings)} both execute it: timed as {target.name}'s {target.cpu}"
                + (f"; --target {' or '.join(others)} times it as the other" if others else ""))
    return None


def measure_elf(firmware_elf: Path, target: Target, start: str, stop: str, count: int,
                time_limit: float, unit: str | None = None, memory: MemorySettings = MemorySettings()) -> Result:
    check_built_for(firmware_elf, target)
    found = elf.symbols(firmware_elf)
    start_address, stop_address = resolve(start, found, firmware_elf), resolve(stop, found, firmware_elf)
    if start_address == stop_address:
        raise SwitchscopeError(f"--from {start} and --to {stop} are the same point (0x{start_address:x}): every interval "
                               "would read 0", "give the point where the interval starts and another where it ends")
    unit = target.resolve_unit(unit)
    native.ensure(target.simulator, target.core_config)
    output = run(target, firmware_elf, [], count, time_limit,
                 watches=[(start_address, "from"), (stop_address, "to")], stop_after=count, unit=unit, memory=memory)
    events = output.events or []
    intervals, unpaired = stats.intervals([(e.time, e.name) for e in events], "from", "to")
    reached = {name: sum(e.name == name for e in events) for name in ("from", "to")}
    if not intervals:
        said = output.stream.last_output() or [f"raw: {output.stderr.strip()[-300:]}" if output.stderr.strip()
                                               else "(nothing)"]
        if output.events_limited:
            why = f"the run was ended after {len(events)} watch events"
        else:
            why = output.stopped or f"the firmware ended (exit {output.exit_code})"
        raise FirmwareFailed(
            f"{firmware_elf}: no interval measured: --from {start} (0x{start_address:x}) was reached {reached['from']} "
            f"time(s), --to {stop} (0x{stop_address:x}) {reached['to']} time(s) after it; {why}",
            "check that both points are on the path the firmware runs, --from before --to; "
            + "last output: " + "; ".join(said))
    bounds = None
    if output.events is not None and output.events.bounded:  # the least and the most the core's manual allows
        bounds = {side: Stats.of(stats.intervals([(getattr(e, side_name), e.name) for e in events], "from", "to")[0])
                  .as_dict() for side, side_name in (("min", "least"), ("max", "most"))}
    return Result(
        kind="interval",
        scenario=f"{start}..{stop}",
        method="marker",
        unit=unit,
        timing_model=target.timing_model_for(unit),
        bounds=bounds,
        samples=intervals,
        overhead=0,
        first=intervals[0],
        source=str(firmware_elf),
        target=target.name,
        cpu=target.cpu,
        f_cpu_hz=target.f_cpu_hz,
        memory=memory_used.record(target, unit, memory, own_firmware=True),
        simulator={"name": output.simulator, "options": output.options},
        wall_seconds=round(output.wall_seconds, 3),
        details={"from": {"point": start, "address": start_address}, "to": {"point": stop, "address": stop_address},
                 "unpaired_from": unpaired, "stopped": output.stopped},
    )
