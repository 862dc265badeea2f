"""FreeRTOS on Ibex's RTL under Verilator (boards ibex and ibex-maxperf): the
switch scenarios measure in the core's own cycles, every run gives the same
samples, and the ruler and the probe's own cost read what Ibex's documentation
says its instructions take.

The documentation is the package's doc/03_reference/pipeline_details.rst
(pythondata-cpu-ibex 0.0.post2937): line 35, "when an instruction stalls for X
cycles X + 1 cycles pass"; the table at lines 39-90: integer computation
(line 42) stalls 0, so takes 1 cycle; CSR access (line 45) stalls 0: 1 cycle;
load/store (lines 48-54) stall "1 - N", N the memory's wait states, 0 in
simple_system: 2 cycles in the two-stage small. The three-stage maxperf has the
writeback stage, which lines 26-30 leave undocumented ("The details of its
impact are not yet documented here"): there a store nothing waits on takes 1
cycle, as measured (test_each_instruction_group_takes_its_documented_cycles)."""

import dataclasses
import json
import subprocess

import pytest

from conftest import run_command
from ibex_checks import assembled, assert_a_partial_sweep_repeats, latency_job
from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.figures.measure import measure
from switchscope.run.runner import run
from test_irq_latency import IBEX_ENTRY

pytestmark = pytest.mark.firmware  # every test here builds the model and firmware and runs them

IBEX = {"ibex": "small", "ibex-maxperf": "maxperf"}
INTEGER, CSR = 0 + 1, 0 + 1  # stall cycles + 1 (lines 35, 42, 45)
STORE = {"small": 1 + 1, "maxperf": 1}  # lines 48-54 at zero wait states; maxperf's writeback stage, as measured


@pytest.mark.parametrize("target", IBEX)
def test_yield_on_ibex_measures_in_the_cores_own_cycles(target, capsys):
    status, said = run_command(["run", "--target", target, "--scenario", "yield", "--samples", "200"], capsys)
    assert status == 0, said
    assert "unit: cycles (Ibex RTL)" in said
    # the provenance names the core's version, its configuration and Verilator's version
    assert "on Ibex 0.0.post2937-" in said and f"({IBEX[target]}) RTL on Verilator 5." in said, said
    assert "yield       200     0" in said  # every window kept: the 1 ms tick falls outside them


@pytest.mark.parametrize("target", IBEX)
@pytest.mark.parametrize("scenario", ["yield", "isr"])  # a call's switch, and an interrupt's
def test_two_runs_of_one_firmware_give_identical_samples(make_job, scenario, target):
    chosen = make_job(scenario, target=target)
    firmware = build(chosen.kernel, chosen.target, chosen.scenario)
    first = run(chosen.target, firmware.elf, ["samples=200"], 200, time_limit=120)
    second = run(chosen.target, firmware.elf, ["samples=200"], 200, time_limit=120)
    assert first.exit_code == 0 and first.stream.complete and len(first.stream.samples) == 200
    assert first.stream.samples == second.stream.samples  # the raw stamps, not only their differences
    assert first.stream.calibration == second.stream.calibration


@pytest.mark.parametrize("target", IBEX)
def test_the_ruler_and_the_probes_cost_read_the_documented_cycles(make_job, target):
    result = measure(make_job("ruler", target=target), samples=70)
    # each block is N `nop`s (addi x0, x0, 0), integer computations of 1 cycle each
    assert result.unit == "cycles" and result.excluded == 0
    assert result.samples == [INTEGER * n for n in result.sample_tags]
    assert set(result.sample_tags) == {0, 1, 2, 3, 10, 100, 1000}
    # the probe's cost, calibrated: from the opening stamp's csrr mcycle to the closing one's, the opening's
    # sw and the closing's lui and csrr (board_config.h, BOARD_STAMP_TO)
    assert result.overhead == STORE[IBEX[target]] + INTEGER + CSR


