"""What switchscope can measure: kernels, targets, scenarios and methods.

Kernels and targets are data, read from the firmware tree:
- a kernel is a folder with a kernel.toml: firmware/kernels/<name>/ for a C
  kernel (beside its port of kernel.h), firmware/rust/kernels/<name>/ for a
  Rust kernel (beside its crate). It says where the kernel's source comes
  from, its port for each CPU, its options and the combinations it refuses;
- a target is a board folder with a board.toml, firmware/boards/<name>/: its
  CPU and clock, memories, compiler, simulator, stamp timer, scope pin and
  UART. Its C board code, if it has any, sits beside it.
Adding either is adding a folder; this module only reads them. Scenarios are
the files of firmware/scenarios/, methods live in methods.py.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from switchscope import paths
from switchscope.errors import SwitchscopeError, UnknownName
from switchscope.methods import METHODS, PRINT_IN_WINDOW, Method  # noqa: F401  (re-exported)

SIMULATORS = ("qemu", "simavr")
UNITS = ("instructions", "cycles")
TIMING_MODELS = ("cortex-m3", "cortex-m4")  # what the QEMU plugin's timing model knows (cortex_m_timing.c)


@dataclass(frozen=True)
class Option:
    """A choice that changes the firmware, with its values and default."""
    name: str
    summary: str
    values: tuple[str, ...]
    default: str
    define: str | None = None  # the -D it sets: 1/0 for on/off, else the value itself
    inverted: bool = False  # the define is 1 for "off"
    numeric_range: tuple[int, int] | None = None  # values are the whole numbers of this range

    def defines(self, value: str) -> dict[str, str]:
        if self.define is None:
            return {}
        flags = {"on": "0", "off": "1"} if self.inverted else {"on": "1", "off": "0"}
        return {self.define: flags.get(value, value)}

    def describe_values(self) -> str:
        if self.numeric_range:
            return f"{self.numeric_range[0]} to {self.numeric_range[1]}"
        return " | ".join(self.values)


@dataclass(frozen=True)
class Port:
    cpu: str
    directory: str  # inside the kernel's source tree
    defaults: tuple[tuple[str, str], ...] = ()  # option values this port imposes as defaults


@dataclass(frozen=True)
class Conflict:
    """A combination a kernel refuses: every (key, value) of `when` matches,
    a key being an option, or cpu, target or scenario."""
    when: tuple[tuple[str, str], ...]
    why: str
    hint: str | None = None


@dataclass(frozen=True)
class CrateSource:
    """A kernel's C source inside a crates.io package, pinned by a manifest and
    its lock file beside the kernel.toml; cargo fetches it, nothing is copied."""
    crate: str
    manifest: Path
    root: str  # the kernel's tree inside the crate
    files: tuple[str, ...]  # relative to root; "{port}" is the port's directory
    include_dirs: tuple[str, ...]


@dataclass(frozen=True)
class Kernel:
    name: str
    title: str
    summary: str
    language: str  # "c": its port beside kernel.toml, built with the target's gcc; "rust": its crate
    directory: Path
    targets: tuple[str, ...]  # where it runs
    not_applicable: tuple[tuple[str, str], ...] = ()  # (scenario, why it has no meaning for this kernel)
    options: tuple[Option, ...] = ()
    ports: tuple[Port, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    source: CrateSource | None = None  # None: its sources are the C files of its folder

    def port(self, target: "Target") -> Port | None:
        return next((port for port in self.ports if port.cpu == target.cpu), None)

    def not_measured(self, target: "Target", scenario: "Scenario", method: Method,
                     unit: str | None = None) -> str | None:
        """Why this kernel cannot give a figure for the combination, or None."""
        if target.name not in self.targets:
            return f"{self.title} is not ported to {target.name} yet"
        for name, why in self.not_applicable:
            if name == scenario.name:
                return why
        return method.unavailable(target, self.language, target.resolve_unit(unit))


@dataclass(frozen=True)
class RealBoard:
    """A kit that runs a target's very image: how to flash it, and what it is called."""
    name: str  # what --target takes for it: arduino-uno
    summary: str
    flasher: str  # the program that writes the image: avrdude
    flasher_package: str  # the Debian package that has it
    flash_arguments: tuple[str, ...]  # {port} is the serial device, {hex} the Intel HEX image, {elf} the ELF
    stamp_timer: str  # what the probe reads on the chip (the simulated twin's may differ: SysTick on QEMU)

    @property
    def flashes_through_port(self) -> bool:
        """Whether flashing goes through the serial port read (a bootloader), not a debug probe."""
        return any("{port}" in argument for argument in self.flash_arguments)

    def flash_command(self, executable: str, port: str, hex_image: Path | None, elf_image: Path) -> list[str]:
        return [executable, *(a.format(port=port, hex=hex_image, elf=elf_image) for a in self.flash_arguments)]

    @property
    def by_hand(self) -> str:
        """How to flash it by hand, for messages: the command with its placeholders named."""
        return " ".join(self.flash_command(self.flasher, "PORT", Path("IMAGE.hex"), Path("IMAGE.elf")))


