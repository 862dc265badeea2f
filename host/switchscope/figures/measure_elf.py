"""`switchscope measure`: the marker method on a firmware the user built,
between two points given as symbols or addresses. Nothing about the firmware
is assumed but the target it was built for; the run ends once enough
intervals are counted, or when the firmware stops."""

from __future__ import annotations

import stat
from pathlib import Path

from switchscope.build import native
from switchscope import catalog
from switchscope.catalog import Target
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.common.suggest import did_you_mean
from switchscope.decode import elf, stats
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


def check_built_for(firmware_elf: Path, target: Target) -> str | None:
    """The firmware is an ELF for the target's architecture, and on Cortex-M for the target's core or one it
    runs unchanged (ARMv7-M code on a Cortex-M4), or a clear error: code for a larger architecture would not
    run. Returns what to say where the ELF does not record its core or was built for a smaller one, else None."""
    if not firmware_elf.is_file():  # never opened unless a regular file: a FIFO would wait for a writer forever
        if not firmware_elf.exists():
            raise SwitchscopeError(f"no firmware file {firmware_elf}")
        mode = firmware_elf.stat().st_mode
        kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else \
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket"
        raise SwitchscopeError(f"{firmware_elf} is {kind}, not a firmware file",
                               "give the ELF file the firmware's build wrote (its linker's output, e.g. app.elf)")
    wanted = simulator_of(target).elf_machine(target)
    built_for = elf.machine(firmware_elf)
    if built_for != wanted:
        raise SwitchscopeError(f"{firmware_elf} is built for {elf.MACHINES.get(built_for, built_for)}, and "
                               f"{target.name} is {elf.MACHINES[wanted]}",
                               "give the --target the ELF was built for (see: switchscope list targets)")
    core = CORE_ARCHITECTURES.get(target.cpu)
    if wanted != "EM_ARM" or core is None:
        return None
    architecture = elf.arm_architecture(firmware_elf)
    if architecture is None:
        return (f"{firmware_elf} does not record the core it was built for (no Arm build attributes): it runs as "
                f"{target.name}'s {target.cpu}")
    if architecture in RUNS_ALSO.get(core, ()):
        return (f"{firmware_elf} is built for {architecture} ({elf.ARM_M_CORES[architecture]}): the {target.cpu} "
                f"runs it unchanged, and its {target.cpu} model times it as that core runs it")
    if architecture != core:
        cores = [cpu for cpu, named in CORE_ARCHITECTURES.items() if named == architecture]
        boards = [t.name for t in catalog.current().targets.values() if t.cpu in cores and t.simulator == "qemu"]
        raise SwitchscopeError(
            f"{firmware_elf} is built for {architecture}"
            + (f" ({elf.ARM_M_CORES[architecture]})" if architecture in elf.ARM_M_CORES else "")
            + f", and {target.name} is a {target.cpu} ({core}): its figures would be the {target.cpu} model's "
              "of code built for another core",
            (f"give --target {' or '.join(boards)}, or " if boards else "")
            + f"build it for the {target.cpu} (-mcpu={target.cpu})")
    return None


def measure_elf(firmware_elf: Path, target: Target, start: str, stop: str, count: int,
                time_limit: float, unit: str | None = None) -> Result:
    check_built_for(firmware_elf, target)
    found = elf.symbols(firmware_elf)
    start_address, stop_address = resolve(start, found, firmware_elf), resolve(stop, found, firmware_elf)
    if start_address == stop_address:
        raise SwitchscopeError(f"--from {start} and --to {stop} are the same point (0x{start_address:x}): every interval "
                               "would read 0", "give the point where the interval starts and another where it ends")
    unit = target.resolve_unit(unit)
    native.ensure(target.simulator, target.core_config)
    output = run(target, firmware_elf, [], count, time_limit,
                 watches=[(start_address, "from"), (stop_address, "to")], stop_after=count, unit=unit)
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
        simulator={"name": output.simulator, "options": output.options},
        wall_seconds=round(output.wall_seconds, 3),
        details={"from": {"point": start, "address": start_address}, "to": {"point": stop, "address": stop_address},
                 "unpaired_from": unpaired, "stopped": output.stopped},
    )
