"""The floor kernel: every scenario on every board it lists, the same samples run after run, below every
kernel's yield on each core, and the x floor figures of `run --floor`."""

import json

import pytest

from conftest import job, run_command
from switchscope import catalog
from switchscope.figures.measure import measure

pytestmark = pytest.mark.firmware

FLOOR_TARGETS = ("mps2-an385", "mps2-an386", "stm32vldiscovery", "netduinoplus2", "nucleo-l432kc", "atmega328p")
SWITCHES = [name for name, s in catalog.SCENARIOS.items() if not s.check and not s.latency and not s.suite]
ONE_BOARD_PER_CORE = ("mps2-an385", "mps2-an386", "atmega328p")


def test_the_floor_lists_every_board_it_is_meant_for():
    assert set(FLOOR_TARGETS) <= set(catalog.KERNELS["floor"].targets)


@pytest.mark.parametrize("target", FLOOR_TARGETS)
@pytest.mark.parametrize("scenario", SWITCHES)
def test_every_scenario_runs_on_every_board_with_the_same_samples_twice(scenario, target):
    first, again = (measure(job(scenario, target, "floor"), samples=100) for _ in range(2))
    assert first.count >= 95 and first.count + first.excluded == 100
    assert first.samples == again.samples


@pytest.mark.parametrize("target", ONE_BOARD_PER_CORE)
def test_the_floors_yield_is_below_every_kernels_yield_on_its_core(target):
    least = measure(job("yield", target, "floor"), samples=100).stats.median
    others = {name: measure(job("yield", target, name), samples=100).stats.median
              for name, kernel in catalog.KERNELS.items() if name != "floor" and target in kernel.targets}
    assert others, f"no other kernel runs on {target}"
    assert all(least < median for median in others.values()), (least, others)


def test_run_with_floor_shows_each_figure_as_a_multiple_of_it(tmp_path, capsys):
    out = tmp_path / "yield.json"
    status, said = run_command(["run", "--scenario", "yield", "--samples", "100", "--floor", "--json", str(out),
                                "--quiet"], capsys)
    assert status == 0, said
    results = {r["kernel"]: r for r in json.loads(out.read_text())["results"]}
    assert set(results) == {"freertos", "floor"}
    kernel, least = results["freertos"], results["floor"]
    assert "x_floor" not in least
    assert kernel["floor"]["median"] == least["stats"]["median"]
    assert kernel["x_floor"] == round(kernel["stats"]["median"] / least["stats"]["median"], 2) > 1
    assert f"{kernel['x_floor']:.2f}" in said and "x floor" in said


def test_run_floor_measures_the_floor_doing_the_same_work(capsys, tmp_path):
    """--floor with lock=mutex measures the floor's sem-shuffle with a mutex too, and divides by that."""
    path = tmp_path / "r.json"
    status, said = run_command(["run", "--scenario", "sem-shuffle", "--floor", "--config", "lock=mutex",
                                "--samples", "200", "--quiet", "--json", str(path)], capsys)
    assert status == 0, said
    results = {r["kernel"]: r for r in json.loads(path.read_text())["results"]}
    assert results["floor"]["options"]["lock"] == "mutex"
    freertos = results["freertos"]
    assert freertos["floor"]["median"] == results["floor"]["stats"]["median"]
    assert "lock=mutex" in freertos["floor"]["options"]
    assert freertos["x_floor"] == round(freertos["stats"]["median"] / results["floor"]["stats"]["median"], 2)
