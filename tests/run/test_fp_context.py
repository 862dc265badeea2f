"""The floating-point context as a configuration (--config fp_tasks=0,1,2) on the Cortex-M4F
(mps2-an386-fpu): FreeRTOS's ARM_CM4F port and the floor save s16-s31 for a task that used the FPU, the core
stacks s0-s15 and FPSCR lazily. Every method gives the same samples in every switch scenario with one task of
the two using the FPU (a switch out of it stores s0-s15 and FPSCR late, in the kernel's handler); a switch
between tasks with more FP contexts costs more, whatever the figure; the combinations that cannot be built are
refused with their reason. Beside the switch windows: irq-latency on the M4F for both kernels (fp_tasks has no
part in it), measure --switches finding FreeRTOS's switches with and without FP contexts, and the breakdown of
a window with two FP contexts naming the deferred store and the extended frame's return.

The expected cycles are the ARM Cortex-M4 TRM's (r0p1, DDI 0439D), as test_timing_model_fpu.py gives them."""

from __future__ import annotations

import pytest

from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.common.errors import ConfigurationRefused, SwitchscopeError
from switchscope.figures.breakdown import breakdown
from switchscope.figures.measure import measure
from switchscope.figures.switches import measure_switches
from switchscope.present import breakdown_text

from test_timing_model import CONDITION_FAILED, EXCEPTION_EXIT, TAIL_CHAIN
from test_timing_model_fpu import FP_EXIT, LAZY_ENTRY, LAZY_STORE, VPUSH_VPOP_16

M4F = "mps2-an386-fpu"
SAMPLES = 60
SWITCH_SCENARIOS = [name for name, s in catalog.SCENARIOS.items() if not s.latency and not s.suite and name != "ruler"]


def job(kernel: str, scenario: str, method: str, fp_tasks: str) -> Job:
    target, found, chosen = catalog.TARGETS[M4F], catalog.KERNELS[kernel], catalog.SCENARIOS[scenario]
    config = configs.resolve({"fp_tasks": fp_tasks}, found, target, chosen)
    return Job(found, target, chosen, catalog.METHODS[method], config=config, unit="cycles")


@pytest.fixture(scope="module")
def results():
    """(kernel, scenario, fp_tasks, method) -> Result, each measured once for the module."""
    measured = {}

    def get(kernel: str, scenario: str, fp_tasks: str, method: str = "probe"):
        key = (kernel, scenario, fp_tasks, method)
        if key not in measured:
            measured[key] = measure(job(kernel, scenario, method, fp_tasks), samples=SAMPLES)
        return measured[key]
    return get


KERNELS = ("freertos", "floor")
SCENARIOS = ("yield", "resume")  # measured with none, one and two FP contexts
# every switch scenario with one FP context (the interesting case: a switch out of the task that has it defers
# the store of s0-s15 and FPSCR into the kernel's handler), and the two scenarios above with none and with two
CASES = [(scenario, "1") for scenario in SWITCH_SCENARIOS] + \
    [(scenario, fp_tasks) for scenario in SCENARIOS for fp_tasks in ("0", "2")]


def kept(result) -> dict[int, int]:
    """Each kept window's sample by its sequence number (the windows the tick fell into are left out, and where
    it falls depends on each method's instructions between windows)."""
    excluded = {left_out["seq"] for left_out in result.excluded_samples}
    return dict(zip((seq for seq in range(result.count + result.excluded) if seq not in excluded), result.samples))


@pytest.mark.firmware
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("scenario,fp_tasks", CASES)
def test_probe_scope_and_marker_agree_sample_for_sample(results, kernel, scenario, fp_tasks):
    probe, scope, marker = (kept(results(kernel, scenario, fp_tasks, m)) for m in ("probe", "scope", "marker"))
    first = results(kernel, scenario, fp_tasks, "probe")
    assert first.unit == "cycles" and first.timing_model == "cortex-m4f"
    every = set(probe) & set(scope) & set(marker)
    assert len(every) >= SAMPLES - 3, (len(probe), len(scope), len(marker))
    assert all(probe[seq] == scope[seq] == marker[seq] for seq in every), (probe, scope, marker)
    if set(probe) == set(scope) == set(marker):  # the same windows: the same range the manual allows
        assert first.bounds == results(kernel, scenario, fp_tasks, "scope").bounds == \
            results(kernel, scenario, fp_tasks, "marker").bounds
    if scenario == "rotate" and fp_tasks == "1":
        # one sample per switch, into the FP task and out of it in turn: each way the same instructions
        assert all(len({v for seq, v in probe.items() if seq % 2 == parity}) == 1 for parity in (0, 1)), probe
    else:  # every window the same instructions, the FP context live from the first
        assert len(set(probe.values())) == 1, probe


