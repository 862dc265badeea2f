"""The figures themselves, pinned for the toolchain that produced them.

A figure is a property of the firmware, so of its compiler: Debian 13's
arm-none-eabi-gcc 14.2 builds a FreeRTOS whose `signal` is one instruction
shorter than Debian 12's gcc 12.2 builds. Each table row names the compiler
(as the result records it, reduced to its name and version) and the values
every kept sample of a 200-sample probe run takes, in each unit the target
counts (instructions, and cycles through the timing model, on QEMU). A
toolchain with no row, or a scenario its row has no figure for yet (the
Rhealstone scenarios with Debian 13's compilers, but for the two its CI root
measures: mps2-an385 in cycles, atmega328p), is skipped, saying so: the other
tests (rulers exact, methods agree, runs identical) hold on every toolchain.
"""

import re

import pytest

from conftest import core_alone
from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.common.tools import version_line
from switchscope.figures.measure import measure

GCC_12_ARM, GCC_14_ARM = "arm-none-eabi-gcc 12.2.1", "arm-none-eabi-gcc 14.2.1"  # Debian 12, Debian 13
GCC_5_AVR, GCC_14_AVR = "avr-gcc 5.4.0", "avr-gcc 14.2.0"
RUST_CORTEX_M = "rustc 1.95.0 (59807616e 2026-04-14)"  # firmware/rust/rust-toolchain.toml
RUST_AVR = "rustc 1.101.0-nightly (92b5b8c87 2026-10-29)"  # firmware/rust-avr/rust-toolchain.toml

