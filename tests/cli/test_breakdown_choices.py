"""`switchscope breakdown`: what it refuses before it builds or traces anything, each with what to do."""

from conftest import run_command


def test_a_scenario_of_two_windows_names_them(capsys):
    status, said = run_command(["breakdown", "--target", "mps2-an385", "--scenario", "deadlock-break"], capsys)
    assert status == 2 and "Traceback" not in said, said
    assert "deadlock-raise" in said and "deadlock-release" in said


def test_against_takes_a_target_of_the_same_core_and_configuration(capsys):
    status, said = run_command(["breakdown", "--target", "ibex-qemu", "--against", "ibex-maxperf"], capsys)
    assert status == 2 and "small configuration" in said, said
    assert "name a target of that core: ibex\n" in said + "\n"  # the RTL of the configuration the model times
    status, said = run_command(["breakdown", "--target", "ibex-qemu", "--against", "mps2-an385"], capsys)
    assert status == 2 and "rv32imc" in said, said


def test_against_a_target_that_cannot_count_the_unit_is_refused_before_tracing(capsys):
    status, said = run_command(["breakdown", "--target", "ibex-qemu", "--against", "ibex", "--unit", "instructions"],
                               capsys)
    assert status == 2 and "one window of" not in said, said  # nothing traced first
    assert "ibex measures in cycles" in said