# The three methods are three builds of one scenario, and Ibex fetches aligned 32-bit words
# (instruction_fetch.rst, line 36: after a jump the penalty is "at least two cycles if the instruction following
# the branch is uncompressed and not aligned"): were the probe's stamps and the scope's pin stores to move the
# kernel's code, a window would meet such landings a number of times of its own in each build. Every method's
# build is one layout (firmware/include/switchscope/probe.h; tests/build/test_one_layout.py), so the three
# read the same cycles, sample for sample. rotate and deadlock-break open and close their windows in several places.
ONE_WINDOW_SCENARIOS = ("resume", "signal", "yield", "isr", "sem-shuffle", "msg")


@pytest.mark.parametrize("target", IBEX)
@pytest.mark.parametrize("scenario", ONE_WINDOW_SCENARIOS)
def test_probe_scope_and_marker_read_identical_samples(make_job, scenario, target):
    results = {name: measure(dataclasses.replace(make_job(scenario, target=target), method=catalog.METHODS[name]),
                             samples=100)
               for name in ("probe", "scope", "marker")}
    for result in results.values():
        assert result.excluded == 0 and result.stats.min == result.stats.max  # the RTL has no variance of its own
    assert results["probe"].samples == results["scope"].samples == results["marker"].samples, {
        name: result.stats.median for name, result in results.items()}


@pytest.mark.parametrize("target", IBEX)
def test_rotate_and_deadlock_break_measure_by_every_method(target, tmp_path, capsys):
    """The scenarios that open and close their windows in several places: every method measures them, each
    sample alike, and the three methods alike."""
    figures = tmp_path / "figures.json"
    status, said = run_command(["run", "--target", target, "--scenario", "rotate,deadlock-break", "--method", "all",
                                "--samples", "50", "--json", str(figures), "--quiet"], capsys)
    assert status == 0, said
    found = {(r["scenario"], r["method"]): r["stats"] for r in json.loads(figures.read_text())["results"]}
    assert set(found) == {(scenario, method) for scenario in ("rotate", "deadlock-raise", "deadlock-release")
                          for method in ("probe", "scope", "marker")}, set(found)
    assert all(stats["min"] == stats["max"] for stats in found.values()), found
    for scenario in ("rotate", "deadlock-raise", "deadlock-release"):  # one layout: one figure
        assert found[(scenario, "probe")] == found[(scenario, "scope")] == found[(scenario, "marker")], scenario


# Each group of tests/firmware/ibex_instruction_groups.c, by pipeline_details.rst (lines 35 and 39-90: stall
# cycles + 1): integer 1 (line 42), load/store 2 (48-54), jump 2 (67-72), taken branch 3, 2 with the branch
# target ALU (77-89), not taken 1 (74-75), MUL 3 fast / 1 single-cycle, MULH 4 / 2 (56-61); DIV 37, and 2 by
# zero, as instruction_decode_execute.rst line 147 says ("it takes 37 cycles to compute (though only requires 2
# cycles when there is a divide by 0)"; the table's "1 or 37" stall cycles would make 38); a compressed
# instruction costs its expansion (instruction_fetch.rst). The three-stage maxperf is not documented there
# (lines 26-30): its loads and stores that nothing waits on take 1 cycle, as measured.
GROUPS = ("alu", "load", "store", "jump", "taken", "not_taken", "mul", "mulh", "div", "div_zero", "compressed")
GROUP_CYCLES = {
    "small": dict(alu=8 * INTEGER, load=4 * 2, store=4 * 2, jump=4 * 2, taken=4 * 3, not_taken=4 * 1, mul=4 * 3,
                  mulh=2 * 4, div=37, div_zero=2, compressed=8 * INTEGER),
    "maxperf": dict(alu=8 * INTEGER, load=4 * 1, store=4 * 1, jump=4 * 2, taken=4 * 2, not_taken=4 * 1, mul=4 * 1,
                    mulh=2 * 2, div=37, div_zero=2, compressed=8 * INTEGER),
}


@pytest.mark.parametrize("target", IBEX)
@pytest.mark.parametrize("method", ["probe", "marker"])
def test_each_instruction_group_takes_its_documented_cycles(make_job, method, target):
    """The probe's reads of mcycle, its calibrated cost subtracted, and the marker's watch log of the harness
    give every group the same documented cycles, in every window."""
    job = dataclasses.replace(make_job("ibex_instruction_groups", target=target), method=catalog.METHODS[method])
    result = measure(job, samples=4 * len(GROUPS))
    assert result.excluded == 0
    found = {}
    for tag, cycles in zip(result.sample_tags, result.samples):
        found.setdefault(GROUPS[tag], set()).add(cycles)
    assert found == {group: {cycles} for group, cycles in GROUP_CYCLES[IBEX[target]].items()}


