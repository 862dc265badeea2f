"""Ibex's RTL behind a slow RAM (--config fetch_wait_states=N, data_wait_states=M on `ibex`): rulers whose cycles
are worked out here, and what the switch figures and the commands do there.

The slow RAM is the harness's gate (host/verilator-harness/wait_states.sv): a request to the RAM is granted only
once the core has held it N cycles (M for data), and the RAM answers the cycle after its grant, so a word costs
N + 1 cycles. Ibex's documentation (pythondata-cpu-ibex 0.0.post2937, doc/03_reference/) gives the rest:

- instruction_fetch.rst, line 13: the IF stage "is able to supply one instruction to the Instruction-Decode (ID)
  stage per cycle if the instruction cache or the instruction memory is able to serve one instruction per
  cycle"; lines 16 and 19: the prefetch buffer "simply fetches instructions linearly until it is full", its
  FIFO's "DEPTH ... is set to 3 by default"; lines 51-52, the fetch interface: instr_req_o "must stay high until
  instr_gnt_i is high for one cycle" (a request under way is granted before any other goes out);
- pipeline_details.rst, lines 48-54: loads and stores "stall for at least one cycle to await a response ... The
  longer the data side memory interface takes to receive a response the longer loads and stores will stall";
  lines 67-72, a jump: "Minimum one cycle stall to flush the prefetch counter and begin fetching from the new
  Program Counter (PC). The new PC request will appear on the instruction-side memory interface the same cycle
  the jump instruction enters ID/EX. The longer the instruction-side memory interface takes to receive data the
  longer the jump will stall";
- load_store_unit.rst, line 89: the memory answers with a grant "as soon as it is ready to serve the request.
  This may happen in the same cycle as the request was sent or any number of cycles later".

Every ruler is a block between NAME_from and NAME_to of one hand-written firmware (tests/run/test_ibex_model.py
builds it), measured with the marker method, after straight code (eight 32-bit nops: the prefetch buffer
fetch-bound, one word under way)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from switchscope import catalog
from switchscope.catalog.job import Job
from switchscope.catalog.memory import MemorySettings
from switchscope.figures.measure import measure
from switchscope.run.runner import BASE_TIME_LIMIT_S, default_time_limit

from conftest import refused_cleanly
from ibex_checks import assert_a_partial_sweep_repeats, assert_the_methods_read_the_same_windows, latency_job
from test_ibex_model import JUMP, LOAD_STORE, STALL_FREE, build, measured, slow_job

pytestmark = pytest.mark.firmware

SWITCHSCOPE = [sys.executable, "-m", "switchscope"]
FETCH_WAIT_STATES = (0, 1, 2, 5)
DATA_WAIT_STATES = (1, 2, 5)
QUEUE_DEPTH = 3  # instruction_fetch.rst: "DEPTH ... set to 3 by default"; words, one 32-bit instruction each
# Loads long enough that the prefetch buffer fills behind them (3 x 10 cycles, more than the words it fetches
# take at 5 fetch wait states) and no fetch is under way when the jump after them enters ID/EX.
FILLING_DATA_WAIT_STATES = 8

STRAIGHT = ".rept 8\n    nop\n    .endr"

SOURCE = textwrap.dedent(f"""
    .option norvc
    .section .boot, "ax"
    j _start
    .balign 128
    .globl _start
    _start:                      # simple_system boots at its RAM + 0x80
    la sp, stack_top
    li a1, 7
    li a2, 3
    loop:

    {STRAIGHT}
    alu_from:
    addi a0, a0, 1
    addi a3, a3, 1
    addi a4, a4, 1
    addi a5, a5, 1
    addi t0, t0, 1
    addi t1, t1, 1
    addi t2, t2, 1
    addi t3, t3, 1
    alu_to:

    {STRAIGHT}
    .option rvc
    compressed_from:
    .rept 16
    c.addi a0, 1
    .endr
    compressed_to:
    .option norvc

    {STRAIGHT}
    loads_from:
    lw a3, 0(sp)
    lw a4, 4(sp)
    lw a5, 8(sp)
    loads_to:

    {STRAIGHT}
    stores_from:
    sw a3, 0(sp)
    sw a4, 4(sp)
    sw a5, 8(sp)
    stores_to:

    {STRAIGHT}
    jump_from:
    j 1f
    nop
    1:
    jump_to:

    {STRAIGHT}
    lw a3, 0(sp)
    lw a4, 4(sp)
    lw a5, 8(sp)
    jump_after_loads_from:
    j 1f
    nop
    1:
    jump_after_loads_to:

    {STRAIGHT}
    div a3, a1, a2               # the prefetch buffer fills while it divides
    queue_1_from: queue_2_from: queue_3_from: queue_4_from:
    addi a0, a0, 1
    queue_1_to:
    addi a3, a3, 1
    queue_2_to:
    addi a4, a4, 1
    queue_3_to:
    addi a5, a5, 1
    queue_4_to:
    addi t0, t0, 1

    {STRAIGHT}
    j loop

    .bss
    .balign 16
    .space 1024
    stack_top:
    """)


def word(wait_states: int) -> int:
    """A word's cost: the request held `wait_states` cycles, granted, answered the cycle after."""
    return wait_states + 1


