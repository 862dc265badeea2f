"""What switchscope can measure: kernels, targets, scenarios and methods.

Adding a kernel, a target or a scenario starts here; the firmware for each
lives under firmware/ with the same name.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from switchscope.errors import UnknownName


@dataclass(frozen=True)
class Kernel:
    name: str
    title: str
    summary: str
    language: str = "c"  # "c": firmware/kernels/<name> with the target's gcc; "rust": the cargo workspace firmware/rust
    targets: tuple[str, ...] = ()  # where it is ported; empty: every target
    methods: tuple[str, ...] = ()  # the methods its port supports; empty: all
    not_applicable: tuple[tuple[str, str], ...] = ()  # (scenario, why it has no meaning for this kernel)

    def not_measured(self, target: "Target", scenario: "Scenario", method: "Method") -> str | None:
        """Why this kernel cannot give a figure for the combination, or None."""
        for name, why in self.not_applicable:
            if name == scenario.name:
                return why
        if self.targets and target.name not in self.targets:
            return f"{self.title} is not ported to {target.name} yet"
        if self.methods and method.name not in self.methods:
            return f"the {self.title} port supports {', '.join(self.methods)} only, not {method.name}"
        return None


@dataclass(frozen=True)
class Target:
    name: str
    cpu: str
    f_cpu_hz: int
    summary: str
    gcc: str  # compiler executable; binutils share its prefix
    gcc_package: str  # Debian packages that provide it
    cflags: tuple[str, ...]
    ldflags: tuple[str, ...]  # "{board}" stands for the board's firmware directory
    simulator: str  # "qemu" or "simavr"
    freertos_port: str  # directory under FreeRTOS-Kernel/portable
    unit: str  # what the simulator counts: "instructions" or "cycles"
    flash_bytes: int
    ram_bytes: int
    max_tasks: int = 16  # most tasks the rotate scenario can create (the kernel heap's limit)
    rust_target: str | None = None  # the Rust target triple, for Rust kernels
    rust_workspace: str = "rust"  # the cargo workspace under firmware/ that builds for it
    icount_shift: int = 0  # QEMU -icount shift: each instruction takes 2**shift ns of virtual time

    def counts_per_unit(self, stamp_clock_hz: int) -> Fraction:
        """Stamp-timer counts per measured unit. Under QEMU icount a timer at
        f Hz advances f * 2**shift / 1e9 counts per instruction; on a
        cycle-counting simulator it advances f / f_cpu counts per cycle."""
        if self.simulator == "qemu":
            return Fraction(stamp_clock_hz * 2**self.icount_shift, 10**9)
        return Fraction(stamp_clock_hz, self.f_cpu_hz)

    def vcd_scale(self) -> tuple[str, int]:
        """A VCD timescale that resolves one unit exactly, and its steps per unit:
        virtual time (2**shift ns per instruction) under QEMU, the clock period
        (62.5 ns = 625 x 100 ps at 16 MHz) on a cycle-counting simulator."""
        if self.simulator == "qemu":
            return "1 ns", 2**self.icount_shift
        period_ps = Fraction(10**12, self.f_cpu_hz)
        for step_ps, name in ((100, "100 ps"), (10, "10 ps"), (1, "1 ps")):
            if (period_ps / step_ps).denominator == 1:
                return name, int(period_ps / step_ps)
        raise ValueError(f"no VCD timescale resolves one cycle at {self.f_cpu_hz} Hz")

    @property
    def ns_per_unit(self) -> Fraction | None:
        """Nanoseconds per unit, where the unit is a true clock cycle."""
        return Fraction(10**9, self.f_cpu_hz) if self.unit == "cycles" else None


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    check: bool = False  # a self-test of the ruler, not a switch; left out of "all"
    source: Path | None = None  # default: firmware/scenarios/<name>.c


@dataclass(frozen=True)
class Method:
    name: str
    summary: str


KERNELS = {
    k.name: k
    for k in [
        Kernel("freertos", "FreeRTOS", "FreeRTOS-Kernel V11.2.0 from the crates.io package freertos-next =0.12.0",
               targets=("mps2-an385", "atmega328p")),
        Kernel("rtic", "RTIC", "rtic 2.4.0 (Rust): tasks are interrupt handlers with static priorities",
               language="rust", targets=("lm3s6965evb",), methods=(),
               not_applicable=(("yield", "RTIC has no yield: tasks of one priority run until they await an event"),
                               ("rotate", "RTIC priorities are fixed when the application is built"))),
        Kernel("embassy", "Embassy", "embassy-executor 0.10.0 (Rust, async): thread-mode executor, and an interrupt "
                                     "executor for the more urgent task", language="rust",
               targets=("mps2-an385", "atmega328p"), methods=(),
               not_applicable=(("resume", "an Embassy task cannot be suspended and resumed by another task"),
                               ("rotate", "an Embassy task has no priority to change: its urgency is the executor "
                                          "it runs in"))),
        Kernel("lilos", "lilos", "lilos 1.3.0 (Rust, async): one cooperative executor, interrupts masked while "
                                 "polling", language="rust", targets=("mps2-an385",), methods=(),
               not_applicable=(("resume", "a lilos task cannot be suspended and resumed by another task"),
                               ("rotate", "lilos tasks have no priorities to change"))),
    ]
}

TARGETS = {
    t.name: t
    for t in [
        Target(
            name="mps2-an385",
            cpu="cortex-m3",
            f_cpu_hz=25_000_000,
            summary="Arm MPS2 AN385, Cortex-M3 at 25 MHz, on QEMU with -icount: counts instructions",
            gcc="arm-none-eabi-gcc",
            gcc_package="gcc-arm-none-eabi libnewlib-arm-none-eabi",
            cflags=("-mcpu=cortex-m3", "-mthumb"),
            ldflags=("-nostartfiles", "-T", "{board}/link.ld", "--specs=nano.specs"),
            simulator="qemu",
            freertos_port="GCC/ARM_CM3",
            unit="instructions",
            flash_bytes=4 * 1024 * 1024,
            ram_bytes=4 * 1024 * 1024,
            icount_shift=8,
            rust_target="thumbv7m-none-eabi",
        ),
        Target(
            name="lm3s6965evb",
            cpu="cortex-m3",
            f_cpu_hz=12_500_000,
            summary="TI Stellaris LM3S6965, Cortex-M3 at 12.5 MHz, on QEMU with -icount: counts instructions "
                    "(for kernels that need its PAC, as RTIC)",
            gcc="arm-none-eabi-gcc",
            gcc_package="gcc-arm-none-eabi libnewlib-arm-none-eabi",
            cflags=("-mcpu=cortex-m3", "-mthumb"),
            ldflags=(),
            simulator="qemu",
            freertos_port="GCC/ARM_CM3",
            unit="instructions",
            flash_bytes=256 * 1024,
            ram_bytes=64 * 1024,
            icount_shift=8,  # 12.5 MHz x 256 ns: 3.2 timer counts per instruction, still exact
            rust_target="thumbv7m-none-eabi",
        ),
        Target(
            name="atmega328p",
            cpu="atmega328p",
            f_cpu_hz=16_000_000,
            summary="ATmega328P at 16 MHz (Arduino Uno), on switchscope's simavr runner: counts cycles",
            gcc="avr-gcc",
            gcc_package="gcc-avr avr-libc",
            cflags=("-mmcu=atmega328p", "-DF_CPU=16000000UL"),
            ldflags=(),
            simulator="simavr",
            freertos_port="ThirdParty/GCC/ATmega",
            unit="cycles",
            flash_bytes=32 * 1024,
            ram_bytes=2 * 1024,
            max_tasks=4,
            rust_target="avr-none",
            rust_workspace="rust-avr",  # its own Cargo.lock: avr-device pins syn =2.0.110; a nightly (build-std)
        ),
    ]
}

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

METHODS = {
    m.name: m
    for m in [
        Method("probe", "on-target timer stamps around the switch, stamp cost calibrated and subtracted"),
        Method("scope", "a pin pulse around the switch, timed by the simulator: tCS = tCD - tAB (embOS method)"),
        Method("marker", "no code in the path: the simulator counts between two addresses of the firmware"),
    ]
}

# Not a measurement method: the marker build with a trace line printed inside
# the window, to show in the intrusion report what printing from tasks costs.
PRINT_IN_WINDOW = Method("print", "the marker build, printing a trace line inside the window")


def _select(kind: str, table: dict, requested: str) -> list:
    if requested == "all":
        return [item for item in table.values() if not getattr(item, "check", False)]
    if requested not in table:
        valid = ", ".join([*table, "all"])
        raise UnknownName(f"unknown {kind} '{requested}'", f"valid {kind}s: {valid} (see: switchscope list)")
    return [table[requested]]


def select_kernels(name: str) -> list[Kernel]:
    return _select("kernel", KERNELS, name)


def select_targets(name: str) -> list[Target]:
    return _select("target", TARGETS, name)


def select_scenarios(name: str) -> list[Scenario]:
    return _select("scenario", SCENARIOS, name)


def select_methods(name: str) -> list[Method]:
    return _select("method", METHODS, name)
