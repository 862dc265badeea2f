"""What a kernel and a target (a board) are: the descriptions the rest of
switchscope works from. folders.py reads them from the firmware tree; the
scenarios are listed in scenarios.py."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from switchscope.catalog.memory import Flash, SlowMemory
from switchscope.common.errors import SwitchscopeError
from switchscope.decode.methods import Method

SIMULATORS = ("qemu", "simavr", "verilator")  # each the NAME of a module of run/ (runner.SIMULATORS; a test keeps them one)
UNITS = ("instructions", "cycles")
MEMORIES = ("chip", "machine")  # board.toml memory: whose flash_bytes and ram_bytes they are
TIMING_MODELS = ("cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m4f",  # what the QEMU plugin's timing model knows (cortex_m_timing.c)
                 "ibex-small")  # Ibex's small configuration (ibex-qemu's cycles)


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
    # other options' defaults a value brings, where the user chose none: (value, ((option, value), ...))
    implies: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    scenarios: tuple[str, ...] = ()  # the scenarios (or groups) whose firmware it changes; () every scenario
    requires: tuple[tuple[str, str], ...] = ()  # other options' values without which it changes nothing
    default_without_clz: str | None = None  # the default on a CPU with no count-leading-zeros instruction
    # what a target must have for it to change anything there (a Target attribute: "flash", its memory model);
    # None: every target
    target_needs: str | None = None

    def applies_to(self, scenario: "Scenario") -> bool:
        return not self.scenarios or scenario.name in self.scenarios or scenario.group in self.scenarios

    def applies_on(self, target: "Target") -> bool:
        return self.target_needs is None or getattr(target, self.target_needs) is not None

    def unmet(self, values: dict[str, str]) -> tuple[str, str] | None:
        """The first (option, value) it requires that `values` (a configuration's) lacks, or None."""
        return next(((name, value) for name, value in self.requires if values.get(name) != value), None)

    def defines(self, value: str) -> dict[str, str]:
        if self.define is None:
            return {}
        flags = {"on": "0", "off": "1"} if self.inverted else {"on": "1", "off": "0"}
        return {self.define: flags.get(value, value)}

    def describe_values(self) -> str:
        if self.numeric_range:
            low, high = self.numeric_range
            numbers = {str(n) for n in range(low, high + 1)}
            return " | ".join([*(value for value in self.values if value not in numbers), f"{low} to {high}"])
        return " | ".join(self.values)


@dataclass(frozen=True)
class Port:
    cpu: str
    directory: str  # inside the kernel's source tree
    defaults: tuple[tuple[str, str], ...] = ()  # option values this port imposes as defaults
    files: tuple[str, ...] = ()  # more of the kernel's files this port compiles ({port}: its directory)
    include_dirs: tuple[str, ...] = ()  # and its include directories


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
class SwitchMarks:
    """How a firmware built on a kernel shows its task switches (kernel.toml, [switches]), for
    `switchscope measure --switches`: a switch is a change of the current-task variable, made in the
    kernel's switching path, and the task's name is a member of what the variable points to."""
    current: str  # the current-task variable: FreeRTOS's pxCurrentTCB
    task_struct: str  # the type it points to (its name in the ELF's debug information)
    name_field: str  # the member of that type that holds the task's name
    name_bytes: int  # the most bytes of a name read
    switch_path: tuple[str, ...]  # the handler (Cortex-M) a switch is made in, by any of these symbol names
    tick: tuple[str, ...]  # the kernel tick's handler, by any of these names: a switch it causes is "tick"
    helpers: tuple[str, ...] = ()  # port functions a pended switch is taken in: the call is their caller's
    tick_interrupt: int | None = None  # RISC-V: the tick's interrupt (mcause), where one trap handler takes all


@dataclass(frozen=True)
class Kernel:
    name: str
    title: str
    summary: str
    language: str  # "c": its port beside kernel.toml, built with the target's gcc; "rust": its crate
    directory: Path
    targets: tuple[str, ...]  # where it runs
    not_applicable: tuple[tuple[str, str], ...] = ()  # (scenario, why it has no meaning for this kernel)
    not_ported: tuple[tuple[str, str], ...] = ()  # (target, why the kernel does not run there): kernel.toml [not_ported]
    options: tuple[Option, ...] = ()
    ports: tuple[Port, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    source: CrateSource | None = None  # None: its sources are the C files of its folder
    switches: SwitchMarks | None = None  # how its switches show in a firmware: measure --switches
    switches_unavailable: str | None = None  # why measure --switches cannot find them, where it cannot
    # the C files of its folder an application built on it links (the scenarios link every one): what the
    # kernel's configuration leaves to the application (FreeRTOS's RISC-V tick set-up)
    application_files: tuple[Path, ...] = ()

    def port(self, target: "Target") -> Port | None:
        return next((port for port in self.ports if port.cpu == target.cpu), None)

    def not_measured(self, target: "Target", scenario: "Scenario", method: Method,
                     unit: str | None = None) -> str | None:
        """Why this kernel cannot give a figure for the combination, or None."""
        if target.name not in self.targets:
            return dict(self.not_ported).get(target.name) or \
                f"{self.title} is ported to {', '.join(self.targets) or 'no target'} only"
        for name, why in (*self.not_applicable, *target.not_applicable):
            if name in (scenario.name, scenario.group):
                return why
        if self.language == "c" and not target.holds_tasks_of(scenario):
            return (f"{scenario.name} runs {scenario.tasks} tasks, and the kernel heap of {target.name}'s memory "
                    f"layout holds {target.max_tasks} (board.toml, max_tasks)")
        if scenario.latency:
            if target.latency_timer is None:
                return target.latency_unavailable or (f"{target.name}'s board code drives no latency timer "
                                                      "(board.toml, [latency_timer])")
            if method.name not in ("marker", "probe"):
                return (f"{scenario.name} is timed by the simulator (--method marker) or by the handler's read of "
                        "its timer (--method probe)")
            if method.name == "probe" and target.resolve_unit(unit) != target.unit:
                return (f"the probe reads {target.latency_timer.device}, which under {target.simulator} counts "
                        f"{target.unit}: use --unit {target.unit}, or --method marker for {unit or target.default_unit}")
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
class LatencyTimer:
    """The peripheral timer the irq-latency scenarios arm (board.toml, [latency_timer])."""
    device: str  # what it is: "CMSDK TIMER1", "Timer1 compare A"
    handler: str  # the symbol of the handler the interrupt enters first (the vector's target)
    clock_hz: int
    irq: int | None = None  # QEMU: the external interrupt the NVIC shows pending (the plugin watches it)
    vector: int | None = None  # simavr: the interrupt vector raised by ...
    simavr_timer: str | None = None  # ... the compare unit A of this timer of simavr's ("1")
    least_counts: int = 1  # the shortest delay the board's code can arm it for: the sweep's first
    read_offset: int = 0  # the probe: units (the simulator's) from the handler's first instruction to its read
    counts_down: bool = False
    bits: int = 16
    tick_handler: str | None = None  # the kernel tick's handler, where the board can aim at the tick; else None

    @property
    def interrupt(self) -> str:
        """Its interrupt by what it is, for a reader who knows neither the handler's symbol nor the device."""
        return f"the latency timer's interrupt ({self.device}, handler {self.handler})"


# Whether each CPU a board.toml names has a count-leading-zeros instruction, on which a kernel's task selection
# may be built (FreeRTOS's optimised_selection): ARMv7-M's CLZ (DDI 0403E, A7.7.24); ARMv6-M has none (DDI 0419E),
# RV32IMC none (clz is Zbb's, which Ibex's small and maxperf configurations leave out: RV32B None), RV32IM
# (VexRiscv_Full) none, the AVR none.
# Where a core has none, the compiler calls a software count (libgcc's __clzsi2) for __builtin_clz.
CPU_HAS_CLZ = {"cortex-m0": False, "cortex-m0plus": False, "cortex-m3": True, "cortex-m4": True, "cortex-m4f": True,
               "rv32imc": False, "rv32im": False, "atmega328p": False}
STAMP_CSRS = {"mcycle": 0xB00}  # a RISC-V probe's timer CSR, by board.toml's [stamp] timer
RISCV_CPUS = ("rv32imc", "rv32im")  # board.toml cpu values whose firmware is RISC-V (rv32im: VexRiscv_Full)


@dataclass(frozen=True)
class Target:
    name: str
    summary: str
    cpu: str
    f_cpu_hz: int
    flash_bytes: int
    ram_bytes: int
    directory: Path
    simulator: str  # "qemu", "simavr" or "verilator" (a core's RTL)
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
    machine: str | None = None  # QEMU's -machine, where it is not the board's name
    caveat: str | None = None  # what every result must say of the simulation (a core timed on another's machine)
    devices: str | None = None  # what the simulated machine models of the chip's peripherals, and what not
    default_unit: str | None = None  # what a measurement counts unless told (--unit): cycles where modelled
    exit_register: int | None = None  # simavr: the I/O register the firmware leaves its exit code in
    core_config: str | None = None  # verilator: the core's configuration (Ibex: a name of its ibex_configs.yaml)
    scope_pin: str | None = None
    scope_high_edge: str | None = None  # QEMU: labels of the stores that drive the pin high / low
    scope_low_edge: str | None = None
    uart: str = ""
    uart_baud: int = 115_200  # on a real board: the line's speed
    real_board: "RealBoard | None" = None  # the kit this target's image also runs on, read over a serial line
    latency_timer: LatencyTimer | None = None  # what the irq-latency scenarios arm; None: they cannot run here
    latency_unavailable: str | None = None  # why not, where board.toml says ([latency_timer] unavailable)
    not_applicable: tuple[tuple[str, str], ...] = ()  # (scenario, why the board cannot run it): board.toml
    memory: str = "chip"  # whose flash_bytes and ram_bytes: a chip's, or a simulated machine's ("machine")
    fpu: str | None = None  # the floating-point unit the build uses (board.toml fpu: "FPv4-SP"); None: none
    flash: "Flash | None" = None  # the chip's flash and accelerator the timing model charges; None: zero wait states
    slow_memory: "SlowMemory | None" = None  # a RAM whose wait states a run sets (an RTL's testbench); None: none

    @property
    def own_caches(self) -> "SlowMemory | None":
        """The slow RAM the core's own caches sit in front of (VexRiscv's), or None: a core without caches."""
        return self.slow_memory if self.slow_memory and self.slow_memory.caches else None

    @property
    def emptiable(self) -> "Flash | SlowMemory | None":
        """What cache=cold applies to: a flash model (its caches, or the reason it has none to empty), or a slow
        RAM with the core's own caches in front of it."""
        return self.flash or self.own_caches

    @property
    def simulated_machine(self) -> str:
        """The machine the simulator models: [simulator] machine, or the board's own name."""
        return self.machine or self.name

    def latency_counts_per_step(self) -> Fraction:
        """Latency-timer counts per step of the sweep: a cycle on a cycle-counting
        simulator; half an instruction of QEMU's virtual time (2**shift ns). QEMU
        raises a timer's interrupt at the first instruction boundary after its
        deadline, and deadlines a whole instruction apart meet some boundaries
        twice and pass others by; two steps per instruction meet every one."""
        per_unit = self.counts_per_unit(self.latency_timer.clock_hz)
        return per_unit / 2 if self.simulator == "qemu" else per_unit

    @property
    def has_clz(self) -> bool:
        """Whether its CPU has a count-leading-zeros instruction (CPU_HAS_CLZ)."""
        return CPU_HAS_CLZ[self.cpu]

    @property
    def is_riscv(self) -> bool:
        """Whether its firmware is RISC-V (Ibex), else Cortex-M or AVR."""
        return self.cpu in RISCV_CPUS

    @property
    def switches_unavailable(self) -> str | None:
        """Why measure --switches cannot find a firmware's task switches on this target, or None where it can."""
        if self.simulator == "qemu" and self.is_riscv:
            return "the QEMU plugin follows the Cortex-M exception flow only, not a RISC-V trap's"
        if "cycles" not in self.units:  # instructions alone, where no timing model turns them into cycles
            return "measure --switches counts cycles, and no timing model knows its core"
        return None

    @property
    def stamp_csr(self) -> int | None:
        """The CSR a RISC-V probe reads its timer from (csrr rd, mcycle), where the simulator can stamp it."""
        return STAMP_CSRS.get(self.stamp_timer) if self.is_riscv else None

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
            hint = (f"leave --unit out, or give --unit {self.unit}" if unit == "instructions"
                    else "cycles need a timing model ([simulator] timing_model in board.toml)")
            raise SwitchscopeError(f"{self.name} measures in {' or '.join(self.units)}, not {unit}", hint)
        return unit

    @property
    def board_code(self) -> Path:
        return self.code_directory or self.directory

    @property
    def has_c_board(self) -> bool:
        return (self.board_code / "board.c").is_file()

    def holds_tasks_of(self, scenario: "Scenario") -> bool:
        """Whether a C kernel's heap on this board holds the tasks the scenario creates (max_tasks)."""
        return scenario.tasks <= self.max_tasks

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
