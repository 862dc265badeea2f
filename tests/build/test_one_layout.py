"""Every method's build of a scenario is one layout (firmware/include/switchscope/probe.h): each window point
is the same bytes in every method, filled where a method has less, so that every function sits at the same
address with the same size in the probe's, the scope's and the marker's image. With fetches in words or lines
(Ibex's prefetch buffer, a flash's lines) where code sits changes what a window costs; one layout keeps the
three methods' figures one figure (tests/run/test_ibex.py runs them). Builds only."""

import pytest

from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.decode import layout

pytestmark = pytest.mark.firmware  # compilers

METHODS = ("probe", "scope", "marker")
# a call's switch, an interrupt's, a scenario that opens and closes in several places, and the ruler (its blocks
# between the points)
SCENARIOS = ("yield", "isr", "rotate", "ruler")
CASES = [(kernel.name, target, scenario)
         for kernel in catalog.KERNELS.values() if kernel.language == "c"
         for target in kernel.targets if catalog.TARGETS[target].has_c_board
         for scenario in SCENARIOS
         if (kernel.name == "freertos" or scenario == "yield")
         and not kernel.not_measured(catalog.TARGETS[target], catalog.SCENARIOS[scenario], catalog.METHODS["probe"])]


@pytest.mark.parametrize("kernel, target, scenario", CASES)
def test_every_method_builds_every_function_at_the_same_address_with_the_same_size(kernel, target, scenario):
    chosen, board = catalog.KERNELS[kernel], catalog.TARGETS[target]
    elfs = {method: build(chosen, board, catalog.SCENARIOS[scenario], catalog.METHODS[method]).elf
            for method in METHODS
            if not chosen.not_measured(board, catalog.SCENARIOS[scenario], catalog.METHODS[method])}
    assert "marker" in elfs and len(elfs) > 1, elfs
    for method, elf in elfs.items():
        assert layout.first_difference(elfs["marker"], 0, elf, 0) is None, (
            method, str(layout.first_difference(elfs["marker"], 0, elf, 0)))
