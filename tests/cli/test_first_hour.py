"""What a new user meets in the first hour: a kernel on a target it does not
run on, what a selection leaves out, the tables of several methods and
scenarios, what `list targets` says each target reports."""

from switchscope.catalog.plan import Plan, Skipped
from switchscope.cli.measuring import say_skipped
from switchscope.figures.result import Result
from switchscope.present import report

from conftest import refused_cleanly, run_command


def test_a_kernel_on_a_target_it_does_not_run_on_is_bad_input_saying_where_it_runs(tmp_path, monkeypatch, capsys):
    for command in (["run", "--kernel", "rtic"], ["sweep", "--kernel", "rtic", "--scenario", "yield"]):
        said = refused_cleanly(tmp_path, {}, command, 2, "nothing to measure: rtic on mps2-an385", monkeypatch,
                               capsys)
        assert "RTIC is ported to lm3s6965evb only" in said


def test_what_a_selection_leaves_out_is_said_once_per_kernel_and_reason(capsys):
    why = "RTIC is ported to lm3s6965evb only"
    found = Plan(skipped=[Skipped("rtic", target, why, ("resume/probe", "yield/probe"))
                          for target in ("atmega328p", "mps2-an385", "mps2-an386")]
                 + [Skipped("rtic", "lm3s6965evb", "RTIC has no yield", ("yield/probe",))])
    say_skipped(found)
    assert capsys.readouterr().out.splitlines() == [
        f"n/a: rtic on atmega328p, mps2-an385, mps2-an386 (resume/probe, yield/probe): {why}",
        "n/a: rtic on lm3s6965evb (yield/probe): RTIC has no yield"]


def _result(scenario, method, value, flash, tasks=None, tick="66"):
    return Result("scenario", scenario, method, "cycles", [value] * 5, 8, value, kernel="freertos",
                  kernel_version="V11.2.0", target="mps2-an385", cpu="cortex-m3", f_cpu_hz=25_000_000,
                  tasks=tasks, config={"configTICK_RATE_HZ": tick, "optimisation": "-O2"},
                  toolchain={"compiler": "gcc"}, simulator={"name": "QEMU"},
                  firmware={"flash_bytes": flash, "ram_bytes": 100, "flash_limit": 4096, "ram_limit": 1024})


def test_several_methods_and_scenarios_make_one_table_with_a_row_each():
    results = [_result(scenario, method, value, flash, tasks)
               for scenario, value, flash, tasks in (("resume", 267, 900, None), ("rotate", 287, 880, 3))
               for method in ("probe", "scope", "marker")]
    text = report.table(results)
    assert text.count("freertos V11.2.0, on mps2-an385") == 1  # one block, not six
    assert "methods probe, scope, marker" in text
    rows = [line for line in text.splitlines() if line.startswith("  rotate (3 tasks), ")]
    assert len(rows) == 6  # a row per method, in cycles and again in µs
    assert "  rotate (3 tasks), scope" in text and "  resume, marker" in text
    # the images' sizes in one line, from the least to the largest (880 and 900 bytes)
    assert "firmware sizes: flash 0.9 KiB, static RAM 0.1 KiB (the simulated machine has 4 KiB of flash and " \
        "1 KiB of RAM)" in text


def test_one_images_size_is_said_once_and_the_tick_as_its_period():
    text = report.table([_result("yield", "probe", 124, 900), _result("signal", "probe", 369, 900)])
    assert "firmware sizes (2 images alike): flash 0.9 KiB, static RAM 0.1 KiB (the simulated machine has 4 KiB " \
        "of flash and 1 KiB of RAM)" in text
    assert "tick every 15.2 ms (configTICK_RATE_HZ 66)" in text  # 1000 ms / 66 Hz, not "66 Hz" alone


def test_list_targets_says_what_each_target_reports(capsys):
    status, said = run_command(["list", "targets"], capsys)
    assert status == 0
    lines = said.splitlines()
    mps2 = lines[[i for i, line in enumerate(lines) if line.strip().startswith("mps2-an385 ")][0] + 1]
    assert "reports cycles through the cortex-m3 timing model; --unit instructions" in mps2
    assert "counts instructions" not in said
    avr = lines[[i for i, line in enumerate(lines) if line.strip().startswith("atmega328p ")][0] + 1]
    assert "reports cycles, counted by the simulator" in avr and "--unit" not in avr
