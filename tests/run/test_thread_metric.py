"""Thread-Metric's tests (firmware/scenarios/tm-*.c): what one round of each contains, traced against the suite's
description; the loops a simulated interval counts against what the windows' rate gives; the figures computed
from a window (per loop, per 30 s) worked out by hand; determinism; n/a with its reason where a test cannot run."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import job, run_command
from switchscope import catalog
from switchscope.catalog import configs
from switchscope.figures import thread_metric
from switchscope.figures.breakdown import breakdown
from switchscope.figures.measure import measure
from switchscope.figures.result import Result

TESTS = [s.name for s in catalog.SCENARIOS.values() if s.suite == "thread-metric"]

# The calls of the porting layer (kernel.h) one round makes, in order, as the suite describes each test (its
# README and each test's own comment): the measuring task's loop and every loop of the others until it is back
CALLS = {
    "tm-basic": [],  # no kernel service
    # five threads of one priority, each relinquishing in turn
    "tm-cooperative": ["ss_yield"] * 5,
    # each thread resumes the next more urgent one, which preempts it; the most urgent suspends itself, and so does
    # each one it preempted once it runs again, down to the measuring thread
    "tm-preemptive": ["ss_task_resume"] * 4 + ["ss_task_suspend_self"] * 4,
    # the thread raises the software interrupt, whose handler posts the semaphore the thread then takes
    "tm-interrupt": ["switchscope_soft_irq", "ss_signal_give_from_isr", "ss_signal_wait"],
    # the handler resumes the more urgent thread, which suspends itself
    "tm-interrupt-preemption": ["switchscope_soft_irq", "ss_task_resume_from_isr", "ss_task_suspend_self"],
    "tm-message": ["ss_queue_send", "ss_queue_receive"],  # one thread sends a message and receives it back
    "tm-synchronization": ["ss_signal_give", "ss_signal_wait"],  # one thread gives and takes a semaphore
    "tm-memory": ["ss_pool_allocate", "ss_pool_free"],  # one thread allocates a block and frees it
}
# the task switches in a round (FreeRTOS on Cortex-M: PendSV's entries): one per relinquish; four preemptions up
# the chain and four suspensions down it; the handler's resume and the suspension back
SWITCHES = {"tm-cooperative": 5, "tm-preemptive": 8, "tm-interrupt-preemption": 2}


def test_the_suite_names_its_eight_tests_and_all_leaves_them_out():
    assert TESTS == ["tm-basic", "tm-cooperative", "tm-preemptive", "tm-interrupt", "tm-interrupt-preemption",
                     "tm-message", "tm-synchronization", "tm-memory"]
    assert [s.name for s in catalog.select_scenarios("thread-metric")] == TESTS
    assert not set(TESTS) & {s.name for s in catalog.select_scenarios("all")}
    # a round counts the suite's loops: its counters summed (five threads; the thread and the handler; the two
    # threads and the handler)
    assert {name: catalog.SCENARIOS[name].loops_per_round for name in TESTS} == {
        "tm-basic": 1, "tm-cooperative": 5, "tm-preemptive": 5, "tm-interrupt": 2, "tm-interrupt-preemption": 3,
        "tm-message": 1, "tm-synchronization": 1, "tm-memory": 1}


def _result(median: float, per_round: int, unit: str = "cycles", f_cpu_hz: float | None = 25e6,
            **interval) -> Result:
    facts = {"loops_per_round": per_round, **({"interval": interval} if interval else {})}
    return Result(kind="scenario", scenario="tm-cooperative", method="probe", unit=unit, samples=[median] * 3,
                  overhead=0, first=median, f_cpu_hz=f_cpu_hz, thread_metric=facts)


def test_per_loop_and_per_30_seconds_worked_out_by_hand():
    result = _result(648, 5)
    assert thread_metric.per_loop(result) == pytest.approx(129.6)  # 648 / 5
    # 30 s at 25 MHz: 750,000,000 cycles, over 129.6 a loop
    assert thread_metric.loops_per_interval(result) == pytest.approx(750_000_000 / 129.6)
    assert thread_metric.loops_per_interval(result) == pytest.approx(5_787_037.04, abs=0.01)
    # instructions are no time: no 30-second count
    assert thread_metric.loops_per_interval(_result(648, 5, unit="instructions", f_cpu_hz=None)) is None


def test_the_interval_check_counts_the_bookkeeping_after_each_round():
    # 100,000 cycles; a round of 648 cycles and 52 of bookkeeping: 142.86 rounds, 714.29 loops of five
    result = _result(648, 5, ticks=2, loops=710, stamp_counts=100_000, cycles=100_000.0, bookkeeping_cycles=52.0)
    counted, computed, length = thread_metric.interval_check(result)
    assert (counted, length) == (710, 100_000.0)
    assert computed == pytest.approx(100_000 / 700 * 5)
    # without its length in the result's unit (QEMU's time is instructions, the result cycles): no check
    assert thread_metric.interval_check(_result(648, 5, ticks=2, loops=710, stamp_counts=100_000)) is None


def _calls(traced) -> list[str]:
    """The porting layer's calls and the soft interrupt's handler, each at its first instruction, in order."""
    return [step.function for step in traced.steps if step.offset == 0 and step.address is not None
            and (step.function.startswith("ss_") or step.function == "switchscope_soft_irq")
            and step.function != "ss_complete_switch"]  # a yield only where the configuration does not switch


@pytest.mark.firmware
@pytest.mark.parametrize("kernel", ["freertos", "floor"])
@pytest.mark.parametrize("test", TESTS)
def test_one_round_makes_the_calls_the_suite_describes_in_order(test, kernel):
    traced = breakdown(job(test, kernel=kernel), sample=3)
    assert _calls(traced) == CALLS[test]
    if kernel == "freertos":
        switches = sum(1 for s in traced.steps if s.function == "PendSV_Handler" and s.offset == 0)
        assert switches == SWITCHES.get(test, 0)
    assert sum(s.cycles for s in traced.steps) == traced.measured


@pytest.mark.firmware
@pytest.mark.parametrize("target, unit", [("atmega328p", "cycles"), ("mps2-an385", "instructions"),
                                          ("ibex", "cycles")])
def test_a_simulated_interval_counts_the_loops_the_windows_rate_gives(target, unit):
    # the simulator's own time: simavr's and the RTL's cycles, QEMU's instructions (icount), which the stamp timer
    # counts; what remains between the two counts is the kernel's tick interrupts inside the interval and its ends
    result = measure(dataclasses.replace(job("tm-synchronization", target=target), unit=unit), 50)
    counted, computed, length = thread_metric.interval_check(result)
    assert result.thread_metric["interval"]["ticks"] == 2 and length > 0
    assert counted <= computed and (computed - counted) / computed < 0.02


@pytest.mark.firmware
@pytest.mark.parametrize("test", ["tm-preemptive", "tm-interrupt-preemption", "tm-message"])
def test_the_probe_the_scope_and_the_marker_read_the_same_rounds(test):
    read = {method: measure(dataclasses.replace(job(test), method=catalog.METHODS[method]), 30).samples
            for method in ("probe", "scope", "marker")}
    assert read["probe"] == read["scope"] == read["marker"]


@pytest.mark.firmware
def test_thread_metric_runs_are_deterministic():
    runs = [measure(job("tm-cooperative"), 40) for _ in range(2)]
    assert runs[0].samples == runs[1].samples
    assert runs[0].thread_metric == runs[1].thread_metric


@pytest.mark.firmware
def test_a_test_that_cannot_run_says_why(capsys, tmp_path):
    status, said = run_command(["run", "--scenario", "thread-metric", "--target", "atmega328p", "--samples", "20",
                                "--json", str(tmp_path / "tm.json")], capsys)
    assert status == 0, said
    assert "n/a: freertos on atmega328p (tm-basic/probe): Thread-Metric's basic processing works through 1024" in said
    assert "tm-cooperative runs 5 tasks, and the kernel heap of atmega328p's memory layout holds 4" in said
    for test in ("tm-interrupt", "tm-interrupt-preemption", "tm-message", "tm-synchronization", "tm-memory"):
        assert f"\n  {test} " in said  # measured, in the table
    assert "Thread-Metric: each window above is a round" in said


def test_preemption_tests_refuse_one_priority_for_all():
    freertos, mps2 = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"]
    for test in ("tm-preemptive", "tm-interrupt-preemption"):
        with pytest.raises(Exception, match="priorities=off"):
            configs.resolve({"priorities": "off"}, freertos, mps2, catalog.SCENARIOS[test])


def test_the_terminal_and_the_report_show_the_suites_table():
    from switchscope.present import html_parts, thread_metric_view
    results = [dataclasses.replace(_result(648, 5), kernel="freertos", target="mps2-an385"),
               dataclasses.replace(_result(444, 5), kernel="floor", target="mps2-an385")]
    text = thread_metric_view.text(results)
    # 648 / 5 = 129.6 a loop, 750,000,000 / 129.6 = 5,787,037 loops; 444 / 5 = 88.8, 8,445,946
    assert "freertos (mps2-an385, 25 MHz, probe, cycles)" in text
    assert "floor (mps2-an385, 25 MHz, probe, cycles)" in text
    assert "loops a round" in text
    assert "129.60 (5,787,037)" in text and "88.80 (8,445,946)" in text
    assert "129.60 (5,787,037)" in thread_metric_view.html(results, html_parts.html_table)
    assert thread_metric_view.text([dataclasses.replace(results[0], thread_metric=None)]) == ""
    # two configurations of one kernel: a column each, named by what sets it apart
    other = dataclasses.replace(results[0], samples=[723] * 3, options={"opt": "-Os"})
    both = thread_metric_view.text([dataclasses.replace(results[0], options={"opt": "-O2"}), other])
    assert "opt=-O2" in both and "opt=-Os" in both and "129.60" in both and "144.60" in both
    # instructions are no time: per loop only, and the caption says why
    counted = thread_metric_view.text([dataclasses.replace(results[0], unit="instructions", f_cpu_hz=None)])
    assert "no 30-second count" in counted and "129.60" in counted and "(5,787,037)" not in counted