@pytest.fixture(scope="module")
def rulers(tmp_path_factory):
    return {"ibex": build(tmp_path_factory.mktemp("slow"), "ibex", SOURCE)}


def slow(rulers, ruler: str, fetch: int = 0, data: int = 0) -> list[int]:
    return measured(rulers, "ibex", ruler, memory=MemorySettings(fetch_wait_states=fetch, data_wait_states=data))


# (ruler, its cycles at N fetch wait states, how): each instruction costs its own stall + 1 or the wait for the
# next one's word, the longer
FETCHED = [
    ("alu", lambda n: 8 * max(STALL_FREE, word(n)), "8 addi, a word each"),
    ("compressed", lambda n: max(16 * STALL_FREE, 8 * word(n)), "16 c.addi, two a word"),
    ("loads", lambda n: 3 * max(LOAD_STORE, word(n)), "3 lw, a word each"),
    ("stores", lambda n: 3 * max(LOAD_STORE, word(n)), "3 sw, a word each"),
]


@pytest.mark.parametrize("fetch", FETCH_WAIT_STATES)
@pytest.mark.parametrize("ruler, expected, how", FETCHED, ids=[r[0] for r in FETCHED])
def test_straight_code_runs_at_a_word_per_fetch(rulers, ruler, expected, how, fetch):
    assert set(slow(rulers, ruler, fetch=fetch)) == {expected(fetch)}, how


@pytest.mark.parametrize("data", DATA_WAIT_STATES)
@pytest.mark.parametrize("ruler", ["loads", "stores"])
def test_a_load_or_store_waits_for_its_answer(rulers, ruler, data):
    """Its first cycle in ID/EX sends the request, held M cycles, answered the cycle after the grant: M + 2."""
    assert set(slow(rulers, ruler, data=data)) == {3 * (LOAD_STORE + data)}


@pytest.mark.parametrize("fetch", FETCH_WAIT_STATES)
def test_a_jump_waits_first_for_the_fetch_under_way(rulers, fetch):
    """The documentation's reading of a jump: its target's request goes out in the jump's first cycle, is held
    N cycles and answered the cycle after, and the target enters ID/EX the cycle after that: N + 2 (the
    documented minimum of 2 at N = 0). That holds where the prefetch buffer is full and nothing is under way (a
    jump after long loads). After straight code a sequential fetch is under way, just sent, and Ibex holds it
    until granted (the interface's instr_req_o "must stay high until instr_gnt_i is high") before the target's
    goes out: the jump costs two words, 2(N + 1)."""
    reading = JUMP + fetch
    assert set(slow(rulers, "jump_after_loads", fetch=fetch, data=FILLING_DATA_WAIT_STATES)) == {reading}
    straight = slow(rulers, "jump", fetch=fetch)
    assert set(straight) == {2 * word(fetch)}
    assert (straight[0] == reading) == (fetch == 0)


