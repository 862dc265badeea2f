"""measure --switches on Ibex's RTL (boards ibex and ibex-maxperf): the harness logs the trap flow
(host/verilator-harness/harness.cc, --switch-word), and switchscope's own yield ELF, run as if it
were someone else's, shows the switches its code makes: each task's yield (an ecall) is a call, the
machine timer's interrupt is the tick; two runs give the same figures; and a yield's switch is the
part of the scenario's marker window from the trap's vector to the first instruction after mret,
as the breakdown of that window lists it instruction by instruction."""

from collections import Counter

import pytest

from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.figures.breakdown import breakdown
from switchscope.figures.switches import measure_switches

pytestmark = pytest.mark.firmware  # every test here builds the model and firmware and runs them

FREERTOS = catalog.KERNELS["freertos"]
IBEX = ["ibex", "ibex-maxperf"]
SWITCHES = 1000  # enough for the 1 ms tick (50 000 cycles at 50 MHz) to fall into the run several times


def yield_elf(target):
    return build(FREERTOS, catalog.TARGETS[target], catalog.SCENARIOS["yield"]).elf


def measured(target):
    return measure_switches(yield_elf(target), catalog.TARGETS[target], FREERTOS, SWITCHES, 300)


def by_kind(result):
    facts = result.details["switches"]
    return Counter((facts["tasks"][a], facts["tasks"][b], facts["causes"][c]) for a, b, c in facts["samples"])


def values_of(result, outgoing, incoming, cause):
    facts = result.details["switches"]
    return {value for (a, b, c), value in zip(facts["samples"], result.samples)
            if (facts["tasks"][a], facts["tasks"][b], facts["causes"][c]) == (outgoing, incoming, cause)}


@pytest.mark.parametrize("target", IBEX)
def test_yield_switches_are_calls_in_ss_yield_and_the_tick_is_found(target):
    result = measured(target)
    found = by_kind(result)
    assert len(result.samples) == SWITCHES
    # each sample: the measuring task yields to its partner and back (ss_yield's ecall, a call each way),
    # then the partner blocks on its signal (an ecall in xQueueSemaphoreTake): 2 + 1 + 1 switches a sample
    rounds = found["partner", "measure", "call in ss_yield"]
    assert rounds > 200  # a thousand switches, four a sample, a few the tick's
    assert abs(found["measure", "partner", "call in ss_yield"] - 2 * rounds) <= 2  # the run ends mid-sample
    assert abs(found["partner", "measure", "call in xQueueSemaphoreTake"] - rounds) <= 1
    # the machine timer's interrupt (mcause 7) is FreeRTOS's tick: some of its passes switch
    assert sum(count for (_, _, cause), count in found.items() if cause == "tick") > 0
    # every switch's pair differs; none is an interrupt the kernel does not know
    assert all(a != b and not cause.startswith("interrupt") for a, b, cause in found)
    assert result.details["switches"]["switch_path"] == ["freertos_risc_v_trap_handler"]


@pytest.mark.parametrize("target", IBEX)
def test_two_runs_find_the_same_switches_with_the_same_cycles(target):
    first, second = measured(target), measured(target)
    assert first.samples == second.samples
    assert first.details["switches"]["samples"] == second.details["switches"]["samples"]
    assert first.details["switches"]["starts"] == second.details["switches"]["starts"]


@pytest.mark.parametrize("target", IBEX)
def test_a_yields_switch_is_its_marker_window_from_the_vector_to_the_return(make_job, target):
    # the marker window runs from the call of ss_yield to the instruction after it in the task that
    # yields back; the switch inside it from the ecall's vector (the trap's first instruction) to the
    # first instruction after mret: the breakdown's lines after the ecall up to the mret, summed
    window = breakdown(make_job("yield", target=target), 10)
    texts = [step.text.split()[0] if step.text else "" for step in window.steps]
    ecall, mret = texts.index("ecall"), texts.index("mret")
    switch = sum(step.cycles for step in window.steps[ecall + 1:mret + 1])
    assert window.steps[ecall + 1].function != window.steps[ecall].function  # the vector, not the task's code
    before, after = sum(s.cycles for s in window.steps[:ecall + 1]), sum(s.cycles for s in window.steps[mret + 1:])
    assert before + switch + after == window.total
    assert 0 < before < 10 and 0 < after < 10  # the call, the ecall; ss_yield's return
    # that same switch, found by measure --switches without any marker, is one of the yields' switches
    result = measured(target)
    assert switch in values_of(result, "measure", "partner", "call in ss_yield") | values_of(
        result, "partner", "measure", "call in ss_yield")
