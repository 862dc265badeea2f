"""Rhealstone's semaphore shuffle, deadlock break and message latency: every
method times the same windows, runs repeat exactly, the deadlock is broken by
inheritance (the firmware refuses a run where it was not), and a sweep of the
message's size gives its cost per byte."""

import dataclasses

import pytest

from conftest import job, run_command
from switchscope import catalog
from switchscope.catalog import configs
from switchscope.common.errors import ConfigurationRefused
from switchscope.figures.measure import measure
from switchscope.figures.message_cost import fit

RHEALSTONE = ("sem-shuffle", "deadlock-raise", "deadlock-release", "msg")
# FreeRTOS on mps2-an385 is compared in cycles with every other switch scenario (test_timing_model.py)
C_PORTS = [("freertos", "atmega328p"), ("floor", "mps2-an385"), ("floor", "atmega328p")]


def configured(chosen, **options):
    return dataclasses.replace(chosen, config=configs.resolve(options, chosen.kernel, chosen.target,
                                                              chosen.scenario))


def with_method(chosen, method):
    return dataclasses.replace(chosen, method=catalog.METHODS[method])


def kept_by_seq(result, samples):
    excluded = {e["seq"] for e in result.excluded_samples}
    return dict(zip([seq for seq in range(samples) if seq not in excluded], result.samples))


@pytest.mark.firmware
@pytest.mark.parametrize("kernel,target", C_PORTS)
@pytest.mark.parametrize("scenario", RHEALSTONE)
def test_probe_scope_and_marker_time_the_same_windows_run_after_run(scenario, kernel, target):
    chosen = job(scenario, target, kernel)
    probe, again, scope, marker = (measure(with_method(chosen, method), samples=100)
                                   for method in ("probe", "probe", "scope", "marker"))
    assert probe.samples == again.samples
    kept = [kept_by_seq(result, 100) for result in (probe, scope, marker)]
    common = sorted(set(kept[0]) & set(kept[1]) & set(kept[2]))
    assert len(common) >= 95  # on the AVR a window its 16-bit stamp timer wrapped in is left out
    assert [kept[0][seq] for seq in common] == [kept[1][seq] for seq in common] == [kept[2][seq] for seq in common]


@pytest.mark.firmware
def test_deadlock_break_runs_both_windows_and_the_holder_runs_raised():
    # the firmware stops the run if the medium task ran before the holder (it was not raised); raised, the
    # holder resumes inside the high task's request, so the raise window holds the inheritance and a switch
    raise_window, release_window, signal = (measure(job(name, "mps2-an385"), samples=100)
                                            for name in ("deadlock-raise", "deadlock-release", "signal"))
    assert raise_window.count == release_window.count == 100
    assert raise_window.config["configUSE_MUTEXES"] == "1"
    assert signal.config["configUSE_MUTEXES"] == "0"  # the other scenarios' FreeRTOS is unchanged
    assert raise_window.stats.median > signal.stats.median  # inheritance, then the switch to the holder


@pytest.mark.firmware
def test_a_mutex_costs_the_shuffle_its_inheritance_and_a_ready_task_costs_the_release_nothing():
    semaphore = measure(job("sem-shuffle"), samples=50)
    mutex = measure(configured(job("sem-shuffle"), lock="mutex"), samples=50)
    release = measure(job("deadlock-release"), samples=50)
    assert semaphore.options["lock"] == "semaphore" and mutex.options["lock"] == "mutex"
    assert mutex.stats.median > semaphore.stats.median  # the release gives back the inherited priority
    # FreeRTOS indexes its ready lists by priority: the medium task that deadlock-break keeps ready is not
    # looked at when the high task takes the mutex, so the two hand-overs are the same instructions
    assert release.samples == mutex.samples


def test_deadlock_break_needs_its_three_priorities():
    freertos, mps2 = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"]
    for window in catalog.select_scenarios("deadlock-break"):
        with pytest.raises(ConfigurationRefused, match="three priorities"):
            configs.resolve({"priorities": "off"}, freertos, mps2, window)


def test_deadlock_break_selects_both_windows_and_an_unknown_name_lists_it():
    assert [s.name for s in catalog.select_scenarios("deadlock-break")] == ["deadlock-raise", "deadlock-release"]
    with pytest.raises(Exception, match="deadlock-break, thread-metric, all"):
        catalog.select_scenarios("deadlock")


def test_list_scenarios_says_why_each_kernel_cannot_run_one(capsys):
    status, said = run_command(["list", "scenarios"], capsys)
    assert status == 0
    section = said.split("\n  deadlock-raise", 1)[1].split("\n  deadlock-release", 1)[0]
    assert "n/a on rtic: cannot happen under RTIC's Stack Resource Policy" in section
    assert "n/a on embassy: embassy-sync's Mutex has no priority inheritance" in section
    assert "n/a on lilos: lilos tasks have no priorities" in section
    assert "n/a on freertos" not in section and "n/a on floor" not in section
    assert "--scenario deadlock-break runs each" in section


def test_the_cost_per_byte_is_the_least_squares_slope():
    # by hand: points (1, 10), (3, 14), (5, 19): mean x 3, mean y 43/3; slope = ((-2)(10 - 43/3) + 0 +
    # 2(19 - 43/3)) / (4 + 0 + 4) = (26/3 + 28/3) / 8 = 9/4; intercept = 43/3 - 3 x 9/4 = 172/12 - 81/12
    slope, intercept = fit({1: 10, 3: 14, 5: 19})
    assert slope == pytest.approx(2.25) and intercept == pytest.approx(91 / 12)


@pytest.mark.firmware
@pytest.mark.parametrize("kernel,target", [("freertos", "mps2-an385"), ("embassy", "mps2-an385"),
                                           ("rtic", "lm3s6965evb")])
def test_a_sweep_of_the_message_size_shows_its_cost_per_byte(kernel, target, capsys):
    status, said = run_command(["sweep", "--kernel", kernel, "--target", target, "--scenario", "msg",
                                "--config", "msg_size=1,64", "--samples", "30", "--quiet"], capsys)
    assert status == 0, said
    line = next(row for row in said.splitlines() if row.split()[:2] == [kernel, target] and "1: " in row)
    per_byte = float(line.split()[4])
    # copied into the queue and out of it, each byte at least a load and a store: more than nothing, and the
    # firmware checks that the receiver got every byte
    assert 0 < per_byte < 20