def test_the_ibex_firmware_links_no_c_library_but_the_boards_own_functions():
    """picolibc is not installed by set-up: FreeRTOS builds against the board's string.h and stdlib.h and links
    libgcc alone, the board's libc.c defining what the kernel calls."""
    target = catalog.TARGETS["ibex"]
    assert "-nostdlib" in target.ldflags and not any("picolibc" in flag or flag == "-lc"
                                                     for flag in (*target.cflags, *target.ldflags))
    elf = build(catalog.KERNELS["freertos"], target, catalog.SCENARIOS["yield"]).elf
    symbols = subprocess.run(["riscv64-unknown-elf-nm", "--line-numbers", str(elf)], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    # "address T name<TAB>file:line", the file read from the image's debug information
    defined = {line.split()[2]: line.partition("\t")[2] for line in symbols if " T " in line}
    string_functions = {name: where for name, where in defined.items()
                        if name in ("memset", "memcpy", "memcmp", "strlen", "strstr")}
    assert {"memset", "memcpy"} <= set(string_functions)  # what gcc itself calls for copies and zeroing
    assert all(where.startswith(f"{target.board_code / 'libc.c'}:") for where in string_functions.values()), \
        string_functions


def test_an_arm_elf_is_refused_on_ibex(tmp_path):
    from switchscope.common.errors import SwitchscopeError
    from switchscope.figures.measure_elf import check_built_for

    arm = build(catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["yield"]).elf
    with pytest.raises(SwitchscopeError, match="is built for Arm \\(Cortex-M\\), and ibex is RISC-V"):
        check_built_for(arm, catalog.TARGETS["ibex"])


# isr and irq-latency: the harness's software interrupt and latency timer (host/verilator-harness/harness.cc),
# FreeRTOS's RISC-V port entering the board's board_interrupt() for them (firmware/boards/ibex/board_config.h).

# The software interrupt from a run of nops, in a bare program: its line rises in the cycle after the store's
# (board_config.h, SOFT_IRQ), and with interrupts vectored (mtvec mode 1) the core enters at mtvec + 4 x 3
# (exception_interrupts.rst: "the base address plus four times the interrupt ID"; the software interrupt is 3),
# in the 4 cycles an interrupt takes on either of the latency timer's lines (tests/run/test_irq_latency.py).
SOFT_INTERRUPT = """
    .option norvc
    .section .boot, "ax"
    .globl _start, raise, soft_vector
_start:
    j setup
    .org 0x80                    # 0x100100: mtvec's 256-byte alignment
vectors:
    .rept 3
    j hang
    .endr
soft_vector:
    j soft_handler
    .rept 28
    j hang
    .endr
setup:
    la t0, vectors
    ori t0, t0, 1
    csrw mtvec, t0
    li t0, 8
    csrs mie, t0
    csrsi mstatus, 8
    li s1, 0x20014
    li s2, 1
raise:
    sw s2, 0(s1)
    .rept 16
    nop
    .endr
    j raise
soft_handler:
    sw zero, 0(s1)
    mret
hang:
    j hang
"""
SOFT_LINE_AFTER_STORE = 1


@pytest.mark.parametrize("target", IBEX)
def test_the_software_interrupt_is_entered_at_its_vector_as_the_latency_timers_lines_are(target, tmp_path):
    from switchscope.figures.measure_elf import measure_elf

    program = assembled(tmp_path, SOFT_INTERRUPT)
    result = measure_elf(program, catalog.TARGETS[target], "raise", "soft_vector", count=8, time_limit=60)
    assert result.samples == [SOFT_LINE_AFTER_STORE + IBEX_ENTRY] * 8


@pytest.mark.parametrize("target", IBEX)
def test_isr_switches_on_the_way_out_of_the_handler(make_job, target):
    result = measure(make_job("isr", target=target), samples=200)
    assert result.excluded == 0 and result.stats.min == result.stats.max
    # well above yield's (the handler, FreeRTOS's trap entry and exit and the switch all fall in the window)
    assert result.stats.median > measure(make_job("yield", target=target), samples=50).stats.median + 100


@pytest.mark.parametrize("target", IBEX)
def test_irq_latency_on_ibex_the_probe_and_the_rtls_own_view_agree_on_every_sample(target):
    """A probe run also logs the harness's view (the cycle the line rose, the cycle the vector's first
    instruction started): the probe, its entry's read of mcycle less [latency_timer] read_offset, must
    agree with it on every sample, the tick round's included."""
    result = measure(latency_job(target), samples=1)
    agreement = result.details["agreement"]
    taken = agreement["samples"]
    assert taken == 8192 + 1088  # the round (figures/latency.py) and the tick round
    assert agreement == {"samples": taken, "equal": taken, "least_difference": 0, "largest_difference": 0,
                         "unit": "cycles"}
    assert result.phases["covered"] == result.phases["period"] > 500  # every cycle of the loop, once
    # FreeRTOS's critical sections and its trap handler (the switch, entered by ecall) clear mstatus.MIE:
    # the worst case is the one masked the longest, in the give
    assert result.worst["function"] == "xQueueGenericSend" and result.stats.max > 200
    assert result.stats.min <= 4


@pytest.mark.parametrize("target", ["ibex"])  # a whole sweep each: the small core stands for both
def test_irq_latency_marker_on_ibex_is_the_rtls_view_and_sees_the_same_worst_code(target):
    marker = measure(latency_job(target, "marker"), samples=1)
    assert marker.unit == "cycles" and marker.phases["covered"] == marker.phases["period"] > 500
    assert marker.worst["function"] == "xQueueGenericSend" and marker.stats.max > 200


@pytest.mark.parametrize("target", ["ibex"])  # a whole sweep each: the small core stands for both
def test_irq_priority_high_is_the_nmi_which_nothing_masks(target):
    """irq_priority=high arms the timer on irq_nm_i: taken whatever mstatus.MIE (exception_interrupts.rst,
    line 56), so no critical section holds it; the handler stamps and returns, never entering the kernel."""
    result = measure(latency_job(target, irq_priority="high"), samples=1)
    agreement = result.details["agreement"]
    assert agreement["equal"] == agreement["samples"]
    assert result.phases["covered"] == result.phases["period"]
    # the entry (4 cycles, tests/run/test_irq_latency.py) and at most a load's or a jump's rest
    assert result.stats.max <= 6
    assert result.config["latency_irq"] == "irq_nm_i"


@pytest.mark.parametrize("target", IBEX)
def test_an_irq_latency_sweep_repeats_exactly(target):
    assert_a_partial_sweep_repeats(latency_job(target))


@pytest.mark.parametrize("target", IBEX)
def test_breakdown_of_a_yield_lists_the_trap_handlers_instructions_at_their_documented_cycles(make_job, target):
    from switchscope.figures.breakdown import breakdown

    found = breakdown(make_job("yield", target=target), sample=3, time_limit=120)
    assert found.total == found.measured  # the lines add up to the marker's figure for that window
    steps = [step for step in found.steps if step.address is not None]
    assert steps[0].function == "window" and steps[-1].function == "ss_yield"
    trap = [step for step in steps if step.function == "freertos_risc_v_trap_handler"]
    texts = [step.text.split()[0] for step in steps]
    assert "ecall" in texts and "mret" in texts  # the trap's entry and its return, each on its line
    # the context save: 28 stores of the registers in a row (FreeRTOS's portCONTEXT_SIZE), each a store to the
    # one-cycle RAM: 2 cycles on small (load/store stall 1, lines 35 and 48-54), 1 on maxperf (its writeback)
    saves = [step for step in trap if step.text.startswith("sw ") and "(sp)" in step.text]
    assert len(saves) >= 28 and all(step.cycles == STORE[IBEX[target]] for step in saves[:28]), saves
    # CSR reads, 1 cycle each (line 45)
    assert all(step.cycles == CSR for step in trap if step.text.startswith("csrr")), trap
