"""--config switch=software|pendsv: the software task-level switch on every
Cortex-M target and scenario, measured alike by probe, scope and marker, and
correct where a task was stopped in a state only an exception return restores."""

import dataclasses

import pytest

from conftest import machines_once
from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.measure import measure

pytestmark = pytest.mark.firmware

FREERTOS = catalog.KERNELS["freertos"]
SWITCH_SCENARIOS = [name for name, s in catalog.SCENARIOS.items() if not s.check and not s.latency and not s.suite]


def _has_the_software_switch(target: str) -> bool:
    """Refused on ARMv6-M and on the Cortex-M4F, each with its reason (tests/run/test_armv6m_kernels.py,
    test_fp_context.py)."""
    try:
        configs.resolve({"switch": "software"}, FREERTOS, catalog.TARGETS[target], catalog.SCENARIOS["yield"])
    except SwitchscopeError:
        return False
    return True


CORTEX_M = [name for name in machines_once(FREERTOS.targets)
            if catalog.TARGETS[name].cpu.startswith("cortex-m") and _has_the_software_switch(name)]
MODELLED = ["mps2-an385", "mps2-an386"]  # one board of each core the timing model knows


def with_switch(job, switch):
    return dataclasses.replace(job, config=configs.resolve({"switch": switch}, job.kernel, job.target, job.scenario,
                                                           job.tasks))


def switch_job(scenario, target, method="probe", switch="software"):
    job = Job(FREERTOS, catalog.TARGETS[target], catalog.SCENARIOS[scenario], catalog.METHODS[method], unit="cycles")
    return with_switch(job, switch)


def kept_by_seq(result, samples):
    excluded = {e["seq"] for e in result.excluded_samples}
    return dict(zip([seq for seq in range(samples) if seq not in excluded], result.samples))


@pytest.mark.parametrize("target", MODELLED)
@pytest.mark.parametrize("scenario", SWITCH_SCENARIOS)
def test_probe_scope_and_marker_agree_on_the_software_switch(scenario, target):
    probe, again, scope, marker = (measure(switch_job(scenario, target, method), samples=100)
                                   for method in ("probe", "probe", "scope", "marker"))
    assert probe.samples == again.samples  # deterministic
    kept = [kept_by_seq(result, 100) for result in (probe, scope, marker)]
    common = sorted(set(kept[0]) & set(kept[1]) & set(kept[2]))
    assert len(common) >= (80 if scenario == "rotate" else 95)
    assert [kept[0][seq] for seq in common] == [kept[1][seq] for seq in common] == [kept[2][seq] for seq in common]
    for result in (probe, scope, marker):
        assert result.config["switch"] == "software" and result.options["switch"] == "software"


@pytest.mark.parametrize("target", CORTEX_M)
@pytest.mark.parametrize("scenario", SWITCH_SCENARIOS)
def test_every_scenario_runs_with_both_mechanisms_and_says_which(scenario, target):
    software, pendsv = (measure(switch_job(scenario, target, switch=switch), samples=100)
                        for switch in ("software", "pendsv"))
    assert software.config["switch"] == "software" and pendsv.config["switch"] == "pendsv"
    for result in (software, pendsv):
        assert result.count >= 80 and 30 <= result.stats.min <= result.stats.max < 2000
    assert software.samples != pendsv.samples  # another path was measured


@pytest.mark.parametrize("target", MODELLED)
def test_the_software_switch_resumes_a_task_stopped_inside_an_it_block_or_off_alignment(make_job, target):
    # the firmware fails (and the run raises) unless the task's IT block and stack pointer survive
    result = measure(with_switch(make_job("interrupted_it_block", target=target), "software"), samples=40)
    assert result.sample_tags == [1] * 40


def test_the_software_switch_is_refused_where_there_is_no_pendsv():
    with pytest.raises(SwitchscopeError, match="no PendSV"):
        configs.resolve({"switch": "pendsv"}, FREERTOS, catalog.TARGETS["atmega328p"], catalog.SCENARIOS["yield"])
    avr = configs.resolve({}, FREERTOS, catalog.TARGETS["atmega328p"], catalog.SCENARIOS["yield"])
    assert avr.as_dict()["switch"] == "software"  # FreeRTOS's ATmega port saves every register in code
