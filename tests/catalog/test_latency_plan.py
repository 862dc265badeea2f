"""Where irq-latency is measured, by which method, and what a combination a kernel refuses does when the
command asked for several."""

import pytest

from switchscope import catalog
from switchscope.catalog.plan import plan
from switchscope.common.errors import ConfigurationRefused

FREERTOS, FLOOR = catalog.KERNELS["freertos"], catalog.KERNELS["floor"]
LATENCY = catalog.SCENARIOS["irq-latency"]
PROBE, MARKER = catalog.METHODS["probe"], catalog.METHODS["marker"]


def test_without_a_method_chosen_irq_latency_is_timed_by_the_simulator_and_the_switch_scenarios_by_the_probe():
    found = plan([FREERTOS], [catalog.TARGETS["mps2-an385"]], [LATENCY, catalog.SCENARIOS["yield"]], [PROBE],
                 method_chosen=False)
    assert {(job.scenario.name, job.method.name) for job in found.jobs} == {("irq-latency", "marker"),
                                                                            ("yield", "probe")}


def test_the_probe_of_irq_latency_counts_what_the_simulator_counts():
    targets = [catalog.TARGETS["mps2-an385"]]
    assert not plan([FREERTOS], targets, [LATENCY], [PROBE]).jobs  # cycles: the timing model's, not the timer's
    assert plan([FREERTOS], targets, [LATENCY], [PROBE], unit="instructions").jobs


def test_a_value_the_chip_cannot_take_is_skipped_with_its_reason_among_several_and_refused_alone():
    uno, mps2 = catalog.TARGETS["atmega328p"], catalog.TARGETS["mps2-an385"]
    found = plan([FREERTOS, FLOOR], [uno, mps2], [LATENCY], [MARKER], [{"irq_priority": "high"}])
    assert {(job.kernel.name, job.target.name) for job in found.jobs} == {("freertos", "mps2-an385"),
                                                                          ("floor", "mps2-an385")}
    skipped = {(s.kernel, s.target): s.reason for s in found.skipped}
    assert "no interrupt priorities" in skipped[("freertos", "atmega328p")]
    with pytest.raises(ConfigurationRefused, match="no interrupt priorities"):
        plan([FREERTOS], [uno], [LATENCY], [MARKER], [{"irq_priority": "high"}])


def test_a_board_without_a_latency_timer_says_why():
    for name in ("stm32vldiscovery", "nucleo-l432kc", "bluepill"):
        why = FREERTOS.not_measured(catalog.TARGETS[name], LATENCY, MARKER)
        assert why and "QEMU" in why and "timer" in why
    assert FREERTOS.not_measured(catalog.TARGETS["netduinoplus2"], LATENCY, MARKER) is None  # QEMU's TIM2
