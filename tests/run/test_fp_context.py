"""The floating-point context as a configuration (--config fp_tasks=0,1,2) on the Cortex-M4F
(mps2-an386-fpu): FreeRTOS's ARM_CM4F port and the floor save s16-s31 for a task that used the FPU, the core
stacks s0-s15 and FPSCR lazily. Every method gives the same samples; a switch between tasks with more FP
contexts costs more, whatever the figure; the combinations that cannot be built are refused with their
reason."""

from __future__ import annotations

import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.common.errors import ConfigurationRefused
from switchscope.figures.measure import measure

M4F = "mps2-an386-fpu"
SAMPLES = 60


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
SCENARIOS = ("yield", "resume")


@pytest.mark.firmware
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("fp_tasks", ["0", "1", "2"])
def test_probe_scope_and_marker_agree_sample_for_sample(results, kernel, scenario, fp_tasks):
    probe, scope, marker = (results(kernel, scenario, fp_tasks, m) for m in ("probe", "scope", "marker"))
    assert probe.unit == "cycles" and probe.timing_model == "cortex-m4f"
    assert probe.count == SAMPLES and probe.samples == scope.samples == marker.samples
    assert probe.bounds == scope.bounds == marker.bounds
    assert len(set(probe.samples)) == 1, "every window the same instructions, the FP context live from the first"


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
