"""Reading the firmware tree: a kernel is a folder with a kernel.toml
(firmware/kernels/<name>/ for a C kernel, beside its port of kernel.h;
firmware/rust/kernels/<name>/ for a Rust kernel, beside its crate), saying
where the kernel's source comes from, its port for each CPU, its options and
the combinations it refuses; a target is a board folder with a board.toml
(firmware/boards/<name>/): its CPU and clock, memories, compiler, simulator,
stamp timer, scope pin and UART, its C board code beside it. Adding either is
adding a folder; this module only reads them (selection.py selects them by name)."""

from __future__ import annotations

import functools
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from switchscope.catalog.model import (CPU_HAS_CLZ, MEMORIES, SIMULATORS, TIMING_MODELS, UNITS, Conflict, CrateSource,
                                       Kernel, LatencyTimer, Option, Port, RealBoard, SwitchMarks, Target)
from switchscope.catalog.memory_tables import flash_table, slow_memory_table
from switchscope.catalog.scenarios import SCENARIOS
from switchscope.common import paths
from switchscope.common.errors import SwitchscopeError


# --- reading kernel.toml and board.toml --------------------------------------------------------

_KIND_NAMES = {str: "a string", int: "a whole number", bool: "true or false", list: "a list", dict: "a table"}


class _Table:
    """A TOML table that names its file and key in every error."""

    def __init__(self, data: dict, path: Path, prefix: str = ""):
        self.data, self.path, self.prefix = data, path, prefix

    def _error(self, key: str, what: str) -> SwitchscopeError:
        return SwitchscopeError(f"{self.path}: '{self.prefix}{key}' {what}",
                                "see docs/porting.md for the fields of kernel.toml and board.toml")

    def get(self, key: str, kind: type | tuple, default=None, required: bool = False):
        if key not in self.data:
            if required:
                raise self._error(key, "is missing")
            return default
        value = self.data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self._error(key, f"must be {_KIND_NAMES[kind]}, not {value!r}")
        return value

    def strings(self, key: str, required: bool = False) -> tuple[str, ...]:
        found = self.get(key, list, [], required)
        if not all(isinstance(item, str) for item in found):
            raise self._error(key, "must be a list of strings")
        return tuple(found)

    def table(self, key: str) -> "_Table":
        return _Table(self.get(key, dict, {}), self.path, f"{self.prefix}{key}.")


MAX_FILE_BYTES = 1 << 20  # a kernel.toml or board.toml is a page of text


def _read(path: Path) -> _Table:
    if not path.is_file():  # a FIFO would wait for a writer forever, a device never end
        raise SwitchscopeError(f"{path}: is not a regular file", "a kernel.toml or board.toml is a text file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise SwitchscopeError(f"{path}: {path.stat().st_size:,} bytes, more than a description file holds "
                               f"({MAX_FILE_BYTES:,})")
    try:
        return _Table(tomllib.loads(path.read_text()), path)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SwitchscopeError(f"{path}: cannot be read: {error}") from None


MAX_RANGE_VALUES = 10_000  # each value is one build a sweep may ask for


def _option(name: str, table: _Table) -> Option:
    span = table.get("range", list)
    if span is not None:
        if len(span) != 2 or not all(isinstance(n, int) and not isinstance(n, bool) for n in span) \
                or span[0] > span[1]:
            raise table._error("range", "must be [lowest, highest], two whole numbers, the lowest first")
        if span[1] - span[0] >= MAX_RANGE_VALUES:
            raise table._error("range", f"spans {span[1] - span[0] + 1:,} values, more than an option may have "
                                        f"({MAX_RANGE_VALUES:,})")
        values = tuple(str(n) for n in range(span[0], span[1] + 1))
    else:
        values = table.strings("values", required=True)
    implies = table.get("implies", dict, {})
    for value, brought in implies.items():
        if value not in values:
            raise table._error(f"implies.{value}", f"is not one of the values ({' | '.join(values)})")
        if not isinstance(brought, dict) or not all(isinstance(v, str) for v in brought.values()):
            raise table._error(f"implies.{value}", 'must be a table of option = "value"')
    scenarios = table.strings("scenarios")
    known = {*SCENARIOS, *(s.group for s in SCENARIOS.values() if s.group)}
    for scenario in scenarios:
        if scenario not in known:
            raise table._error("scenarios", f"names '{scenario}', which is no scenario ({', '.join(sorted(known))})")
    requires = table.get("requires", dict, {})
    if not all(isinstance(value, str) for value in requires.values()):
        raise table._error("requires", 'must be a table of option = "value"')
    option = Option(name, table.get("summary", str, required=True), values, table.get("default", str, required=True),
                    table.get("define", str), table.get("inverted", bool, False), tuple(span) if span else None,
                    tuple((value, tuple(sorted(brought.items()))) for value, brought in sorted(implies.items())),
                    scenarios, tuple(sorted(requires.items())), table.get("default_without_clz", str))
    if option.default not in option.values:
        raise table._error("default", f"is not one of the values ({option.describe_values()})")
    if option.default_without_clz is not None and option.default_without_clz not in option.values:
        raise table._error("default_without_clz", f"is not one of the values ({option.describe_values()})")
    return option


