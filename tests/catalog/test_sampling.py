"""Many windows per tick change nothing but the time a run takes: every
measurement of the suite (rotate aside, which never waits for a tick) gives
the same figures packed as one window per tick, and packing really packs."""

import dataclasses

import pytest

from conftest import core_alone
from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.catalog import configs
from switchscope.figures import suite
from switchscope.figures.measure import measure
from switchscope.run.runner import run

pytestmark = pytest.mark.firmware

SAMPLES = 120
PER_TICK_TIME_LIMIT_S = 300


def _paced_jobs():
    """Every kernel and scenario on one target per board code and simulator: packing is the common
    harness's and the board's tick, so a target that runs another's board code on the same simulator
    (mps2-an386 on mps2-an385's, ibex-maxperf on ibex's) packs its windows the same way. A target timed on
    another chip's machine (bluepill) stands for its board code only where no other target does."""
    kernels = list(catalog.KERNELS.values())
    ordered = sorted(reversed(catalog.TARGETS.values()), key=lambda t: t.caveat is None)  # the last of a pair wins
    targets = list({(t.board_code, t.simulator): t for t in ordered}.values())
    jobs = {}
    for point in suite.points(kernels, targets, SAMPLES):
        if point.job.scenario.name != "rotate":
            jobs.setdefault(str(point.job), point.job)
    return list(jobs.values())


def _figures(result):
    """Not the count: on the ATmega328P the probe leaves out the windows in which Timer1 wrapped,
    and packed windows fall at other phases of Timer1 than windows that follow a tick."""
    figures = result.stats
    return {"min": figures.min, "median": figures.median, "max": figures.max, "first": result.first}


@pytest.mark.parametrize("job", _paced_jobs(), ids=str)
def test_packed_windows_give_the_figures_of_one_window_per_tick(job):
    # a flash's caches are another matter: the tick's handler evicts lines, and the window after it starts colder
    # than a packed one (cache=cold is that question); the core's own cycles are the same
    chosen = {**{k: v for k, v in job.resolved_config().values if k != "sampling"}, **core_alone(job.target)}
    job = dataclasses.replace(job, config=configs.resolve(chosen, job.kernel, job.target, job.scenario))
    per_tick_job = dataclasses.replace(job, config=configs.resolve({**chosen, "sampling": "per-tick"}, job.kernel,
                                                                   job.target, job.scenario))
    # one window a tick waits out the tick's simulated time (ibex-qemu's is 5 ms): a loaded machine needs longer
    # than the default allowance, and this test is of the figures, not of the wall time
    packed, per_tick = measure(job, SAMPLES), measure(per_tick_job, SAMPLES, time_limit=PER_TICK_TIME_LIMIT_S)
    assert packed.options["sampling"] == "packed" and per_tick.options["sampling"] == "per-tick"
    assert _figures(packed) == _figures(per_tick)


@pytest.mark.parametrize("target", ["mps2-an385", "atmega328p"])
def test_packing_fits_many_windows_into_a_tick(target):
    kernel, scenario = catalog.KERNELS["freertos"], catalog.SCENARIOS["yield"]
    firmware = build(kernel, catalog.TARGETS[target], scenario)
    samples = 2000
    stream = run(catalog.TARGETS[target], firmware.elf, [f"samples={samples}"], samples, 60).stream
    assert stream.complete and len(stream.samples) == samples
    waits = int(stream.meta["tick_waits"])
    assert 1 <= waits <= samples // 10, f"{waits} of {samples} windows waited for a tick"
