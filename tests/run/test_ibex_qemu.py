"""ibex-qemu: the ibex board's firmware on QEMU's riscv32 virt machine, in
the instructions QEMU counts.

Expected figures come from the RISC-V ISA (The RISC-V Instruction Set Manual,
Volume I, Unprivileged ISA, 20191213: section 2.4, "NOP ... encoded as ADDI
x0, x0, 0", one instruction each; Volume II, Privileged, 20211203, section
3.1.11, mcycle and minstret) and from QEMU's virt with -icount shift=0: each
instruction takes 2**0 = 1 ns of virtual time, which mcycle counts (QEMU's
target/riscv get_ticks: the icount clock), so a read of mcycle after N
instructions reads N more. The probe's stamp is `lui; csrr mcycle; sw`
(board_config.h, BOARD_STAMP_TO): from one stamp's csrr to the next's, the
first's sw and the second's lui and csrr, 3 instructions."""

import pytest

from conftest import run_command
from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.catalog.job import Job
from switchscope.decode import layout
from switchscope.figures.measure import measure

pytestmark = pytest.mark.firmware

STAMP_INSTRUCTIONS = 1 + 1 + 1  # sw, lui, csrr: one instruction each (ISA, RV32I)
# the same three in cycles: a store stalls at least one cycle, lui and csrr none (pipeline_details.rst's table;
# "when an instruction stalls for X cycles X + 1 cycles pass"): 2 + 1 + 1, as on the RTL (docs/measurement.md)
STAMP_CYCLES = 2 + 1 + 1


def _job(scenario: str, target: str = "ibex-qemu", kernel: str = "freertos", method: str = "probe",
         unit: str = "instructions") -> Job:
    return Job(catalog.KERNELS[kernel], catalog.TARGETS[target], catalog.SCENARIOS[scenario],
               catalog.METHODS[method], unit=unit)


def test_the_catalogue_lists_ibex_qemu(capsys):
    status, said = run_command(["list", "targets"], capsys)
    assert status == 0 and "ibex-qemu" in said, said
    target = catalog.TARGETS["ibex-qemu"]
    assert target.simulator == "qemu" and target.simulated_machine == "virt" and target.unit == "instructions"
    assert target.timing_model == "ibex-small" and target.default_unit == "cycles"
    assert target.latency_timer is None and "mtimecmp" in target.latency_unavailable


@pytest.mark.parametrize("kernel", ["freertos", "floor"])
def test_the_rtl_and_the_virt_images_lay_every_function_out_alike(kernel):
    """Built from the same sources and flags, the two images differ in devices and RAM origin only: every
    function at the same offset from the RAM's start, with the same size."""
    rtl = build(catalog.KERNELS[kernel], catalog.TARGETS["ibex"], catalog.SCENARIOS["yield"]).elf
    virt = build(catalog.KERNELS[kernel], catalog.TARGETS["ibex-qemu"], catalog.SCENARIOS["yield"]).elf
    assert layout.ram_origin(rtl) == 0x100000 and layout.ram_origin(virt) == 0x8000_0000
    assert layout.first_difference(rtl, 0x100000, virt, 0x8000_0000) is None


def test_the_layout_check_names_the_first_function_that_moves(tmp_path):
    rtl = build(catalog.KERNELS["floor"], catalog.TARGETS["ibex"], catalog.SCENARIOS["yield"]).elf
    other = build(catalog.KERNELS["floor"], catalog.TARGETS["ibex"], catalog.SCENARIOS["signal"]).elf
    found = layout.first_difference(rtl, 0x100000, other, 0x100000)
    assert found is not None and found.function  # another scenario's code: something moves, and it is named
    # the same image against itself, shifted by a wrong origin: its first function is off
    assert layout.first_difference(rtl, 0x100000, rtl, 0x100004).function


@pytest.mark.parametrize("unit, stamp_cost", [("instructions", STAMP_INSTRUCTIONS), ("cycles", STAMP_CYCLES)])
def test_the_ruler_reads_n(unit, stamp_cost):
    result = measure(_job("ruler", unit=unit), samples=70)
    assert result.unit == unit and result.excluded == 0
    assert result.samples == [n for n in result.sample_tags]  # N nops, one instruction and one cycle each
    assert set(result.sample_tags) == {0, 1, 2, 3, 10, 100, 1000}
    assert result.overhead == stamp_cost


@pytest.mark.smoke  # the fresh machines' proof that QEMU's riscv32 runs the firmware
@pytest.mark.parametrize("kernel", ["freertos", "floor"])
def test_the_same_firmware_gives_the_same_samples_twice(kernel):
    first = measure(_job("yield", kernel=kernel), samples=20)
    second = measure(_job("yield", kernel=kernel), samples=20)
    assert first.samples == second.samples and first.overhead == second.overhead
    assert first.stats.min == first.stats.max  # no variance of its own under -icount


def test_every_scenario_runs_in_instructions(capsys, tmp_path):
    status, said = run_command(["run", "--target", "ibex-qemu", "--kernel", "freertos,floor", "--scenario", "all",
                                "--unit", "instructions", "--samples", "10", "--json", str(tmp_path / "all.json")],
                               capsys)
    assert status == 0, said
    assert "unit: instructions" in said
    for scenario in ("yield", "signal", "resume", "isr", "msg"):
        assert f"\n  {scenario} " in said, scenario


def test_the_three_methods_agree_on_the_window_less_their_costs():
    """The marker counts the window itself; the probe and the scope subtract their calibrated costs. The
    probe's stamp and the scope's stores are instructions in the window's code, so the kernel's path is
    the same: each reads the marker's figure."""
    readings = {method: measure(_job("yield", kernel="floor", method=method), samples=10).stats.median
                for method in ("marker", "probe", "scope")}
    assert readings["probe"] == readings["marker"] == readings["scope"], readings


def test_measure_switches_is_refused_with_where_to_measure_them(capsys):
    firmware = build(catalog.KERNELS["freertos"], catalog.TARGETS["ibex-qemu"], catalog.SCENARIOS["yield"]).elf
    status, said = run_command(["measure", "--switches", "--kernel", "freertos", "--target", "ibex-qemu",
                                str(firmware)], capsys)
    assert status == 2 and "--target ibex" in said, said
