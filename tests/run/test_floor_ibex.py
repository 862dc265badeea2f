"""The floor kernel on Ibex's RTL (boards ibex and ibex-maxperf): every scenario the board can run gives the same
samples run after run, probe, scope and marker read the same switch, the floor is below FreeRTOS, `run --floor`
shows FreeRTOS as a multiple of it, and the switch itself takes what Ibex's documentation says its instructions
take. Its interrupt path (isr, irq-latency, the NMI of irq_priority=high) runs by every method, keeps an interrupted
task's registers, mepc and machine mode across switches, and costs well below FreeRTOS's.

The documentation is the package's doc/03_reference/pipeline_details.rst (pythondata-cpu-ibex 0.0.post2937):
line 35, "when an instruction stalls for X cycles X + 1 cycles pass"; in the table at lines 39-90, integer
computation (line 42) stalls 0: 1 cycle; load/store (lines 48-54) stall "1 - N", N the data memory's wait
states, none in simple_system: 2 cycles; jump (lines 67-73) stalls at least 1: 2 cycles. This holds for the
two-stage pipeline only (lines 26-30: the writeback stage of maxperf is left undocumented)."""

import dataclasses
import json
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import job, run_command
from ibex_checks import assert_a_partial_sweep_repeats, latency_job
from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.figures.measure import measure
from switchscope.figures.measure_elf import measure_elf
from switchscope.run.runner import run

pytestmark = pytest.mark.firmware  # every test here builds the model and firmware and runs them

IBEX = ("ibex", "ibex-maxperf")
INTEGER, LOAD_STORE = 0 + 1, 1 + 1  # stall cycles + 1 (lines 35, 42, 48-54)
CALLEE_SAVED = ["ra"] + [f"s{n}" for n in range(12)]  # the RISC-V psABI's ilp32: what a called function keeps


def _runnable(target: str) -> list[str]:
    """The switch scenarios the floor measures on the board (the latency scenarios are tested below)."""
    floor, probe = catalog.KERNELS["floor"], catalog.METHODS["probe"]
    return [name for name, s in catalog.SCENARIOS.items()
            if not s.latency and not s.suite and floor.not_measured(catalog.TARGETS[target], s, probe) is None]


def test_the_floor_lists_both_ibex_boards_and_the_call_level_scenarios():
    assert set(IBEX) <= set(catalog.KERNELS["floor"].targets)
    for target in IBEX:
        assert {"resume", "signal", "yield", "rotate", "sem-shuffle", "deadlock-raise", "deadlock-release", "msg",
                "ruler", "isr"} <= set(_runnable(target))


@pytest.mark.parametrize("target", IBEX)
@pytest.mark.parametrize("scenario", [name for name, s in catalog.SCENARIOS.items() if not s.latency and not s.suite])
def test_every_scenario_runs_on_ibex_with_the_same_samples_twice(scenario, target):
    if scenario not in _runnable(target):
        pytest.skip(f"{scenario} is not measured on {target}")
    first, again = (measure(job(scenario, target, "floor"), samples=100) for _ in range(2))
    assert first.count >= 95 and first.count + first.excluded == 100
    assert first.samples == again.samples
    if scenario == "ruler":  # each block is N nops, 1 cycle each: the floor's tick stays out of the windows
        assert first.samples == [INTEGER * n for n in first.sample_tags]
    else:
        assert first.stats.min == first.stats.max  # the RTL has no variance of its own


@pytest.mark.parametrize("target", IBEX)
# isr's window holds the board's entry and handler, the floor's trap entry, its give and its switch
@pytest.mark.parametrize("scenario", ["yield", "signal", "isr"])
def test_probe_scope_and_marker_read_identical_samples(scenario, target):
    """Every method's build is one layout (firmware/include/switchscope/probe.h), so Ibex, which fetches aligned
    words (instruction_fetch.rst), meets the same landings in each, and the three read the same cycles."""
    results = {method: measure(dataclasses.replace(job(scenario, target, "floor"), method=catalog.METHODS[method]),
                               samples=100)
               for method in ("probe", "scope", "marker")}
    assert results["probe"].samples == results["scope"].samples == results["marker"].samples, {
        method: result.stats.median for method, result in results.items()}


@pytest.mark.parametrize("target", IBEX)
def test_the_floors_yield_is_below_freertos_on_ibex(target):
    least = measure(job("yield", target, "floor"), samples=100).stats.median
    freertos = measure(job("yield", target, "freertos"), samples=100).stats.median
    assert least < freertos, (least, freertos)