@pytest.mark.parametrize("fetch", FETCH_WAIT_STATES)
def test_the_prefetch_fifo_holds_three_words_behind_a_long_stall(rulers, fetch):
    """During a division (37 cycles, more than three words take at 5 wait states) the prefetch buffer "fetches
    instructions linearly until it is full": its FIFO's three words, a 32-bit instruction each, then enter ID/EX
    a cycle apart. The fourth word can be asked for only once the first has left the FIFO, in the cycle it
    enters ID/EX (as a jump's target is asked for, pipeline_details.rst): it enters N + 2 cycles after the first,
    or right behind the third where that is sooner, and every word after it costs its N + 1. The RTL gives what
    this reading of the documentation gives. What the documentation leaves open, and the timing model must take
    from here, is when the refill starts: as the first instruction leaves, not once the FIFO has emptied (the
    fourth would then enter at 2 + N + 2). `queue_K` times the K instructions after the division, from the
    first one's entry into ID/EX to the entry of the (K+1)th."""
    fourth = max(QUEUE_DEPTH, JUMP + fetch)
    entries = [*range(1, QUEUE_DEPTH), fourth, fourth + word(fetch)]
    assert [slow(rulers, f"queue_{k}", fetch=fetch) for k in range(1, 5)] == [[entry] * 4 for entry in entries]


def on_ibex(kernel: str, scenario: str, method: str, fetch: int) -> Job:
    job = Job(catalog.KERNELS[kernel], catalog.TARGETS["ibex"], catalog.SCENARIOS[scenario], catalog.METHODS[method])
    return slow_job(job, fetch_wait_states=fetch)


def test_a_slow_run_gives_identical_samples_run_to_run():
    job = on_ibex("freertos", "yield", "probe", 2)
    assert measure(job, samples=50).samples == measure(job, samples=50).samples


# yield: the opening's store was followed by a compressed call in its own last word, before every opening was
# placed on a word; rotate: windows that open in several places
AGREEING = [*((kernel, "yield", fetch) for kernel in ("floor", "freertos") for fetch in (1, 2, 5)),
            ("floor", "signal", 2), ("freertos", "signal", 5), ("freertos", "isr", 2), ("floor", "msg", 2),
            ("freertos", "rotate", 2), ("floor", "rotate", 5)]


@pytest.mark.parametrize("kernel, scenario, fetch", AGREEING, ids=[f"{k}-{s}-{f}" for k, s, f in AGREEING])
def test_the_three_methods_read_the_same_cycles_behind_a_slow_ram(kernel, scenario, fetch):
    """One layout for every method's build (docs/measurement.md, "The ruler on Ibex"), and every opening point on
    a word (firmware/boards/ibex/board_config.h): the point's store ends its word, so the window's first
    instruction waits for a word of its own, as the closing's lui does in the calibration's pair. The probe's
    overhead is then what the window's opening costs, and the probe, the scope and the marker read the same
    cycles, window for window, at every wait-state count. (On a halfword, the store's last word also held the
    window's first instruction, a compressed call, fetched with it: the probe and the scope were off the marker
    by -1, +2, +5 at 1, 2, 5 wait states on yield.)"""
    assert_the_methods_read_the_same_windows({method: measure(on_ibex(kernel, scenario, method, fetch), samples=20)
                                              for method in ("probe", "scope", "marker")}, 20)


