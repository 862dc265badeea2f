"""FreeRTOS and the floor on LiteX's VexRiscv_Full under Verilator (board vexriscv): the ruler reads what
VexRiscv's documentation says its pipeline takes, every run gives the same samples, warm and cold, the three
methods read the same windows, and a cold window costs its line refills, as the line size and the wait states
make them.

The documentation is the package's verilog/README.md (pythondata-cpu-vexriscv 1.0.1.post407): "5 stage :
F -> D -> E -> M -> WB + fully bypassed", "single cycle ADD/SUB/Bitwise/Shift ALU": in a warm cache a block of
N independent ALU instructions takes N cycles, one retiring a cycle. The caches' geometry is the variant's:
GenCoreDefault.scala builds VexRiscv_Full with InstructionCacheConfig and DataCacheConfig of cacheSize 4096,
bytePerLine 32, wayCount 1 (VexRiscv_Full.yaml: iBus bytePerLine 32, size 4096), behind 32-bit Wishbone
buses: a line refill is 8 beats, each 1 + N cycles with N wait states (host/verilator-harness/vexriscv.cc)."""

import dataclasses
import subprocess

import pytest

from conftest import run_command
from ibex_checks import assert_the_methods_read_the_same_windows, latency_job
from switchscope import catalog
from switchscope.build import vexriscv as model
from switchscope.build.firmware import build
from switchscope.catalog import configs
from switchscope.decode import elf
from switchscope.figures.measure import measure
from switchscope.run.runner import run

pytestmark = pytest.mark.firmware  # every test here builds the model and firmware and runs them

TARGET = "vexriscv"
ALU = 1  # README.md: single-cycle ALU, fully bypassed
LINE_BEATS = 32 // 4  # a 32-byte line over a 32-bit bus
CSR_READ = 3  # a csrr mcycle and the instruction after it: the read's own cost, as measured (no document gives it)


def test_yield_on_vexriscv_measures_in_the_cores_own_cycles(capsys):
    status, said = run_command(["run", "--target", TARGET, "--scenario", "yield", "--samples", "100"], capsys)
    assert status == 0, said
    assert "unit: cycles (VexRiscv RTL)" in said
    assert "on VexRiscv 1.0.1.post407-" in said and "(VexRiscv_Full) RTL on Verilator 5." in said, said


def test_the_ruler_and_the_probes_own_cost(make_job):
    """Each block is N nops (addi x0, x0, 0): N cycles once in the cache, and no fewer. Between two windows the
    harness's own code runs through more lines than the 4 KB direct-mapped cache holds beside the ruler's, so a
    window meets its block's lines refilled (test_csrr_reads_what_the_watch_log_says times a block that stays in
    the cache). The probe's own cost, calibrated from the cache: the csrr's 3 cycles, the opening's sw, the
    closing's lui and its csrr's own cycle."""
    result = measure(make_job("ruler", target=TARGET), samples=70)
    assert result.unit == "cycles" and result.excluded == 0
    assert all(cycles >= ALU * n for n, cycles in zip(result.sample_tags, result.samples))
    assert result.overhead == CSR_READ + 1 + 1 + 1


def reads(tmp_path, block: str, wait_states: int = 0) -> tuple[list[int], list[int]]:
    """A program of our own on the testbench: twice `block` between two csrr mcycle (watched, as first and
    second; the first at a line's start), its reads written out; the reads and the watch log's cycles, in order.
    The first time the block's lines are fetched from the RAM, the second time from the cache."""
    source = tmp_path / "reads.S"
    source.write_text(
        ".section .text\n.org 0x80\n.globl _start\n_start:\n li s1, 0x80020000\n li s2, 2\n"
        f"loop:\n .balign 32\nfirst: csrr a1, mcycle\n{block}\nsecond: csrr a2, mcycle\n"
        " mv a3, a1\n call out\n mv a3, a2\n call out\n addi s2, s2, -1\n bnez s2, loop\n"
        " li t0, 1\n sw t0, 8(s1)\n1: j 1b\n"
        "out: li t1, 4\n2: sw a3, 0(s1)\n srli a3, a3, 8\n addi t1, t1, -1\n bnez t1, 2b\n ret\n")
    script = tmp_path / "link.ld"
    script.write_text("ENTRY(_start)\nMEMORY { ram (rwx) : ORIGIN = 0x100000, LENGTH = 1M }\n"
                      "SECTIONS { .text : { *(.text) } > ram }\n")
    elf = tmp_path / "reads.elf"
    gcc = catalog.TARGETS[TARGET].gcc
    subprocess.run([gcc, "-march=rv32im", "-misa-spec=2.2", "-mabi=ilp32", "-nostdlib", "-nostartfiles", "-T",
                    str(script), "-o", str(elf), str(source)], check=True)
    symbols = subprocess.run([gcc.removesuffix("gcc") + "nm", str(elf)], capture_output=True, text=True).stdout
    address = {line.split()[2]: int(line.split()[0], 16) for line in symbols.splitlines()}
    done = subprocess.run([str(model.ensure("VexRiscv_Full")), "--watch", f"first={address['first']:#x}",
                           "--watch", f"second={address['second']:#x}", "--fetch-wait-states", str(wait_states),
                           "--data-wait-states", str(wait_states), str(elf)], capture_output=True)
    assert done.returncode == 0, done.stderr
    values = [int.from_bytes(done.stdout[i:i + 4], "little") for i in range(0, len(done.stdout), 4)]
    logged = [int(line.split()[0]) for line in done.stderr.decode().splitlines()
              if line.split()[1:] in (["first"], ["second"])]
    return values, logged