@pytest.mark.firmware
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_median_grows_with_every_task_that_has_an_fp_context(results, kernel, scenario):
    """One FP context more in the switch: s16-s31 stored or loaded by the kernel (Table 7-1, VSTM/VLDM or
    VPUSH/VPOP 1+N, N = 16) and s0-s15 with FPSCR by the core, lazily or at the return (7.2.7, 3.9.1): at
    least the kernel's 16 registers each time, whatever else the build changed."""
    medians = [results(kernel, scenario, n).stats.median for n in ("0", "1", "2")]
    assert medians[0] + 16 <= medians[1] and medians[1] + 16 <= medians[2], medians


@pytest.mark.firmware
def test_an_fp_context_gives_the_same_samples_run_after_run(results):
    again = measure(job("freertos", "yield", "probe", "2"), samples=SAMPLES)
    first = results("freertos", "yield", "2")
    assert again.samples == first.samples and again.bounds == first.bounds


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("target", ["mps2-an386", "mps2-an385", "atmega328p"])
def test_fp_tasks_is_refused_where_the_build_has_no_fpu(kernel, target):
    found = catalog.KERNELS[kernel]
    if target not in found.targets:
        pytest.skip(f"{kernel} does not run on {target}")
    with pytest.raises(ConfigurationRefused) as refused:
        configs.resolve({"fp_tasks": "1"}, found, catalog.TARGETS[target], catalog.SCENARIOS["yield"])
    assert "has none" in str(refused.value) and "mps2-an386-fpu" in (refused.value.hint or "")
    configs.resolve({"fp_tasks": "0"}, found, catalog.TARGETS[target], catalog.SCENARIOS["yield"])


def test_the_software_switch_is_refused_on_the_cortex_m4f_with_its_reason():
    with pytest.raises(ConfigurationRefused) as refused:
        configs.resolve({"switch": "software"}, catalog.KERNELS["freertos"], catalog.TARGETS[M4F],
                        catalog.SCENARIOS["yield"])
    assert "s16-s31" in str(refused.value) and "switch=pendsv" in (refused.value.hint or "")


@pytest.mark.firmware
def test_a_yield_window_with_two_fp_contexts_names_the_deferred_store_and_the_extended_return(results):
    """Out of a task with an FP context: PendSV's entry only reserves the space of s0-s15 and FPSCR, the
    kernel's VSTMDB of s16-s31 makes the core store them first; into the other: VLDMIA of s16-s31, and the
    return unstacks the extended frame. The text's lines add up to the window the marker method measured."""
    sample = 10
    traced = breakdown(job("freertos", "yield", "marker", "2"), sample)
    flows = [(s.text, s.cycles) for s in traced.steps if s.address is None]
    assert flows == [("exception-entry-fp-reserved", LAZY_ENTRY.point), ("fp-lazy-store", LAZY_STORE.point),
                     ("exception-return-fp", FP_EXIT.point)]
    kernels_own = [(s.text.split()[0], s.cycles) for s in traced.steps if s.text.endswith("{s16-s31}")]
    assert kernels_own == [("vstmdbeq", VPUSH_VPOP_16.point), ("vldmiaeq", VPUSH_VPOP_16.point)]
    text = breakdown_text.text(traced)
    for flow, _ in flows:
        assert breakdown_text.FLOW_NAMES[flow] in text
    assert "deferred store of s0-s15 and FPSCR" in text and "unstacking 8 registers, s0-s15 and FPSCR" in text
    lines = text.splitlines()[2:]  # after the heading and the columns' names
    assert sum(int(line.split()[0]) for line in lines) == traced.total
    assert traced.total == results("freertos", "yield", "2", "marker").samples[sample]