@dataclass(frozen=True)
class Target:
    name: str
    summary: str
    cpu: str
    f_cpu_hz: int
    flash_bytes: int
    ram_bytes: int
    directory: Path
    simulator: str  # "qemu" or "simavr"
    unit: str  # what the simulator itself counts: "instructions" or "cycles"
    stamp_timer: str
    stamp_clock_hz: int
    stamp_address: int | None = None  # the register the probe reads: where cycles stamp it on QEMU
    code_directory: Path | None = None  # where its C board code is: its folder, or the board it shares code with
    max_tasks: int = 16  # most tasks the rotate scenario can create (the kernel heap's limit)
    gcc: str | None = None  # C compiler; None: no C builds for this target
    gcc_package: str = ""  # Debian packages that provide it
    cflags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()  # "{board}" stands for the board's folder
    rust_target: str | None = None  # the Rust target triple, for Rust kernels
    rust_workspace: str = "rust"  # the cargo workspace under firmware/ that builds for it
    icount_shift: int = 0  # QEMU -icount shift: each instruction takes 2**shift ns of virtual time
    timing_model: str | None = None  # QEMU: the core whose cycles the plugin models
    default_unit: str | None = None  # what a measurement counts unless told (--unit): cycles where modelled
    exit_register: int | None = None  # simavr: the I/O register the firmware leaves its exit code in
    scope_pin: str | None = None
    scope_high_edge: str | None = None  # QEMU: labels of the stores that drive the pin high / low
    scope_low_edge: str | None = None
    uart: str = ""
    uart_baud: int = 115_200  # on a real board: the line's speed
    real_board: "RealBoard | None" = None  # the kit this target's image also runs on, read over a serial line

    @property
    def units(self) -> tuple[str, ...]:
        """What a measurement on this target can count: the simulator's own
        unit, and cycles where a timing model turns instructions into them."""
        return (self.unit, "cycles") if self.timing_model and self.unit != "cycles" else (self.unit,)

    def timing_model_for(self, unit: str) -> str | None:
        """The model that turned the simulator's count into `unit`, if one did."""
        return self.timing_model if unit != self.unit else None

    def resolve_unit(self, unit: str | None) -> str:
        if unit is None:
            return self.default_unit or self.unit
        if unit not in self.units:
            raise SwitchscopeError(f"{self.name} measures in {' or '.join(self.units)}, not {unit}",
                                   "cycles need a timing model ([simulator] timing_model in board.toml)")
        return unit

    @property
    def board_code(self) -> Path:
        return self.code_directory or self.directory

    @property
    def has_c_board(self) -> bool:
        return (self.board_code / "board.c").is_file()

    def counts_per_unit(self, stamp_clock_hz: int) -> Fraction:
        """Stamp-timer counts per measured unit. Under QEMU icount a timer at
        f Hz advances f * 2**shift / 1e9 counts per instruction; on a
        cycle-counting simulator it advances f / f_cpu counts per cycle."""
        if self.simulator == "qemu":
            return Fraction(stamp_clock_hz * 2**self.icount_shift, 10**9)
        return Fraction(stamp_clock_hz, self.f_cpu_hz)

    def vcd_scale(self, unit: str | None = None) -> tuple[str, int]:
        """A VCD timescale that resolves one unit exactly, and its steps per unit:
        virtual time (2**shift ns per instruction) for QEMU's instructions, the
        clock period (40 ns at 25 MHz; 62.5 ns = 625 x 100 ps at 16 MHz) for cycles.
        A period that is no whole number of picoseconds (24 MHz: 41,666.67 ps)
        gets one 1 ns step per cycle (vcd_steps_are_cycles): exact in cycles,
        not in seconds, and the file's comment says so."""
        if (unit or self.unit) == "instructions":
            return "1 ns", 2**self.icount_shift
        return self._cycle_step() or ("1 ns", 1)

    def vcd_steps_are_cycles(self, unit: str | None = None) -> bool:
        """Whether a VCD in this unit counts a step per cycle instead of the clock's real time."""
        return (unit or self.unit) == "cycles" and self._cycle_step() is None

    def _cycle_step(self) -> tuple[str, int] | None:
        """The coarsest timescale of 100, 10 or 1 ps that one clock period is a whole number of, and that number."""
        period_ps = Fraction(10**12, self.f_cpu_hz)
        for step_ps, name in ((100, "100 ps"), (10, "10 ps"), (1, "1 ps")):
            if (period_ps / step_ps).denominator == 1:
                return name, int(period_ps / step_ps)
        return None

    def ns_per_unit(self, unit: str | None = None) -> Fraction | None:
        """Nanoseconds per unit, where the unit is a clock cycle."""
        return Fraction(10**9, self.f_cpu_hz) if (unit or self.unit) == "cycles" else None

    def expected_meta(self) -> dict[str, str]:
        """What the firmware must say of its board in its stream."""
        facts = {"board": self.name, "cpu": self.cpu, "f_cpu_hz": str(self.f_cpu_hz),
                 "stamp_clock_hz": str(self.stamp_clock_hz)}
        if self.scope_pin:
            facts["scope_pin"] = self.scope_pin
        return facts


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    check: bool = False  # a self-test of the ruler, not a switch; left out of "all"
    source: Path | None = None  # default: firmware/scenarios/<name>.c


