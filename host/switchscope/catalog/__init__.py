"""The catalog stage: what switchscope can measure. Kernels and targets read
from their folders of the firmware tree, the scenarios, the measurement
methods (from decode), the configurations a kernel accepts, one measurement's
job, and the planner that turns a command's choices into jobs.

May import: decode, common. Imported by: build, run, figures, present, cli.
"""

from switchscope.catalog.folders import Catalog, current
from switchscope.catalog.selection import (real_boards, real_boards_named, select_kernels, select_methods,
                                           scenario_groups, select_scenarios, select_targets,
                                           switches_targets)
from switchscope.catalog.model import (SIMULATORS, TIMING_MODELS, UNITS, Conflict, CrateSource, Kernel, Option, Port,
                                       RealBoard, Target)
from switchscope.catalog.scenarios import SCENARIOS, Scenario
from switchscope.decode.methods import METHODS, PRINT_IN_WINDOW, Method

__all__ = ["Catalog", "current", "real_boards", "real_boards_named", "select_kernels", "select_methods", "scenario_groups",
           "select_scenarios", "select_targets", "switches_targets", "SCENARIOS", "SIMULATORS", "TIMING_MODELS",
           "UNITS", "Conflict", "CrateSource", "Kernel", "Option", "Port", "RealBoard", "Scenario", "Target", "METHODS", "PRINT_IN_WINDOW",
           "Method"]


def __getattr__(name: str):
    # KERNELS and TARGETS are read from the firmware tree on first use
    if name == "KERNELS":
        return current().kernels
    if name == "TARGETS":
        return current().targets
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