def test_run_floor_on_ibex_shows_freertos_as_a_multiple_of_the_floor(tmp_path, capsys):
    out = tmp_path / "yield.json"
    status, said = run_command(["run", "--target", "ibex", "--scenario", "yield", "--samples", "100", "--floor",
                                "--json", str(out), "--quiet"], capsys)
    assert status == 0, said
    results = {r["kernel"]: r for r in json.loads(out.read_text())["results"]}
    assert set(results) == {"freertos", "floor"}
    kernel, least = results["freertos"], results["floor"]
    assert kernel["floor"]["median"] == least["stats"]["median"] and kernel["floor"]["target"] == "ibex"
    assert kernel["x_floor"] == round(kernel["stats"]["median"] / least["stats"]["median"], 2) > 1
    assert f"{kernel['x_floor']:.2f}" in said and "x floor" in said


def _disassembly(elf, symbol: str) -> list[tuple[int, str, str]]:
    """(address, mnemonic, operands) of each instruction of `symbol`, as binutils prints them."""
    text = subprocess.run(["riscv64-unknown-elf-objdump", "-d", "-M", "no-aliases,numeric", f"--disassemble={symbol}",
                           str(elf)], capture_output=True, text=True, check=True).stdout
    found = []
    for line in text.splitlines():
        parts = re.match(r"\s+([0-9a-f]+):\s+[0-9a-f]+\s+(\S+)\s*(.*)", line)
        if parts:
            found.append((int(parts[1], 16), parts[2], parts[3].strip()))
    return found


ABI_NAMES = {"x1": "ra", "x2": "sp", "x8": "s0", "x9": "s1", "x10": "a0", "x11": "a1", **{f"x{n}": f"s{n - 16}" for n in range(18, 28)}}


def test_the_switch_keeps_exactly_the_callee_saved_registers_in_the_documented_cycles():
    """floor_switch from its first instruction to its `ret`, on the two-stage small: what the disassembly holds,
    counted by hand with pipeline_details.rst's costs. The frame is 16 words (sp stays 16-byte aligned):
        addi sp, sp, -64                     1 integer       1
        sw ra, s0-s11 into the frame        13 stores       26
        sw sp, 0(a0)  (into `from`)          1 store         2
        lw sp, 0(a1)  (out of `to`)          1 load          2
        lw ra, s0-s11 out of the frame      13 loads        26
        addi sp, sp, 64                      1 integer       1
                                                            58 cycles
    Interrupts are masked across it (mstatus.MIE clear): nothing else can fall in between."""
    chosen = job("yield", "ibex", "floor")
    elf = build(chosen.kernel, chosen.target, chosen.scenario).elf
    code = _disassembly(elf, "floor_switch")
    named = [(mnemonic.removeprefix("c."), re.sub(r"x\d+", lambda m: ABI_NAMES.get(m[0], m[0]), operands))
             for _, mnemonic, operands in code]
    stores = [re.match(r"(\w+),(\d+)\(sp\)", operands) for mnemonic, operands in named[1:14]]
    loads = [re.match(r"(\w+),(\d+)\(sp\)", operands) for mnemonic, operands in named[16:29]]
    assert [m[1] for m in stores] == CALLEE_SAVED and [m[1] for m in loads] == CALLEE_SAVED
    assert [int(m[2]) for m in stores] == [int(m[2]) for m in loads] == [4 * n for n in range(13)]
    assert [mnemonic for mnemonic, _ in named] == (["addi16sp"] + ["swsp"] * 13 + ["sw", "lw"] + ["lwsp"] * 13
                                                   + ["addi16sp", "jr"]), named
    assert named[14] == ("sw", "sp,0(a0)") and named[15] == ("lw", "sp,0(a1)")
    expected = INTEGER + 13 * LOAD_STORE + LOAD_STORE + LOAD_STORE + 13 * LOAD_STORE + INTEGER
    assert expected == 58
    ret = code[-1][0]
    result = measure_elf(elf, catalog.TARGETS["ibex"], "floor_switch", hex(ret), count=50, time_limit=120)
    assert result.samples == [expected] * 50


# Interrupts: the floor's trap entry (portable/rv32/port.c, floor_trap_entry) for the harness's software interrupt and
# latency timer, through the board's board_interrupt() (firmware/boards/ibex/board_config.h).

_FIGURES: dict[str, tuple[int | None, str, dict]] = {}


def _floor_interrupt_figures(target: str, capsys) -> tuple[int | None, str, dict]:
    """`switchscope run --kernel floor --scenario isr,irq-latency --method all` on the target, once for the file:
    its status, what it said and its results by (scenario, method)."""
    if target not in _FIGURES:
        with tempfile.TemporaryDirectory() as folder:
            figures = Path(folder) / "figures.json"
            status, said = run_command(["run", "--target", target, "--kernel", "floor", "--scenario", "isr,irq-latency",
                                        "--method", "all", "--samples", "200", "--json", str(figures)], capsys)
            results = ({(r["scenario"], r["method"]): r for r in json.loads(figures.read_text())["results"]}
                       if figures.exists() else {})
        _FIGURES[target] = status, said, results
    return _FIGURES[target]


