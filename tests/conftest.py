"""Shared helpers for tests that build and run real firmware."""

from pathlib import Path

import pytest

from switchscope import catalog
from switchscope.catalog.job import Job

TEST_FIRMWARE = Path(__file__).parent / "firmware"


def job(scenario: str, target: str = "mps2-an385", kernel: str = "freertos") -> Job:
    """A job for a catalogued scenario, or for one of the test scenarios in tests/firmware/."""
    if scenario in catalog.SCENARIOS:
        chosen = catalog.SCENARIOS[scenario]
    else:
        chosen = catalog.Scenario(scenario, f"test scenario {scenario}", source=TEST_FIRMWARE / f"{scenario}.c")
    return Job(catalog.KERNELS[kernel], catalog.TARGETS[target], chosen, catalog.METHODS["probe"])


@pytest.fixture
def make_job():
    return job