SCENARIOS = {
    s.name: s
    for s in [
        Scenario("resume", "a low-priority task resumes a suspended high-priority task (embOS method)"),
        Scenario("signal", "a low-priority task gives a signal a high-priority task waits on (BeRTOS method)"),
        Scenario("yield", "two tasks of equal priority yield to each other (cooperative switch)"),
        Scenario("isr", "an interrupt handler wakes a high-priority task that preempts the low-priority one"),
        Scenario("rotate", "N tasks (--tasks, default 2) rotated by priority changes, one sample per switch "
                           "(the Cortex-M3 study's method)"),
        Scenario("ruler", "self-test: times blocks of N no-ops, each must read exactly N", check=True),
    ]
}


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


def _read(path: Path) -> _Table:
    try:
        return _Table(tomllib.loads(path.read_text()), path)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SwitchscopeError(f"{path}: cannot be read: {error}") from None


def _option(name: str, table: _Table) -> Option:
    span = table.get("range", list)
    if span is not None:
        if len(span) != 2 or not all(isinstance(n, int) for n in span):
            raise table._error("range", "must be [lowest, highest]")
        values = tuple(str(n) for n in range(span[0], span[1] + 1))
    else:
        values = table.strings("values", required=True)
    option = Option(name, table.get("summary", str, required=True), values, table.get("default", str, required=True),
                    table.get("define", str), table.get("inverted", bool, False), tuple(span) if span else None)
    if option.default not in option.values:
        raise table._error("default", f"is not one of the values ({option.describe_values()})")
    return option