FLASH_PLACEHOLDERS = ("port", "hex", "elf")  # what RealBoard.flash_command fills in


def _real_board(real: "_Table", stamp_timer: str) -> RealBoard:
    for index, argument in enumerate(real.strings("flash_arguments", required=True)):
        try:
            named = [field for _, field, _, _ in string.Formatter().parse(argument) if field is not None]
        except ValueError as error:  # an unmatched brace
            raise real._error(f"flash_arguments[{index}]", f"'{argument}' is not a valid template ({error})") from None
        unknown = [field for field in named if field not in FLASH_PLACEHOLDERS]
        if unknown:
            raise real._error(f"flash_arguments[{index}]",
                              f"'{argument}' names the placeholder {{{unknown[0]}}}, which is none of "
                              + ", ".join(f"{{{n}}}" for n in FLASH_PLACEHOLDERS) + " (write a brace as {{ or }})")
    return RealBoard(name=real.get("name", str, required=True), summary=real.get("summary", str, required=True),
                     flasher=real.get("flasher", str, required=True),
                     flasher_package=real.get("flasher_package", str, required=True),
                     flash_arguments=real.strings("flash_arguments", required=True),
                     stamp_timer=real.get("stamp_timer", str, stamp_timer))


def _latency_timer(table) -> LatencyTimer:
    timer = LatencyTimer(device=table.get("device", str, required=True), handler=table.get("handler", str, required=True),
                         clock_hz=table.get("clock_hz", int, required=True), irq=table.get("irq", int),
                         vector=table.get("vector", int), simavr_timer=table.get("simavr_timer", str),
                         least_counts=table.get("least_counts", int, 1), read_offset=table.get("read_offset", int, 0),
                         counts_down=table.get("counts_down", bool, False), bits=table.get("bits", int, 16),
                         tick_handler=table.get("tick_handler", str))
    return timer