def test_csrr_reads_what_the_watch_log_says(tmp_path):
    """A watched instruction's cycle is the mcycle a csrr in its place reads: the testbench's log and the core's
    own reads agree, cold and warm; N addi between two csrr take N cycles once their lines are in the cache."""
    values, logged = reads(tmp_path, " .rept 16\n addi t0, t0, 1\n .endr")
    assert values == logged
    assert values[3] - values[2] == CSR_READ + 16 * ALU  # warm: the csrr's read, then a cycle an addi


@pytest.mark.parametrize("wait_states", [0, 2])
def test_an_instruction_line_refill_is_eight_beats(tmp_path, wait_states):
    """64 addi from the first csrr's line on, their first time: the 8 lines after it refilled, each 8 beats of
    1 + N cycles and the cache's own few, REFILL_OVERHEAD, as measured (no document gives it)."""
    lines = 8
    values, _logged = reads(tmp_path, f" .rept {8 * lines}\n addi t0, t0, 1\n .endr", wait_states)
    cold, warm = values[1] - values[0], values[3] - values[2]
    assert warm == CSR_READ + 8 * lines * ALU
    assert cold - warm == lines * (LINE_BEATS * (1 + wait_states) + REFILL_OVERHEAD)


@pytest.mark.parametrize("cache", ["warm", "cold"])
@pytest.mark.parametrize("scenario", ["yield", "isr"])
def test_two_runs_give_identical_samples(make_job, scenario, cache):
    chosen = make_job(scenario, target=TARGET)
    firmware = build(chosen.kernel, chosen.target, chosen.scenario)
    parameters = ["samples=100", *(["cold=1"] if cache == "cold" else [])]
    first = run(chosen.target, firmware.elf, parameters, 100, time_limit=120)
    second = run(chosen.target, firmware.elf, parameters, 100, time_limit=120)
    assert first.exit_code == 0 and first.stream.complete and len(first.stream.samples) == 100
    assert first.stream.samples == second.stream.samples
    assert first.stream.calibration == second.stream.calibration


LINE = 32  # bytes of an instruction-cache line


# Windows whose points fell, before the points were placed, where a line boundary split the methods: FreeRTOS
# msg (the opening's point ended a line: its window's first instruction started the next), the floor's
# deadlock-raise (a closing point's csrr started a line; cold, its window opens on a load that misses the data
# cache), rotate (windows that open in several places); and yield.
AGREEING = [("freertos", "yield", ""), ("floor", "yield", ""), ("freertos", "msg", ""),
            ("floor", "deadlock-raise", ""), ("freertos", "rotate", ""),
            ("freertos", "msg", "cold"), ("floor", "deadlock-raise", "cold")]