@pytest.mark.firmware
def test_measure_switches_finds_freertos_switches_and_what_two_fp_contexts_add_to_each_yield():
    """The yield images with no FP context and with two: ss_yield's switches cost the same every time, and two
    FP contexts more by what the TRM gives: the port's VSTMDB and VLDMIA of s16-s31 executed (1+16 each) where
    they failed their condition (1 each), the deferred store of s0-s15 and FPSCR, and the extended frame's
    return (27) instead of the basic one's (10)."""
    yielded = {}
    for fp_tasks in ("0", "2"):
        chosen = job("freertos", "yield", "probe", fp_tasks)
        firmware = build(chosen.kernel, chosen.target, chosen.scenario, chosen.method, chosen.config).elf
        result = measure_switches(firmware, chosen.target, chosen.kernel, 10**6, 120)
        facts = result.details["switches"]
        assert result.unit == "cycles" and facts["stopped"] is None
        assert result.count > 3000  # three switches per yield sample, 1000 samples
        causes = [facts["causes"][cause] for _, _, cause in facts["samples"]]
        assert "call in ss_yield" in causes
        assert result.stats.min > LAZY_ENTRY.point  # each window holds PendSV's entry and the handler
        figures = {cycles for cycles, cause in zip(result.samples, causes) if cause == "call in ss_yield"}
        assert len(figures) == 1, figures
        yielded[fp_tasks] = figures.pop()
    two_contexts = 2 * (VPUSH_VPOP_16.point - CONDITION_FAILED.point) + LAZY_STORE.point + \
        FP_EXIT.point - EXCEPTION_EXIT.point
    assert yielded["2"] == yielded["0"] + two_contexts


@pytest.fixture(scope="module")
def latency():
    return {kernel: measure(Job(catalog.KERNELS[kernel], catalog.TARGETS[M4F], catalog.SCENARIOS["irq-latency"],
                                catalog.METHODS["marker"], unit="cycles"), samples=10)
            for kernel in KERNELS}


@pytest.mark.firmware
def test_irq_latency_on_the_m4f_meets_every_step_and_freertos_basepri_holds_the_interrupt(latency):
    freertos, floor = latency["freertos"], latency["floor"]
    for result in (freertos, floor):
        assert result.timing_model == "cortex-m4f" and result.unit == "cycles"
        assert result.phases["covered"] == result.phases["period"] > 100
        # at best entered at once (12 cycles: lazy stacking stacks no FP state) or tail-chained (6)
        assert TAIL_CHAIN.point <= min(result.samples) <= LAZY_ENTRY.point
        assert LAZY_ENTRY.point < result.worst["cycles"] == max(result.samples)
        assert result.worst["held"]
    # below the kernel's ceiling: held by the critical sections that raise BASEPRI
    assert freertos.config["configMAX_SYSCALL_INTERRUPT_PRIORITY"] == "0xA0"
    assert freertos.config["latency_irq_priority"] == "0xC0"
    assert "vPortEnterCritical" in (freertos.worst["function"], freertos.worst["held_from_function"])
    assert freertos.worst["held_to_function"] == "vPortExitCritical"
    assert floor.worst["cycles"] < freertos.worst["cycles"]


@pytest.mark.parametrize("kernel", KERNELS)
def test_fp_tasks_is_refused_for_irq_latency_naming_the_scenarios_it_applies_to(kernel):
    """irq-latency's tasks do no FP work (scenarios/irq-latency.c has none): the option would change nothing."""
    found, latency_scenario = catalog.KERNELS[kernel], catalog.SCENARIOS["irq-latency"]
    with pytest.raises(SwitchscopeError) as refused:  # an option out of its scope, not a conflict of values
        configs.resolve({"fp_tasks": "1"}, found, catalog.TARGETS[M4F], latency_scenario)
    assert "not irq-latency" in str(refused.value) and "yield" in str(refused.value)
    assert "leave it out" in (refused.value.hint or "")
