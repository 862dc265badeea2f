"""Progress off a terminal (a CI log, a file): a line on stderr for each finished measurement, so that a
long suite or intrusion report is not silent; on a terminal the live bar alone, with --quiet nothing.
Pure: hand-made jobs and results."""

from conftest import job
from rich.console import Console

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.figures.matrix import Point
from switchscope.figures.result import Result
from switchscope.present import display

YIELD = Result(kind="scenario", scenario="yield", method="probe", unit="cycles", samples=[124, 124, 125],
               overhead=8, first=124, wall_seconds=1.23)


def sweep_lines(quiet: bool = False) -> None:
    with display.Activity(quiet, "measurements") as activity:
        activity.begin("sweep", 2)
        activity.batch(1, 2, Point(job("yield"), 200), YIELD)
        activity.batch(2, 2, Point(job("yield"), 300), "the firmware crashed\n  its last output: ...")


def test_off_a_terminal_each_finished_measurement_is_a_line(capsys):
    sweep_lines()
    assert capsys.readouterr().err.splitlines() == [
        "[1/2] freertos yield, probe on mps2-an385, 200 samples: median 124 cycles (1.2 s)",
        "[2/2] freertos yield, probe on mps2-an385, 300 samples: failed: the firmware crashed"]


def test_quiet_says_nothing(capsys):
    sweep_lines(quiet=True)
    assert capsys.readouterr().err == ""


def test_on_a_terminal_the_bar_alone(capsys, monkeypatch):
    monkeypatch.setattr(display, "Console", lambda stderr: Console(stderr=stderr, force_terminal=True))
    sweep_lines()
    assert "[1/2]" not in capsys.readouterr().err


def test_a_line_names_the_tasks_the_unit_and_the_configuration_that_differ():
    kernel, target, rotate = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["rotate"]
    chosen = Job(kernel, target, rotate, catalog.METHODS["probe"], tasks=4, unit="instructions",
                 config=configs.resolve({"preemption": "off"}, kernel, target, rotate, 4))
    assert display.measurement_name(chosen) == ("freertos rotate (4 tasks), probe on mps2-an385 in instructions "
                                                "[preemption=off]")


def test_a_run_line_and_an_intrusion_line(capsys):
    row = {"marker": 118, "unit": "cycles", "probe": {"adds": 6}, "scope": {"adds": 16.5}, "print": {"adds": 9000}}
    with display.Activity(False, "measurements") as activity:
        activity.finished(1, 1, display.measurement_name(job("yield")), display.outcome_text(YIELD), 0.42)
        activity.finished(1, 1, "freertos yield on mps2-an385, every method", display.intrusion_text(row))
    assert capsys.readouterr().err.splitlines() == [
        "[1/1] freertos yield, probe on mps2-an385: median 124 cycles (0.4 s)",
        "[1/1] freertos yield on mps2-an385, every method: marker median 118 cycles; the probe adds 6, the scope "
        "16.50, a printed line 9000"]