def test_irq_latency_sweeps_behind_a_slow_ram_alike_run_to_run_and_later_than_at_zero():
    """300 steps of FreeRTOS's irq-latency sweep at 0 and at 2 fetch wait states (a whole sweep at 2 takes minutes:
    its round is twice a single-cycle RAM's, one more for every two wait states, figures/latency.py): behind the
    slow RAM two runs give the same samples, and the least latency is longer than at 0: the trap's entry and the
    handler's first instructions come through the slow RAM."""
    from switchscope.figures.latency import slow_memory_rounds

    behind = latency_job("ibex", fetch_wait_states="2")
    assert slow_memory_rounds(behind) == 2
    spans = {fetch: [sample.end - sample.start for sample in assert_a_partial_sweep_repeats(job)]
             for fetch, job in ((2, behind), (0, latency_job("ibex")))}
    assert min(spans[2]) > min(spans[0])  # the least: the trap's entry and the handler's first read, fetched


def test_a_slow_ram_grows_a_runs_default_time_limit_as_it_grows_its_cycles():
    """At 5 wait states a sample is up to 6 times the cycles to simulate: 10,000 yield samples, about a minute
    of the RTL's on an idle machine, outlast the allowance of a single-cycle RAM (2 minutes) on a busy one."""
    ibex = catalog.TARGETS["ibex"]
    allowance = default_time_limit(10_000, ibex) - BASE_TIME_LIMIT_S
    slow_allowance = default_time_limit(10_000, ibex, MemorySettings(fetch_wait_states=5)) - BASE_TIME_LIMIT_S
    assert slow_allowance == pytest.approx(6 * allowance)


def test_a_run_of_three_fetch_wait_states_measures_three_variants(tmp_path):
    results = tmp_path / "slow.json"
    done = subprocess.run([*SWITCHSCOPE, "run", "--target", "ibex", "--scenario", "yield", "--config",
                           "fetch_wait_states=0,2,5", "--samples", "20", "--json", str(results)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    measured_runs = json.loads(results.read_text())["results"]
    assert [run["memory"]["fetch_wait_states"] for run in measured_runs] == [0, 2, 5]
    medians = [run["stats"]["median"] for run in measured_runs]
    assert medians == sorted(set(medians))  # every wait costs
    assert "memory on ibex: zero wait states" in done.stdout
    assert "RAM with 5 wait states on instruction fetches and 0 on data accesses" in done.stdout


def test_measure_takes_the_wait_states_for_a_firmware_of_ones_own(rulers, tmp_path):
    results = tmp_path / "alu.json"
    done = subprocess.run([*SWITCHSCOPE, "measure", str(rulers["ibex"]), "--target", "ibex", "--config",
                           "fetch_wait_states=2", "--from", "alu_from", "--to", "alu_to", "--count", "20", "--json",
                           str(results)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(results.read_text())["results"]
    assert set(result["samples"]) == {8 * word(2)}
    assert result["memory"]["fetch_wait_states"] == 2
    assert "RAM with 2 wait states on instruction fetches" in done.stdout


@pytest.mark.parametrize("command", ["run", "measure"])
@pytest.mark.parametrize("target, value, said", [
    ("ibex", "99", "'99' is not a value of fetch_wait_states"),
    ("mps2-an385", "2", "only, not mps2-an385 (fetch_wait_states=2)"),
])
def test_wait_states_the_ram_cannot_take_are_refused(rulers, tmp_path, monkeypatch, capsys, command, target, value,
                                                      said):
    arguments = [command, "--target", target, "--config", f"fetch_wait_states={value}"]
    files = {}
    if command == "measure":
        files = {"rulers.elf": rulers["ibex"].read_bytes()}
        arguments += ["rulers.elf", "--from", "alu_from", "--to", "alu_to"]
    else:
        arguments += ["--scenario", "yield"]
    refusal = refused_cleanly(tmp_path, files, arguments, 2, said, monkeypatch, capsys)
    assert "did you mean" not in refusal  # 99 is out of range, not a misspelt 9
    assert "takes 0 to 15" in refusal or "applies on targets with a RAM of settable wait states (ibex," in refusal