@pytest.mark.parametrize("kernel,scenario,cache", AGREEING, ids=["-".join(filter(None, case)) for case in AGREEING])
def test_probe_scope_and_marker_read_identical_samples(make_job, kernel, scenario, cache):
    """Every method's build lays out one program, runs the probe's calibration (its points empty where the
    method does not stamp: the tasks stand alike) and empties the caches before its first window: each then
    fetches the same lines in the same order. Where a line starts near a point decides which method pays its
    refill (the probe reads at its csrr, 4 bytes into a point, the scope at its store, the marker at its mark),
    so every point is placed (firmware/boards/vexriscv/board_machine.h): an opening 4 bytes into a line, the
    window's first instruction 16 bytes in, and a closing on 8 bytes, its reading never a line's first word.
    A load that misses the data cache is sent back and runs again: the harness times it at its first pass, as a
    csrr in its place would read (host/verilator-harness/vexriscv.cc). The three then read the same windows,
    sample for sample. Only where FreeRTOS's tick falls is a method's own: each method's points take their
    own few cycles, so a tick that falls between one run's tick-count reads around a window (which leaves
    that window out) can fall just outside another's."""
    options = {"cache": "cold", "fetch_wait_states": "2"} if cache else {}
    config = configs.resolve(options, catalog.KERNELS[kernel], catalog.TARGETS[TARGET], catalog.SCENARIOS[scenario])
    chosen = {name: dataclasses.replace(make_job(scenario, target=TARGET, kernel=kernel), config=config,
                                        method=catalog.METHODS[name]) for name in ("probe", "scope", "marker")}
    marked = build(chosen["marker"].kernel, chosen["marker"].target, chosen["marker"].scenario,
                   chosen["marker"].method, chosen["marker"].config).elf
    openings = elf.section_words(marked, ".debug_switchscope_open")
    closings = elf.section_words(marked, ".debug_switchscope_close")
    assert openings and closings
    assert all(mark % LINE == 4 + 12 for mark in openings), [hex(mark) for mark in openings]  # after the 12 bytes
    assert all(mark % 8 == 0 for mark in closings), [hex(mark) for mark in closings]
    results = {name: measure(job, samples=60) for name, job in chosen.items()}
    if not cache:  # the scope's bare pulse in one line: the high store's beat and the low point's lui
        assert results["scope"].overhead == 2
    assert_the_methods_read_the_same_windows(results, 60)


@pytest.mark.parametrize("wait_states", [0, 2])
def test_a_cold_window_costs_its_line_refills(make_job, wait_states):
    """cache=cold empties both caches before each window (fence.i, LiteX's 0x500F): the floor's yield then
    refills every instruction line it runs through (the window trace flags 11) and the data lines it loads
    (the stack's, the tasks' table), each at least 8 beats of 1 + N cycles. Warm, the window finds what the
    harness's code between two windows left of it in the 4 KB direct-mapped cache: how much depends on where
    the linker put the two, as the figures pinned below show."""
    def job(cache: str):
        chosen = {"fetch_wait_states": str(wait_states), "data_wait_states": str(wait_states), "cache": cache}
        return dataclasses.replace(make_job("yield", target=TARGET, kernel="floor"), method=catalog.METHODS["marker"],
                                   config=configs.resolve(chosen, catalog.KERNELS["floor"], catalog.TARGETS[TARGET],
                                                          catalog.SCENARIOS["yield"]))
    warm, chilled = measure(job("warm"), samples=20), measure(job("cold"), samples=20)
    assert chilled.memory["caches"] == "cold" and "cold" in chilled.memory["description"]
    assert warm.stats.min == warm.stats.max and chilled.stats.min == chilled.stats.max
    figures = (int(warm.stats.median), int(chilled.stats.median))
    assert figures[1] - figures[0] >= INSTRUCTION_LINES * LINE_BEATS * (1 + wait_states), figures
    assert figures == FLOOR_YIELD[wait_states]  # the RTL's, pinned: a change of layout shows here


INSTRUCTION_LINES = 11  # breakdown's icache-miss lines of one cold window
REFILL_OVERHEAD = 4  # an instruction line's refill at zero wait states takes 12 cycles: 8 beats and 4 of the cache's
FLOOR_YIELD = {0: (139, 315), 2: (212, 612)}  # (warm, cold) medians by wait states, as measured


def test_irq_latency_the_probe_and_the_rtls_own_view_agree_on_every_sample():
    """While the latency timer is armed every trap enters the board's entry, which tells the timer's interrupt
    by mcause before it reads mcycle (board_latency_dispatched, [latency_timer] handler): the probe's read and
    the testbench's view (the line's rising, that instruction's cycle) agree on every sample, the tick round's
    included. A whole sweep: about a minute and a half."""
    result = measure(latency_job(TARGET), samples=1)
    agreement = result.details["agreement"]
    assert agreement == {"samples": 8192 + 1088, "equal": 8192 + 1088, "least_difference": 0,
                         "largest_difference": 0, "unit": "cycles"}
    # FreeRTOS's critical sections and its trap handler clear mstatus.MIE: the worst case is masked the longest
    assert result.worst["function"] == "xQueueGenericSend" and result.stats.max > 500