def _board(path: Path) -> Target:
    top = _read(path)
    toolchain, simulator, stamp, scope = (top.table(key) for key in ("toolchain", "simulator", "stamp", "scope"))
    target = Target(
        name=top.get("name", str, required=True),
        summary=top.get("summary", str, required=True),
        cpu=top.get("cpu", str, required=True),
        f_cpu_hz=top.get("f_cpu_hz", int, required=True),
        flash_bytes=top.get("flash_bytes", int, required=True),
        ram_bytes=top.get("ram_bytes", int, required=True),
        memory=top.get("memory", str, "chip"),
        fpu=top.get("fpu", str),
        flash=flash_table(top.table("flash"), top.get("flash_bytes", int, required=True)),
        slow_memory=slow_memory_table(top.table("slow_memory")),
        max_tasks=top.get("max_tasks", int, 16),
        directory=path.parent,
        simulator=simulator.get("name", str, required=True),
        unit=simulator.get("unit", str, required=True),
        icount_shift=simulator.get("icount_shift", int, 0),
        timing_model=simulator.get("timing_model", str),
        machine=simulator.get("machine", str),
        caveat=simulator.get("caveat", str),
        devices=simulator.get("devices", str),
        default_unit=simulator.get("default_unit", str),
        exit_register=simulator.get("exit_register", int),
        core_config=simulator.get("config", str),
        stamp_timer=stamp.get("timer", str, required=True),
        stamp_clock_hz=stamp.get("clock_hz", int, required=True),
        stamp_address=stamp.get("address", int),
        gcc=toolchain.get("gcc", str),
        gcc_package=toolchain.get("packages", str, ""),
        cflags=toolchain.strings("cflags"),
        ldflags=toolchain.strings("ldflags"),
        rust_target=toolchain.get("rust_target", str),
        rust_workspace=toolchain.get("rust_workspace", str, "rust"),
        scope_pin=scope.get("pin", str),
        scope_high_edge=scope.get("high_edge", str),
        scope_low_edge=scope.get("low_edge", str),
        uart=top.table("uart").get("device", str, ""),
        uart_baud=top.table("uart").get("baud", int, 115_200),
        real_board=_real_board(top.table("real"), stamp.get("timer", str, "")) if "real" in top.data else None,
        code_directory=path.parent.parent / shared if (shared := top.table("code").get("from", str)) else None,
        latency_timer=(_latency_timer(top.table("latency_timer"))
                       if "latency_timer" in top.data and "unavailable" not in top.table("latency_timer").data else None),
        latency_unavailable=top.table("latency_timer").get("unavailable", str),
        not_applicable=tuple((s, top.table("not_applicable").get(s, str)) for s in top.table("not_applicable").data),
    )
    if target.name != path.parent.name:
        raise top._error("name", f"is '{target.name}', but the board's folder is '{path.parent.name}'")
    if target.code_directory is not None and (target.code_directory.parent != path.parent.parent
                                              or not (target.code_directory / "board.toml").is_file()):
        raise top.table("code")._error("from", f"names '{target.code_directory.name}', which is no board folder")
    for scenario, _why in target.not_applicable:
        if scenario not in SCENARIOS and not any(s.group == scenario for s in SCENARIOS.values()):
            raise top.table("not_applicable")._error(scenario, "is no scenario")
    if target.cpu not in CPU_HAS_CLZ:  # the facts of its instruction set that options rest on
        raise top._error("cpu", f"is '{target.cpu}', none of the CPUs whose instruction set switchscope knows "
                                f"({', '.join(CPU_HAS_CLZ)}: catalog/model.py, CPU_HAS_CLZ)")
    if target.memory not in MEMORIES:
        raise top._error("memory", f"must be one of {', '.join(MEMORIES)}")
    if target.simulator not in SIMULATORS:
        raise simulator._error("name", f"must be one of {', '.join(SIMULATORS)}")
    if target.unit not in UNITS:
        raise simulator._error("unit", f"must be one of {', '.join(UNITS)}")
    if target.default_unit is not None and target.default_unit not in target.units:
        raise simulator._error("default_unit", f"must be one of {', '.join(target.units)}")
    if target.timing_model is not None and target.timing_model not in TIMING_MODELS:
        raise simulator._error("timing_model", f"must be one of {', '.join(TIMING_MODELS)}")
    if target.simulator == "simavr" and target.exit_register is None:
        raise simulator._error("exit_register", "is needed on simavr: the I/O register the firmware exits through")
    if target.simulator == "verilator" and target.core_config is None:
        raise simulator._error("config", "is needed on verilator: the core's configuration (Ibex: small, maxperf, ...)")
    latency = target.latency_timer
    if latency is not None and target.simulator == "qemu" and latency.irq is None:
        raise top.table("latency_timer")._error("irq", "is needed on QEMU: the interrupt the NVIC shows pending")
    if latency is not None and target.simulator == "simavr" and not (latency.vector and latency.simavr_timer):
        raise top.table("latency_timer")._error("vector", "and simavr_timer are needed on simavr: the vector and "
                                                          "the timer whose compare unit A raises it")
    if target.simulator == "qemu" and target.scope_pin and not (target.scope_high_edge and target.scope_low_edge):
        raise scope._error("high_edge", "and low_edge are needed on QEMU: the labels of the pin's stores")
    return target