# (kernel, target, compiler, unit) -> {scenario: the set of values its samples take}, probe method,
# default configuration; cycles on QEMU through the timing model of the board's core, at zero wait states on a
# board whose flash is modelled (conftest.CORE_ALONE)
REFERENCE = {
    ("freertos", "mps2-an385", GCC_12_ARM, "instructions"):
        {"resume": {143}, "signal": {200}, "yield": {54}, "isr": {197}, "rotate": {166},
         "sem-shuffle": {200}, "deadlock-raise": {481}, "deadlock-release": {286}, "msg": {261}},
    ("freertos", "mps2-an385", GCC_12_ARM, "cycles"):
        {"resume": {267}, "signal": {369}, "yield": {124}, "isr": {365}, "rotate": {296},
         "sem-shuffle": {369}, "deadlock-raise": {857}, "deadlock-release": {504}, "msg": {451}},
    ("freertos", "mps2-an385", GCC_14_ARM, "instructions"):
        {"resume": {143}, "signal": {199}, "yield": {54}, "isr": {198}, "rotate": {165}},
    ("freertos", "mps2-an385", GCC_14_ARM, "cycles"):
        {"resume": {264}, "signal": {367}, "yield": {124}, "isr": {365}, "rotate": {296},
         "sem-shuffle": {367}, "deadlock-raise": {850}, "deadlock-release": {503}, "msg": {448}},
    ("freertos", "mps2-an386", GCC_14_ARM, "instructions"):
        {"resume": {143}, "signal": {198}, "yield": {54}, "isr": {198}, "rotate": {164}},
    ("freertos", "mps2-an386", GCC_14_ARM, "cycles"):
        {"resume": {262}, "signal": {363}, "yield": {124}, "isr": {362}, "rotate": {294}},
    ("freertos", "mps2-an386", GCC_12_ARM, "instructions"):
        {"resume": {143}, "signal": {199}, "yield": {54}, "isr": {197}, "rotate": {165},
         "sem-shuffle": {199}, "deadlock-raise": {480}, "deadlock-release": {283}, "msg": {261}},
    ("freertos", "mps2-an386", GCC_12_ARM, "cycles"):
        {"resume": {262}, "signal": {364}, "yield": {124}, "isr": {361}, "rotate": {295},
         "sem-shuffle": {364}, "deadlock-raise": {853}, "deadlock-release": {489}, "msg": {446}},
    ("freertos", "atmega328p", GCC_5_AVR, "cycles"):
        {"resume": {472}, "signal": {656}, "yield": {275}, "isr": {673}, "rotate": {518},
         "sem-shuffle": {656}, "deadlock-raise": {1239}, "deadlock-release": {921}, "msg": {829}},
    ("freertos", "atmega328p", GCC_14_AVR, "cycles"):
        {"resume": {463}, "signal": {621}, "yield": {273}, "isr": {646}, "rotate": {523},
         "sem-shuffle": {621}, "deadlock-raise": {1232}, "deadlock-release": {878}, "msg": {793}},
    # the STM32 kits' image on QEMU's models: the instructions and the cycles of mps2's FreeRTOS for the same core
    ("freertos", "stm32vldiscovery", GCC_12_ARM, "instructions"):
        {"resume": {143}, "signal": {200}, "yield": {54}, "isr": {197}, "rotate": {166},
         "sem-shuffle": {200}, "deadlock-raise": {481}, "deadlock-release": {286}, "msg": {261}},
    ("freertos", "stm32vldiscovery", GCC_12_ARM, "cycles"):
        {"resume": {267}, "signal": {369}, "yield": {124}, "isr": {365}, "rotate": {296},
         "sem-shuffle": {369}, "deadlock-raise": {857}, "deadlock-release": {504}, "msg": {451}},
    ("freertos", "netduinoplus2", GCC_12_ARM, "instructions"):
        {"resume": {143}, "signal": {199}, "yield": {54}, "isr": {197}, "rotate": {165},
         "sem-shuffle": {199}, "deadlock-raise": {480}, "deadlock-release": {283}, "msg": {261}},
    ("freertos", "netduinoplus2", GCC_12_ARM, "cycles"):
        {"resume": {262}, "signal": {364}, "yield": {124}, "isr": {361}, "rotate": {295},
         "sem-shuffle": {364}, "deadlock-raise": {853}, "deadlock-release": {489}, "msg": {446}},
    ("freertos", "stm32vldiscovery", GCC_14_ARM, "instructions"):
        {"resume": {143}, "signal": {199}, "yield": {54}, "isr": {198}, "rotate": {165}},
    ("freertos", "stm32vldiscovery", GCC_14_ARM, "cycles"):
        {"resume": {264}, "signal": {367}, "yield": {124}, "isr": {365}, "rotate": {296}},
    ("freertos", "netduinoplus2", GCC_14_ARM, "instructions"):
        {"resume": {143}, "signal": {198}, "yield": {54}, "isr": {198}, "rotate": {164}},
    ("freertos", "netduinoplus2", GCC_14_ARM, "cycles"):
        {"resume": {262}, "signal": {363}, "yield": {124}, "isr": {362}, "rotate": {294}},
    # the Cortex-M0 (ARMv6-M: FreeRTOS's ARM_CM0 port); the M0+ runs the same image, so the same instructions
    # (tests/run/test_armv6m_kernels.py), timed by the M0+ manual
    ("freertos", "microbit", GCC_12_ARM, "instructions"):
        {"resume": {166}, "signal": {234}, "yield": {74}, "isr": {234}, "rotate": {175}, "sem-shuffle": {234},
         "deadlock-raise": {543}, "deadlock-release": {313}, "msg": {332}},
    ("freertos", "microbit", GCC_12_ARM, "cycles"):
        {"resume": {370}, "signal": {517}, "yield": {192}, "isr": {513}, "rotate": {382}, "sem-shuffle": {517},
         "deadlock-raise": {1165}, "deadlock-release": {668}, "msg": {700}},
    ("freertos", "microbit-m0plus", GCC_12_ARM, "cycles"):
        {"resume": {340}, "signal": {472}, "yield": {176}, "isr": {472}, "rotate": {350}, "sem-shuffle": {472},
         "deadlock-raise": {1054}, "deadlock-release": {612}, "msg": {640}},
    # the Cortex-M4F with its FPU on (FreeRTOS's ARM_CM4F port), fp_tasks=0
    ("freertos", "mps2-an386-fpu", GCC_12_ARM, "instructions"):
        {"resume": {151}, "signal": {207}, "yield": {62}, "isr": {205}, "rotate": {173}, "sem-shuffle": {207},
         "deadlock-raise": {488}, "deadlock-release": {291}, "msg": {269}},
    ("freertos", "mps2-an386-fpu", GCC_12_ARM, "cycles"):
        {"resume": {273}, "signal": {375}, "yield": {135}, "isr": {372}, "rotate": {306}, "sem-shuffle": {375},
         "deadlock-raise": {864}, "deadlock-release": {500}, "msg": {457}},
    ("rtic", "lm3s6965evb", RUST_CORTEX_M, "instructions"): {"resume": {40}, "signal": {159}, "isr": {4},
        "sem-shuffle": {134}, "msg": {166}},
    ("rtic", "lm3s6965evb", RUST_CORTEX_M, "cycles"): {"resume": {71}, "signal": {251}, "isr": {18},
        "sem-shuffle": {230}, "msg": {259}},
    # Embassy's first yield finds the run queue empty: it is the cheaper one
    ("embassy", "mps2-an385", RUST_CORTEX_M, "instructions"): {"signal": {83}, "yield": {67, 131}, "isr": {90},
        "sem-shuffle": {104}, "msg": {140}},
    ("embassy", "mps2-an385", RUST_CORTEX_M, "cycles"): {"signal": {145}, "yield": {110, 229}, "isr": {167},
        "sem-shuffle": {166}, "msg": {209}},
    ("embassy", "atmega328p", RUST_AVR, "cycles"): {"signal": {413}, "yield": {175, 495}, "isr": {490},
        "sem-shuffle": {513}, "msg": {478}},
    ("lilos", "mps2-an385", RUST_CORTEX_M, "instructions"): {"signal": {85}, "yield": {80}, "isr": {91},
        "sem-shuffle": {139}, "msg": {149}},
    ("lilos", "mps2-an385", RUST_CORTEX_M, "cycles"): {"signal": {143}, "yield": {138}, "isr": {174},
        "sem-shuffle": {242}, "msg": {226}},
}

