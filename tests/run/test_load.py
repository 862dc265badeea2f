"""--config load=voip: a peripheral timer's interrupt fills audio frames that a task codes with G.711 while
rotate's tasks switch; the windows it falls into are kept and flagged, the others measure what an unloaded
run measures."""

import pytest

from conftest import run_command
from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.figures.measure import measure

pytestmark = pytest.mark.firmware

FREERTOS, ROTATE = catalog.KERNELS["freertos"], catalog.SCENARIOS["rotate"]
SAMPLES = 600
# Cortex-M3 TRM 5.5.1 and Figure 5-5: an interrupt costs at least its entry (12 cycles) and its return (10)
LEAST_AN_INTERRUPT_COSTS = 12 + 10


def rotate(target="mps2-an385", method="probe", **options):
    job = Job(FREERTOS, catalog.TARGETS[target], ROTATE, catalog.METHODS[method], tasks=4, unit="cycles")
    return Job(job.kernel, job.target, job.scenario, job.method, tasks=4, unit="cycles",
               config=configs.resolve(options, job.kernel, job.target, job.scenario, 4))


@pytest.mark.parametrize("target", ["mps2-an385", "mps2-an386"])
@pytest.mark.parametrize("switch", ["software", "pendsv"])
def test_windows_the_load_falls_into_are_kept_and_flagged_and_the_others_are_as_unloaded(switch, target):
    loaded = measure(rotate(target, load="voip", switch=switch), samples=SAMPLES)
    quiet = measure(rotate(target, switch=switch), samples=SAMPLES)
    assert loaded.config["load"] == "voip" and loaded.config["switch"] == switch
    assert quiet.interfered is None and "load" not in quiet.config
    assert loaded.count + loaded.excluded == SAMPLES
    # only the tick's windows are left out (SysTick is both tick and stamp: it wraps at each tick), never the load's
    assert {e["reason"] for e in loaded.excluded_samples} <= {"tick_in_window", "stamp_wrapped"}
    interfered, calm = set(loaded.interfered), loaded.undisturbed
    assert 0 < len(interfered) < loaded.count and len(calm) == loaded.count - len(interfered)
    # a window the load left alone measures what an unloaded one does, but for an after-effect under the software
    # switch: a task the load's interrupt stopped off the 8-byte alignment (in the window before, or between two
    # windows, where none sees it) is resumed by exception return (switch_software.c) the next time: one cost,
    # wherever it was stopped
    unlike = [i for i in range(loaded.count) if i not in interfered and loaded.samples[i] not in quiet.samples]
    assert switch == "software" or not unlike, unlike
    assert len({loaded.samples[i] for i in unlike}) <= 1, [(i, loaded.samples[i]) for i in unlike]
    longer = [i for i, value in enumerate(loaded.samples) if value > max(quiet.samples)]
    assert longer and set(longer) <= interfered | set(unlike)  # the load's doing, every one
    assert max(loaded.samples) >= max(quiet.samples) + LEAST_AN_INTERRUPT_COSTS


def test_a_loaded_run_gives_the_same_samples_and_flags_every_time():
    first, again = (measure(rotate(load="voip"), samples=300) for _ in range(2))
    assert first.samples == again.samples and first.interfered == again.interfered


def test_a_longer_period_falls_into_fewer_windows_and_more_encoders_are_made():
    often = measure(rotate(load="voip", load_period_us="125"), samples=SAMPLES)
    rarely = measure(rotate(load="voip", load_period_us="1000", load_tasks="3"), samples=SAMPLES)
    assert rarely.config["load_period_us"] == "1000" and rarely.config["load_tasks"] == "3"
    assert len(rarely.interfered) < len(often.interfered)


@pytest.mark.parametrize("arguments,said", [
    (["--scenario", "yield"], "option load applies to rotate only, not yield"),
    (["--scenario", "rotate", "--target", "stm32vldiscovery"], "not driven yet"),
    (["--scenario", "rotate", "--target", "atmega328p"], "ATmega328P"),
    (["--scenario", "rotate", "--config", "priorities=off,time_slicing=off"], "priorities=off takes away"),
])
def test_where_the_load_cannot_run_it_is_refused_with_the_reason(capsys, arguments, said):
    status, text = run_command(["run", "--config", "load=voip", *arguments], capsys)
    assert status == 2 and said in text and "Traceback" not in text


def test_the_run_table_says_how_many_windows_the_load_fell_into(capsys):
    status, text = run_command(["run", "--scenario", "rotate", "--tasks", "4", "--samples", "300",
                                "--config", "load=voip,switch=software", "--quiet"], capsys)
    assert status == 0, text
    assert "load=voip: a timer interrupt every 125 µs, 1 encoding task(s):" in text
    assert "kept windows interfered" in text