def _kernel(path: Path, language: str, targets: dict[str, Target]) -> Kernel:
    top = _read(path)
    name = top.get("name", str, required=True)
    if name != path.parent.name:
        raise top._error("name", f"is '{name}', but the kernel's folder is '{path.parent.name}'")
    if top.get("language", str, language) != language:
        raise top._error("language", f"must be '{language}' for a kernel in {path.parent.parent}")
    options_table = top.table("options")
    options = tuple(_option(key, options_table.table(key)) for key in options_table.data)
    ports_table = top.table("ports")
    ports = []
    by_name = {option.name: option for option in options}
    def check_option_values(table: _Table, key: str, pairs: dict) -> None:
        for option, value in pairs.items():
            if option not in by_name:
                raise table._error(f"{key}.{option}", f"is no option of this kernel ({', '.join(by_name) or 'none'})")
            if value not in by_name[option].values:
                raise table._error(f"{key}.{option}", f"is {value!r}, not one of the option's values "
                                                      f"({by_name[option].describe_values()})")

    for option in options:
        for value, brought in option.implies:
            check_option_values(options_table.table(option.name), f"implies.{value}", dict(brought))
        check_option_values(options_table.table(option.name), "requires", dict(option.requires))
    for cpu in ports_table.data:
        port = ports_table.table(cpu)
        defaults = port.get("defaults", dict, {})
        check_option_values(port, "defaults", defaults)
        ports.append(Port(cpu, port.get("dir", str, required=True), tuple(sorted(defaults.items())),
                          port.strings("files"), port.strings("include_dirs")))
    conflicts = []
    for index, entry in enumerate(top.get("conflicts", list, [])):
        conflict = _Table(entry, path, f"conflicts[{index}].")
        conflicts.append(Conflict(tuple(sorted(conflict.get("when", dict, required=True).items())),
                                  conflict.get("why", str, required=True), conflict.get("hint", str)))
    source = None
    if "source" in top.data:
        table = top.table("source")
        manifest = path.parent / table.get("manifest", str, required=True)
        if not manifest.resolve().is_relative_to(path.parent.resolve()):
            raise table._error("manifest", f"leads out of the kernel's folder {path.parent}: "
                                           "the pinned Cargo.toml belongs in it (e.g. source/Cargo.toml)")
        source = CrateSource(table.get("crate", str, required=True), manifest,
                             table.get("root", str, ""), table.strings("files", required=True),
                             table.strings("include_dirs"))
    not_applicable = top.table("not_applicable")
    if language == "c":
        # a C kernel runs on every board with C board code and a CPU it has a port for
        cpus = {port.cpu for port in ports}
        runs_on = tuple(t.name for t in targets.values() if t.has_c_board and t.cpu in cpus)
    else:
        runs_on = top.strings("targets", required=True)
    for target in runs_on:
        if target not in targets:
            raise top._error("targets", f"names '{target}', which is no board (firmware/boards/*/board.toml)")
    not_ported = top.table("not_ported")
    for target in not_ported.data:
        if target not in targets:
            raise not_ported._error(target, "is no board (firmware/boards/*/board.toml)")
        if target in runs_on:
            raise not_ported._error(target, "is in targets: a kernel either runs on a target or says why not")
    marks, unavailable = _switch_marks(top.table("switches")) if "switches" in top.data else (None, None)
    application_files = []
    for file_name in top.strings("application_files"):
        file = path.parent / file_name
        if file.parent != path.parent or file.suffix != ".c" or not file.is_file():
            raise top._error("application_files", f"names '{file_name}', which is no C file of the kernel's folder "
                                                  f"{path.parent}")
        application_files.append(file)
    return Kernel(name=name, title=top.get("title", str, name), summary=top.get("summary", str, required=True),
                  language=language, directory=path.parent, targets=runs_on,
                  not_applicable=tuple((s, not_applicable.get(s, str)) for s in not_applicable.data),
                  not_ported=tuple((t, not_ported.get(t, str)) for t in not_ported.data),
                  options=options, ports=tuple(ports), conflicts=tuple(conflicts), source=source,
                  switches=marks, switches_unavailable=unavailable, application_files=tuple(application_files))


def _switch_marks(table: "_Table") -> tuple[SwitchMarks | None, str | None]:
    """[switches]: what marks a switch in a firmware built on the kernel, or why nothing does."""
    if "unavailable" in table.data:
        return None, table.get("unavailable", str)
    return SwitchMarks(table.get("current", str, required=True), table.get("task_struct", str, required=True),
                       table.get("name_field", str, required=True), table.get("name_bytes", int, 16),
                       table.strings("switch_path", required=True), table.strings("tick"),
                       table.strings("helpers"), table.get("tick_interrupt", int)), None


@dataclass(frozen=True)
class Catalog:
    kernels: dict[str, Kernel]
    targets: dict[str, Target]


@functools.lru_cache(maxsize=8)
def _load(firmware: Path) -> Catalog:
    targets = {t.name: t for t in map(_board, sorted(firmware.glob("boards/*/board.toml")))}
    kernels = {}
    for language, pattern in (("c", "kernels/*/kernel.toml"), ("rust", "rust/kernels/*/kernel.toml")):
        for path in sorted(firmware.glob(pattern)):
            kernel = _kernel(path, language, targets)
            if kernel.name in kernels:
                raise SwitchscopeError(f"{path}: a kernel named '{kernel.name}' exists already")
            kernels[kernel.name] = kernel
    return Catalog(kernels, targets)


def current() -> Catalog:
    """The kernels and targets of the firmware tree in use (paths.firmware_dir())."""
    return _load(paths.firmware_dir())