PROBE = catalog.METHODS["probe"]
PINNED = {(kernel, target, unit) for kernel, target, _, unit in REFERENCE}
# every scenario of every kernel, target and unit that has figures pinned for some compiler; the others
# (floor, the Ibex RTL) are held by their rulers, the methods' agreement and the runs' identity, not here
CASES = [(kernel.name, target, scenario.name, unit)
         for kernel in catalog.KERNELS.values()
         for target in kernel.targets
         for unit in catalog.TARGETS[target].units
         if (kernel.name, target, unit) in PINNED
         for scenario in catalog.select_scenarios("all")
         if not scenario.latency  # its figures are checked step by step against the manuals (test_irq_latency.py)
         and not kernel.not_measured(catalog.TARGETS[target], scenario, PROBE, unit)]


def compiler_key(compiler: str) -> str:
    """gcc by name and version ("arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1 20221205" ->
    "arm-none-eabi-gcc 12.2.1"); rustc whole, since a nightly is named by its commit."""
    if compiler.startswith("rustc"):
        return compiler
    version = re.search(r"\) (\d+\.\d+\.\d+)", compiler)
    return f"{compiler.split()[0]} {version.group(1)}" if version else compiler


def test_compiler_key_keeps_what_tells_compilers_apart():
    assert compiler_key("arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1 20221205") == GCC_12_ARM
    assert compiler_key("arm-none-eabi-gcc (15:14.2.rel1-1) 14.2.1 20241119") == GCC_14_ARM
    assert compiler_key("avr-gcc (GCC) 5.4.0") == GCC_5_AVR
    assert compiler_key(RUST_AVR) == RUST_AVR


# A fresh installation's quick check (pytest -m smoke) measures one target of each simulator and toolchain
SMOKE = {("freertos", "mps2-an385"), ("freertos", "atmega328p"), ("rtic", "lm3s6965evb"), ("embassy", "atmega328p")}


def skip_unless_pinned(kernel: str, target: str, scenario: str, unit: str, compiler: str) -> dict:
    reference = REFERENCE.get((kernel, target, compiler, unit))
    if reference is None:
        known = sorted(c for k, t, c, u in REFERENCE if (k, t, u) == (kernel, target, unit))
        pytest.skip(f"no reference figures in {unit} for {kernel} on {target} built with {compiler} (known: {known})")
    if scenario not in reference:
        pytest.skip(f"no reference figure for {scenario} in {unit} for {kernel} on {target} built with {compiler}")
    return reference


@pytest.mark.firmware
@pytest.mark.parametrize("kernel,target,scenario,unit", [
    pytest.param(*case, marks=[pytest.mark.smoke] if case[:2] in SMOKE else []) for case in CASES])
def test_the_figures_of_this_toolchain_are_the_reference_ones(kernel, target, scenario, unit):
    if catalog.KERNELS[kernel].language == "c":  # its compiler is known before building: no build for a skip
        skip_unless_pinned(kernel, target, scenario, unit, compiler_key(version_line(catalog.TARGETS[target].gcc)))
    chosen = core_alone(catalog.TARGETS[target]) if unit == "cycles" else {}  # the chip as shipped: test_flash_model
    config = configs.resolve(chosen, catalog.KERNELS[kernel], catalog.TARGETS[target], catalog.SCENARIOS[scenario])
    result = measure(Job(catalog.KERNELS[kernel], catalog.TARGETS[target], catalog.SCENARIOS[scenario], PROBE,
                         config, unit=unit), samples=200)
    compiler = compiler_key(result.toolchain["compiler"])
    reference = skip_unless_pinned(kernel, target, scenario, unit, compiler)
    assert set(result.samples) == reference[scenario], f"{kernel} {target} {scenario} with {compiler}, {unit}"
    assert result.unit == unit
    assert result.count >= 150  # at most a quarter excluded (rotate's windows that catch the tick)
    if result.timing_model:  # a model's figure carries the range the core's manual allows, which holds it
        least, most = result.bound_stats
        assert least.min <= result.stats.min and result.stats.max <= most.max
        assert least.median <= result.stats.median <= most.median
    else:
        assert result.bounds is None
