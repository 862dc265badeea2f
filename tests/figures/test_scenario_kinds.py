"""A kind of scenario is one object the measure path asks for everything that depends on it
(figures/scenario_kind.py): a kind the tests define in one module (toy_kind.py), registered, is measured
by figures/measure.measure as the built-in kinds are, and measure itself names no kind."""

import ast
import dataclasses
from pathlib import Path

import pytest

from switchscope import catalog
from switchscope.catalog.job import Job
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import kinds
from switchscope.figures.measure import measure
from toy_kind import WholeRounds

MEASURE = Path(__file__).resolve().parents[2] / "host" / "switchscope" / "figures" / "measure.py"


def _toy_job(kind: str) -> Job:
    """The ruler's firmware, its scenario said to be of `kind`."""
    toy = dataclasses.replace(catalog.SCENARIOS["ruler"], kind=kind)
    return Job(catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], toy, catalog.METHODS["probe"],
               unit="cycles")


@pytest.mark.firmware
def test_a_kind_of_the_tests_own_is_measured_as_the_built_in_kinds_are(monkeypatch):
    monkeypatch.setitem(kinds.KINDS, "whole-rounds", WholeRounds)
    result = measure(_toy_job("whole-rounds"), samples=10)
    # 10 asked: two whole rounds of the ruler's 7 blocks, the blocks of 10, 100 and 1,000 no-ops of each kept,
    # and the ruler's promise holds for each: N no-ops read N cycles once the probe's cost is taken off
    assert result.samples == [10, 100, 1000, 10, 100, 1000]
    assert result.sample_tags == result.samples
    assert result.details["block_sizes"] == [0, 1, 2, 3, 10, 100, 1000]
    assert result.count == 6 and result.excluded == 0


def test_a_kind_nobody_registered_is_refused_naming_the_known_ones():
    with pytest.raises(SwitchscopeError) as refused:
        kinds.of(_toy_job("loop-count"))
    assert "'loop-count'" in str(refused.value) and "switch, latency" in str(refused.value)


def test_every_catalogued_scenario_is_of_a_known_kind():
    assert {scenario.kind for scenario in catalog.SCENARIOS.values()} <= set(kinds.KINDS)


def test_measure_names_no_kind_of_scenario():
    """figures/measure.py asks the job's kind; a kind's name, or a scenario's, decides nothing there."""
    tree = ast.parse(MEASURE.read_text())
    read = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert not {"latency", "kind"} & read, "measure.py reads a scenario's kind itself"
    assert "latency" not in imported