def _real_board(real: "_Table", stamp_timer: str) -> RealBoard:
    return RealBoard(name=real.get("name", str, required=True), summary=real.get("summary", str, required=True),
                     flasher=real.get("flasher", str, required=True),
                     flasher_package=real.get("flasher_package", str, required=True),
                     flash_arguments=real.strings("flash_arguments", required=True),
                     stamp_timer=real.get("stamp_timer", str, stamp_timer))


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
        max_tasks=top.get("max_tasks", int, 16),
        directory=path.parent,
        simulator=simulator.get("name", str, required=True),
        unit=simulator.get("unit", str, required=True),
        icount_shift=simulator.get("icount_shift", int, 0),
        timing_model=simulator.get("timing_model", str),
        default_unit=simulator.get("default_unit", str),
        exit_register=simulator.get("exit_register", int),
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
    )
    if target.name != path.parent.name:
        raise top._error("name", f"is '{target.name}', but the board's folder is '{path.parent.name}'")
    if target.code_directory is not None and not (target.code_directory / "board.toml").is_file():
        raise top.table("code")._error("from", f"names '{target.code_directory.name}', which is no board folder")
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
    for cpu in ports_table.data:
        port = ports_table.table(cpu)
        defaults = port.get("defaults", dict, {})
        ports.append(Port(cpu, port.get("dir", str, required=True), tuple(sorted(defaults.items()))))
    conflicts = []
    for index, entry in enumerate(top.get("conflicts", list, [])):
        conflict = _Table(entry, path, f"conflicts[{index}].")
        conflicts.append(Conflict(tuple(sorted(conflict.get("when", dict, required=True).items())),
                                  conflict.get("why", str, required=True), conflict.get("hint", str)))
    source = None
    if "source" in top.data:
        table = top.table("source")
        source = CrateSource(table.get("crate", str, required=True),
                             path.parent / table.get("manifest", str, required=True),
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
    return Kernel(name=name, title=top.get("title", str, name), summary=top.get("summary", str, required=True),
                  language=language, directory=path.parent, targets=runs_on,
                  not_applicable=tuple((s, not_applicable.get(s, str)) for s in not_applicable.data),
                  options=options, ports=tuple(ports), conflicts=tuple(conflicts), source=source)


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


def __getattr__(name: str):
    # KERNELS and TARGETS are read from the firmware tree on first use
    if name == "KERNELS":
        return current().kernels
    if name == "TARGETS":
        return current().targets
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _select(kind: str, table: dict, requested: str) -> list:
    if requested == "all":
        return [item for item in table.values() if not getattr(item, "check", False)]
    if requested not in table:
        valid = ", ".join([*table, "all"])
        raise UnknownName(f"unknown {kind} '{requested}'", f"valid {kind}s: {valid} (see: switchscope list)")
    return [table[requested]]


def select_kernels(name: str) -> list[Kernel]:
    return _select("kernel", current().kernels, name)


def real_boards() -> dict[str, Target]:
    """The real kits, by name, each with the target whose image it runs."""
    return {t.real_board.name: t for t in current().targets.values() if t.real_board}


def select_targets(name: str) -> list[Target]:
    """Targets by name; a real kit's name (arduino-uno) selects the target whose image it runs."""
    if name in real_boards():
        return [real_boards()[name]]
    try:
        return _select("target", current().targets, name)
    except UnknownName as error:
        boards = ", ".join(real_boards())
        raise UnknownName(error.message, f"{error.hint}; real boards (with --port): {boards}") from None


def select_scenarios(name: str) -> list[Scenario]:
    return _select("scenario", SCENARIOS, name)


def select_methods(name: str) -> list[Method]:
    return _select("method", METHODS, name)