@pytest.mark.parametrize("target", ["ibex"])  # two whole sweeps: the small core stands for both
def test_isr_and_irq_latency_run_on_the_floor_by_every_method(target, capsys):
    status, said, results = _floor_interrupt_figures(target, capsys)
    assert status == 0, said
    assert set(results) == {("isr", "probe"), ("isr", "scope"), ("isr", "marker"), ("irq-latency", "probe"),
                            ("irq-latency", "marker")}, said  # irq-latency is timed by the probe or the simulator
    for method in ("probe", "scope", "marker"):
        isr = results["isr", method]
        assert isr["count"] == 200 and isr["excluded"] == 0
        assert isr["stats"]["min"] == isr["stats"]["max"], isr["stats"]  # the RTL has no variance of its own
    probe, marker = results["irq-latency", "probe"], results["irq-latency", "marker"]
    assert probe["stats"] == marker["stats"] and probe["worst"]["cycles"] == marker["worst"]["cycles"]
    for latency in (probe, marker):
        assert latency["phases"]["covered"] == latency["phases"]["period"] > 100  # every cycle of the loop, once
        assert latency["config"]["latency_irq"] == "irq_fast_i[0]"
    # the probe's read of mcycle in the board's entry, less read_offset, is the cycle the harness saw the vector's
    # first instruction start, on every sample of the sweep and of the tick round
    assert "the probe and the simulator's own view agree on 9280 of 9280 samples (differences 0 to 0 cycles)" in said
    # the floor masks every interrupt (mstatus.MIE) while it changes its state and across a switch: its worst is
    # that stretch, its call-level switch between the two tasks; and somewhere its loop runs unmasked
    assert marker["worst"]["held"] and marker["worst"]["held_from_function"].startswith("ss_signal_")
    assert marker["stats"]["min"] <= 4


@pytest.mark.parametrize("target", IBEX)
def test_two_floor_isr_runs_and_two_irq_latency_sweeps_repeat_exactly(target):
    chosen = job("isr", target, "floor")
    firmware = build(chosen.kernel, chosen.target, chosen.scenario)
    first, second = (run(chosen.target, firmware.elf, ["samples=100"], 100, time_limit=120) for _ in range(2))
    assert first.exit_code == 0 and len(first.stream.samples) == 100
    assert first.stream.samples == second.stream.samples  # the raw stamps

    assert_a_partial_sweep_repeats(latency_job(target, kernel="floor"))


@pytest.mark.parametrize("target", IBEX)
def test_a_task_switched_out_by_an_interrupt_gets_back_its_registers_mepc_and_machine_mode(target):
    """tests/firmware/interrupted_rv32_registers.c: the low task is interrupted with ra, t0-t6 and a0-a7 all set,
    kept with its interrupt frame while the high task runs and takes an interrupt of its own (whose mret leaves
    mepc and mstatus.MPP at U), and resumed by the high task's call-level switch. A register lost fails the run by
    name; a wrong mepc or MPP (user mode) makes an exception, which fails it too. Tag 1: every register back."""
    result = measure(job("interrupted_rv32_registers", target, "floor"), samples=200)
    assert result.count + result.excluded == 200 and set(result.sample_tags) == {1}


def _marker_median(scenario_job) -> float:
    return measure(dataclasses.replace(scenario_job, method=catalog.METHODS["marker"]), samples=100).stats.median


@pytest.mark.parametrize("target", IBEX)
def test_the_floors_isr_is_below_freertos(target):
    least, freertos = (_marker_median(job("isr", target, kernel)) for kernel in ("floor", "freertos"))
    assert least < freertos, (least, freertos)


@pytest.mark.parametrize("target", ["ibex"])  # a whole sweep each: the small core stands for both
def test_irq_priority_high_on_the_floor_is_the_nmi_which_nothing_masks(target):
    """irq_priority=high arms the timer on irq_nm_i: taken whatever mstatus.MIE (exception_interrupts.rst, line
    56), so none of the floor's masked stretches holds it; the board's handler stamps and returns, never entering
    the floor."""
    result = measure(latency_job(target, kernel="floor", irq_priority="high"), samples=1)
    agreement = result.details["agreement"]
    assert agreement["equal"] == agreement["samples"] == 8192 + 1088
    assert result.phases["covered"] == result.phases["period"]
    # the entry (4 cycles, tests/run/test_irq_latency.py) and at most a load's or a jump's rest
    assert result.stats.max <= 6
    assert result.config["latency_irq"] == "irq_nm_i"
