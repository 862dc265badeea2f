"""`switchscope compare`: matching, verdicts, exit statuses, JUnit and JSON
outputs, and a clear error for every bad input."""

import json
import os
import signal
from xml.etree import ElementTree

import pytest

from switchscope import catalog, cli
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.result import Result, Stats
from switchscope.present.compare import Threshold


RTL = "Ibex 0.1 (small) RTL on Verilator 5.032"


def result(scenario="resume", samples=(267,) * 10, unit="cycles", opt="-O2", kernel="freertos",
           target="mps2-an385", simulator=None, spread=None) -> dict:
    """`spread` (below, above): each sample's TRM range is sample - below to sample + above. The timing model
    and the simulator are the target's (its RTL on Verilator, else QEMU 10.0.2), unless a simulator is given."""
    bounds = {side: Stats.of([s + offset for s in samples]).as_dict()
              for side, offset in (("min", -spread[0]), ("max", spread[1]))} if spread else None
    counted_by = catalog.TARGETS[target]
    simulator = simulator or (RTL if counted_by.simulator == "verilator" else "QEMU emulator version 10.0.2")
    return Result(kind="scenario", scenario=scenario, method="probe", unit=unit, samples=list(samples), overhead=7,
                  first=samples[0], kernel=kernel, target=target, cpu=counted_by.cpu, f_cpu_hz=counted_by.f_cpu_hz,
                  options={"opt": opt}, timing_model=counted_by.timing_model_for(unit), bounds=bounds,
                  simulator={"name": simulator}, toolchain={"compiler": "arm-none-eabi-gcc 12.2.1"}).to_json()


def write(path, *results):
    path.write_text(json.dumps({"results": list(results)}))
    return str(path)


def run(arguments, capsys) -> tuple[int, str]:
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        status = cli.main(["compare", *arguments])
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_nothing_slower_exits_0(tmp_path, capsys):
    base = write(tmp_path / "base.json", result(), result("yield", (126,) * 10))
    new = write(tmp_path / "new.json", result(samples=(260,) * 10), result("yield", (126,) * 10))
    status, said = run([base, new], capsys)
    assert status == 0, said
    assert "faster" in said and "same" in said and "-2.62%" in said


def test_any_increase_of_the_median_is_a_regression_by_default(tmp_path, capsys):
    base = write(tmp_path / "base.json", result())
    new = write(tmp_path / "new.json", result(samples=(268,) * 10))
    status, said = run([base, new], capsys)
    assert status == 1 and "slower" in said and "+1" in said


@pytest.mark.parametrize("threshold, status", [("1%", 0), ("0.1%", 1), ("1", 0), ("0.5", 1)])
def test_a_threshold_allows_an_increase(tmp_path, capsys, threshold, status):
    base = write(tmp_path / "base.json", result())
    new = write(tmp_path / "new.json", result(samples=(268,) * 10))
    assert run([base, new, "--threshold", threshold], capsys)[0] == status


def test_the_metric_chosen_is_the_one_compared(tmp_path, capsys):
    base = write(tmp_path / "base.json", result(samples=(267,) * 9 + (300,)))
    new = write(tmp_path / "new.json", result(samples=(267,) * 9 + (400,)))
    assert run([base, new], capsys)[0] == 0  # the medians are equal
    assert run([base, new, "--metric", "max"], capsys)[0] == 1


def test_a_result_on_one_side_only_is_listed_not_an_error(tmp_path, capsys):
    base = write(tmp_path / "base.json", result(), result("isr", (364,) * 10))
    new = write(tmp_path / "new.json", result(), result("signal", (367,) * 10))
    status, said = run([base, new], capsys)
    assert status == 0
    assert "only in base" in said and "only in new" in said


def test_nothing_in_common_is_bad_input_with_what_would_pair_them(tmp_path, capsys):
    base = write(tmp_path / "base.json", result("isr", (364,) * 10))
    new = write(tmp_path / "new.json", result("signal", (367,) * 10))
    status, said = run([base, new], capsys)
    assert status == 2 and "nothing in common to compare: 1 result(s) only in base, 1 only in new" in said
    assert "other kernels, targets, scenarios or methods" in said


def test_another_unit_is_flagged_and_not_compared(tmp_path, capsys):
    base = write(tmp_path / "base.json", result(), result("yield", (126,) * 10))
    new = write(tmp_path / "new.json", result(unit="instructions", samples=(143,) * 10), result("yield", (126,) * 10))
    status, said = run([base, new], capsys)
    assert status == 0, said  # yield was compared; resume is listed
    assert "not comparable" in said and "unit cycles vs instructions" in said
    assert "1 compared: 1 same; not compared: 1 not comparable" in said


def test_pairs_that_are_all_not_comparable_compared_nothing_and_fail_the_job(tmp_path, capsys):
    """Cycles against instructions, scenario for scenario: nothing was compared, so the job must not pass
    (docs/ci.md: exit 2), the summary counts none as compared, JUnit fails, and each side's unit is shown."""
    base = write(tmp_path / "cycles.json", result(), result("yield", (126,) * 10))
    new = write(tmp_path / "instructions.json", result(unit="instructions", samples=(143,) * 10),
                result("yield", (80,) * 10, unit="instructions"))
    status, said = run([base, new, "--junit", str(tmp_path / "c.xml"), "--json", str(tmp_path / "c.json")], capsys)
    assert status == 2, said
    assert "0 compared: nothing; not compared: 2 not comparable" in said
    assert "nothing compared: 2 pair(s) not comparable (unit cycles vs instructions; timing model cortex-m3 vs " \
           "none (instructions counted))" in said
    assert "None" not in said
    rows = [line.split() for line in said.splitlines() if line.strip().startswith("freertos/")]
    assert len(rows) == 2 and all(row[1:4] == ["cycles", "vs", "instructions"] for row in rows), said
    suite = ElementTree.parse(tmp_path / "c.xml").getroot()
    assert suite.get("failures") == "1" and suite.get("skipped") == "2"
    failed = [case for case in suite if case.find("failure") is not None]
    assert [case.get("name") for case in failed] == ["compared nothing"]
    document = json.loads((tmp_path / "c.json").read_text())
    assert document["compared_nothing"].startswith("nothing compared")
    assert all(c["unit"] is None and (c["base_unit"], c["new_unit"]) == ("cycles", "instructions")
               for c in document["comparisons"])


def test_another_simulator_is_flagged(tmp_path, capsys):
    base = write(tmp_path / "base.json", result())
    new = write(tmp_path / "new.json", result(simulator="QEMU emulator version 10.0.13"))
    status, said = run([base, new], capsys)
    assert status == 0 and "simulator QEMU emulator version 10.0.2 vs QEMU emulator version 10.0.13" in said


def test_junit_and_json_outputs(tmp_path, capsys):
    base = write(tmp_path / "base.json", result(), result("isr", (364,) * 10))
    new = write(tmp_path / "new.json", result(samples=(270,) * 10), result("signal", (367,) * 10))
    status, _ = run([base, new, "--junit", str(tmp_path / "compare.xml"), "--json", str(tmp_path / "c.json")], capsys)
    assert status == 1
    suite = ElementTree.parse(tmp_path / "compare.xml").getroot()
    assert suite.tag == "testsuite" and suite.get("tests") == "3" and suite.get("failures") == "1"
    assert suite.get("skipped") == "2"
    failed = [case for case in suite if case.find("failure") is not None]
    assert len(failed) == 1 and "267 -> 270 cycles" in failed[0].find("failure").text
    comparisons = json.loads((tmp_path / "c.json").read_text())["comparisons"]
    assert {c["verdict"] for c in comparisons} == {"slower", "only in base", "only in new"}


def _ranged_pair(tmp_path) -> tuple[str, str]:
    """Two regressions of the median with the TRM range 7 below and 5 above each figure: resume 126 (119-131) ->
    140 (133-145), disjoint since 133 > 131, so outside; yield 200 (193-205) -> 204 (197-209), overlapping, inside."""
    base = write(tmp_path / "base.json", result(samples=(126,) * 10, spread=(7, 5)),
                 result("yield", (200,) * 10, spread=(7, 5)))
    new = write(tmp_path / "new.json", result(samples=(140,) * 10, spread=(7, 5)),
                result("yield", (204,) * 10, spread=(7, 5)))
    return base, new


def test_the_trm_range_verdict_in_table_json_and_junit(tmp_path, capsys):
    base, new = _ranged_pair(tmp_path)
    status, said = run([base, new, "--junit", str(tmp_path / "compare.xml"), "--json", str(tmp_path / "c.json")],
                       capsys)
    assert status == 1  # by default any regression fails, inside the range or not
    assert "base TRM range" in said and "119-131" in said and "133-145" in said
    assert "slower, outside the TRM range" in said and "slower, inside the TRM range" in said
    assert "2 slower (1 outside the TRM range)" in said and "Cortex-M3 TRM" in said
    document = json.loads((tmp_path / "c.json").read_text())
    assert document["fail_on"] == "any"
    by_name = {c["result"].split("/")[2]: c for c in document["comparisons"]}
    assert by_name["resume"]["range"] == "outside"
    assert by_name["resume"]["base_range"] == [119, 131] and by_name["resume"]["new_range"] == [133, 145]
    assert by_name["yield"]["range"] == "inside"
    suite = ElementTree.parse(tmp_path / "compare.xml").getroot()
    messages = {case.get("name"): case.find("failure").get("message") for case in suite}
    assert suite.get("failures") == "2"
    outside, inside = (messages[f"freertos/mps2-an385/{name}/probe median"] for name in ("resume", "yield"))
    assert outside.startswith("slower, outside the TRM range: median 126 -> 140")
    assert "TRM range 119-131 -> 133-145" in outside
    assert inside.startswith("slower, inside the TRM range: median 200 -> 204")


def test_fail_on_outside_range_fails_only_regressions_outside_it(tmp_path, capsys):
    base, new = _ranged_pair(tmp_path)
    status, said = run([base, new, "--fail-on", "outside-range", "--junit", str(tmp_path / "compare.xml")], capsys)
    assert status == 1 and "outside the TRM range where both sides have one" in said
    suite = ElementTree.parse(tmp_path / "compare.xml").getroot()
    assert suite.get("failures") == "1"  # the one inside the range passes, saying so
    passed = [case.find("system-out").text for case in suite if case.find("failure") is None]
    assert len(passed) == 1 and passed[0].startswith("slower, inside the TRM range")
    # only the regression inside the range: the default fails, outside-range does not
    inside = write(tmp_path / "inside.json", result(samples=(126,) * 10, spread=(7, 5)),
                   result("yield", (204,) * 10, spread=(7, 5)))
    assert run([base, inside], capsys)[0] == 1
    assert run([base, inside, "--fail-on", "outside-range"], capsys)[0] == 0
    with pytest.raises(SystemExit) as refused:  # argparse refuses another value, with exit status 2
        run([base, inside, "--fail-on", "everything"], capsys)
    assert refused.value.code == 2


def test_without_ranges_nothing_changes_and_outside_range_still_fails(tmp_path, capsys):
    """Counts without a timing model's range are exact: a regression fails whatever --fail-on says."""
    base = write(tmp_path / "base.json", result())
    new = write(tmp_path / "new.json", result(samples=(268,) * 10))
    for fail_on in ([], ["--fail-on", "outside-range"]):
        status, said = run([base, new, *fail_on, "--json", str(tmp_path / "c.json")], capsys)
        assert status == 1 and "slower," not in said  # the verdict says nothing of a range
        assert said.splitlines()[0].split() == ["result", "unit", "base", "new", "difference", "percent", "verdict"]
        assert ("TRM" in said) == bool(fail_on)  # only the rule in the summary names it
        comparison = json.loads((tmp_path / "c.json").read_text())["comparisons"][0]
        assert comparison["range"] is None and comparison["base_range"] is None and comparison["new_range"] is None


def test_a_suite_directory_is_read_as_its_results(tmp_path, capsys):
    for side, value in (("base", 267), ("new", 267)):
        runs = tmp_path / side / "runs" / "freertos" / "mps2-an385"
        runs.mkdir(parents=True)
        write(runs / "resume.json", result(samples=(value,) * 10))
    assert run([str(tmp_path / "base"), str(tmp_path / "new")], capsys)[0] == 0


def test_results_that_differ_only_in_their_sample_count_are_matched_by_it(tmp_path, capsys):
    """A suite measures rotate at 100, 1,000 and 10,000 switches: each is compared with its own count."""
    base = write(tmp_path / "base.json", result(samples=(267,) * 100), result(samples=(267,) * 1000),
                 result("yield", (126,) * 10))
    new = write(tmp_path / "new.json", result(samples=(267,) * 100), result(samples=(268,) * 1000),
                result("yield", (126,) * 10))
    status, said = run([base, new, "--json", str(tmp_path / "out.json")], capsys)
    assert status == 1, said  # the 1,000-sample one got slower; the 100-sample one did not
    verdicts = {c["result"]: c["verdict"] for c in json.loads((tmp_path / "out.json").read_text())["comparisons"]}
    assert verdicts == {"freertos/mps2-an385/resume/probe (100 samples)": "same",
                        "freertos/mps2-an385/resume/probe (1,000 samples)": "slower",
                        "freertos/mps2-an385/yield/probe": "same"}
    # one count on one side only is listed as such; one count twice on a side is refused
    new = write(tmp_path / "new.json", result(samples=(267,) * 100), result(samples=(267,) * 10000))
    assert run([base, new], capsys)[0] == 0
    new = write(tmp_path / "new.json", result(samples=(267,) * 100), result(samples=(268,) * 100))
    status, said = run([base, new], capsys)
    assert status == 2 and "new: two results for freertos/mps2-an385/resume/probe" in said and "100 samples" in said


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not JSON"),
    ('{"something": 1}', 'no "results" list'),
    ('{"results": [{"scenario": "x"}]}', "results[0]: 'method' is a required property"),
    ('{"results": [{"schema": "switchscope.result/9", "scenario": "x"}]}', "switchscope.result/9"),
])
def test_malformed_input_is_a_clear_error(tmp_path, capsys, content, fragment):
    (tmp_path / "bad.json").write_text(content)
    base = write(tmp_path / "base.json", result())
    status, said = run([base, str(tmp_path / "bad.json")], capsys)
    assert status == 2 and fragment in said and "Traceback" not in said


def test_bad_arguments_are_clear_errors(tmp_path, capsys):
    base = write(tmp_path / "base.json", result())
    assert run([base, str(tmp_path / "missing.json")], capsys)[0] == 2
    assert run([base, base, "--metric", "fastest"], capsys)[0] == 2
    assert run([base, base, "--threshold", "lots"], capsys)[0] == 2
    status, said = run([base, base, "--json", base], capsys)
    assert status == 2 and "is the input" in said


def test_threshold_parsing():
    assert Threshold.parse("2%") == Threshold(0.02, True)
    assert Threshold.parse("5") == Threshold(5.0, False)
    with pytest.raises(SwitchscopeError):
        Threshold.parse("-1")


@pytest.mark.firmware
def test_a_real_change_is_compared(tmp_path, capsys):
    """FreeRTOS at -Os against -O2 on the AVR: the same scenarios, other code."""
    base, new = tmp_path / "o2.json", tmp_path / "os.json"
    for path, opt in ((base, "-O2"), (new, "-Os")):
        assert cli.main(["run", "--target", "atmega328p", "--samples", "100", "--quiet", "--config", f"opt={opt}",
                         "--json", str(path)]) == 0
    capsys.readouterr()
    status, said = run([str(base), str(new)], capsys)
    # matched by configuration: -O2 and -Os are other configurations, so nothing pairs up: a CI job must not pass
    assert status == 2 and "nothing in common to compare" in said and "--ignore-option opt" in said
    status, said = run([str(base), str(new), "--ignore-option", "opt", "--json", str(tmp_path / "c.json")], capsys)
    comparisons = json.loads((tmp_path / "c.json").read_text())["comparisons"]
    every_scenario = catalog.select_scenarios("all")  # FreeRTOS runs each on the ATmega328P
    assert len(comparisons) == len(every_scenario)
    assert all(c["base"] is not None and c["new"] is not None for c in comparisons)
    assert all("opt -O2 vs -Os" in c["why"] for c in comparisons)
    assert status == (1 if any(c["verdict"] == "slower" for c in comparisons) else 0)
    print(said)  # the table, for the record


def latency(samples, covered=588, period=588, one_per_phase=True) -> dict:
    """An irq-latency result: its worst case and the loop's phases its sweep covered."""
    document = result("irq-latency", samples)
    document.update(method="marker", worst={"cycles": max(samples), "sample": 0, "samples": 1},
                    phases={"covered": covered, "period": period, "steps": "instructions",
                            **({"one_per_phase": True} if one_per_phase else {})})
    return document


def test_an_interrupt_latency_is_compared_by_its_worst_case_too(tmp_path, capsys):
    # the same median, a worse worst case: slower, and the worst case says why
    status, said = run([write(tmp_path / "a.json", latency([12] * 9 + [189])),
                        write(tmp_path / "b.json", latency([12] * 9 + [250]))], capsys)
    assert status == 1, said
    assert "slower" in said and "worst 189 -> 250 cycles" in said


def test_a_sweep_that_met_part_of_the_loop_is_not_compared_with_a_whole_one(tmp_path, capsys):
    status, said = run([write(tmp_path / "a.json", latency([12] * 10)),
                        write(tmp_path / "b.json", latency([12] * 9 + [40], covered=400))], capsys)
    assert status == 2, said  # the one pair was not compared: nothing was
    assert "not comparable" in said and "all steps vs 400 of 588 steps" in said


def test_one_sample_per_step_is_not_compared_with_every_sample_of_an_older_run(tmp_path, capsys):
    status, said = run([write(tmp_path / "a.json", latency([12] * 10, one_per_phase=False)),
                        write(tmp_path / "b.json", latency([12] * 10))], capsys)
    assert status == 2 and "not comparable" in said, said
    assert "every sample the run took vs one sample per step of the loop" in said


def test_across_targets_holds_a_model_against_the_rtl_scenario_by_scenario(tmp_path, capsys):
    rtl = write(tmp_path / "rtl.json", result("yield", (300,) * 10, target="ibex"))
    model = write(tmp_path / "model.json", result("yield", (297,) * 10, target="ibex-qemu"))
    status, said = run([rtl, model], capsys)
    assert status == 2 and "nothing in common" in said  # by default a target is part of the match
    status, said = run([rtl, model, "--across-targets"], capsys)
    assert status == 0, said
    assert "ibex vs ibex-qemu" in said and "-1.00%" in said  # (297 - 300) / 300


def test_across_targets_wants_one_target_a_side_and_is_suggested_when_only_targets_differ(tmp_path, capsys):
    both = write(tmp_path / "both.json", result("yield", target="ibex"), result("yield", target="ibex-qemu"))
    status, said = run([both, both, "--across-targets"], capsys)
    assert status == 2 and "holds 2: ibex, ibex-qemu" in said and "a file of its own" in said, said
    rtl = write(tmp_path / "rtl.json", result("yield", target="ibex"))
    model = write(tmp_path / "model.json", result("yield", target="ibex-qemu"))
    status, said = run([rtl, model], capsys)
    assert status == 2 and "add --across-targets" in said, said


def test_across_targets_between_other_cores_says_what_differs_and_gives_no_verdict(tmp_path, capsys):
    """A Cortex-M0 model's cycles at 16 MHz against Ibex's RTL cycles at 50 MHz are no regression of anything:
    listed as not comparable, naming both cores, and the job compared nothing (exit 2, not 1 for "slower")."""
    m0 = write(tmp_path / "m0.json", result("yield", (106,) * 10, target="microbit"),
               result("isr", (300,) * 10, target="microbit"))
    rtl = write(tmp_path / "rtl.json", result("yield", (134,) * 10, target="ibex"),
                result("isr", (300,) * 10, target="ibex"))
    status, said = run([m0, rtl, "--across-targets"], capsys)
    assert status == 2, said
    assert "slower" not in said and "faster" not in said
    assert ("core cortex-m0 at 16 MHz (the cortex-m0 timing model) vs rv32imc small at 50 MHz (its RTL)"
            in said), said
    assert "--allow-different-cores" in said  # the hint names the way to ask for a verdict anyway
    # asked for explicitly, the verdict is given, and every pair says the cores differ
    status, said = run([m0, rtl, "--across-targets", "--allow-different-cores"], capsys)
    assert status == 1 and "slower" in said and "+26.42%" in said, said  # (134 - 106) / 106
    assert "every pair: core cortex-m0 at 16 MHz" in said
    status, said = run([m0, rtl, "--allow-different-cores"], capsys)
    assert status == 2 and "--allow-different-cores goes with --across-targets" in said


def test_across_targets_between_other_cores_with_their_own_switch_options_says_both_steps(tmp_path, capsys):
    """FreeRTOS switches by PendSV on a Cortex-M0 and by ecall on RISC-V (kernel.toml, options.switch): the
    pairs are first apart by that option, and ignoring it still leaves two cores."""
    def switching(how: str, **given) -> dict:
        return {**result("yield", **given), "options": {"opt": "-O2", "switch": how}}
    m0 = write(tmp_path / "m0.json", switching("pendsv", samples=(106,) * 10, target="microbit"))
    rtl = write(tmp_path / "rtl.json", switching("ecall", samples=(134,) * 10, target="ibex"))
    status, said = run([m0, rtl, "--across-targets"], capsys)
    assert status == 2 and "only in base" in said, said
    assert "they differ in switch: to compare across that, add --ignore-option switch" in said
    assert ("even so, they differ in core cortex-m0 at 16 MHz (the cortex-m0 timing model) vs rv32imc small at "
            "50 MHz (its RTL)") in said and "--allow-different-cores" in said
    status, said = run([m0, rtl, "--across-targets", "--ignore-option", "switch"], capsys)
    assert status == 2 and "not comparable (core cortex-m0 at 16 MHz" in said, said


def test_across_targets_between_two_timing_models_prints_what_differs(tmp_path, capsys):
    m0 = write(tmp_path / "m0.json", result("yield", (106,) * 10, target="microbit"),
               result("isr", (300,) * 10, target="microbit"))
    m0plus = write(tmp_path / "m0plus.json", result("yield", (104,) * 10, target="microbit-m0plus"),
                   result("isr", (290,) * 10, target="microbit-m0plus"))
    status, said = run([m0, m0plus, "--across-targets"], capsys)
    assert status == 2 and "faster" not in said, said
    assert ("every pair: core cortex-m0 at 16 MHz (the cortex-m0 timing model) vs cortex-m0plus at 16 MHz "
            "(the cortex-m0plus timing model)") in said


def _side(tmp_path, name, results, **fields) -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"results": list(results), **fields}))
    return str(path)


@pytest.mark.parametrize("base_results, new_results, new_fields, fragment", [
    ([], [], {}, "hold no results: nothing to compare"),
    ([result()], [], {"failures": [{"job": "freertos resume, probe on mps2-an385", "error": "the firmware ended"}]},
     "new.json holds no results: the measurement of the change measured nothing (1 measurement failed, e.g. "
     "freertos resume, probe on mps2-an385: the firmware ended)"),
    ([], [result()], {}, "base.json holds no results"),
    ([result()], [result()], {"incomplete": "interrupted after 1 of 2 measurements"},
     "new.json: incomplete (interrupted after 1 of 2 measurements)"),
], ids=["both empty", "new measured nothing", "base empty", "new interrupted"])
def test_a_side_that_measured_nothing_or_part_is_refused(tmp_path, monkeypatch, capsys, base_results, new_results,
                                                         new_fields, fragment):
    monkeypatch.chdir(tmp_path)
    base = _side(tmp_path, "base.json", base_results)
    new = _side(tmp_path, "new.json", new_results, **new_fields)
    status, said = run([base, new, "--junit", str(tmp_path / "c.xml")], capsys)
    assert status == 2 and fragment in said, said
    assert not (tmp_path / "c.xml").exists()


def test_a_measurement_of_the_change_that_failed_fails_the_job(tmp_path, capsys):
    """What failed in NEW could hide any regression: the job fails (exit 1, a measurement failed) and says it."""
    base = _side(tmp_path, "base.json", [result(), result("yield", (126,) * 10)])
    new = _side(tmp_path, "new.json", [result()],
                failures=[{"job": "freertos yield, probe on mps2-an385", "error": "no task switch found"}])
    status, said = run([base, new, "--junit", str(tmp_path / "c.xml")], capsys)
    assert status == 1, said
    assert "new: a measurement failed" in said and "freertos yield, probe on mps2-an385: no task switch found" in said
    suite = ElementTree.parse(tmp_path / "c.xml").getroot()
    assert suite.get("failures") == "1"
    assert [case.get("name") for case in suite if case.find("failure") is not None] == [
        "new: freertos yield, probe on mps2-an385 failed"]


def test_a_key_written_twice_is_refused(tmp_path, capsys):
    base = write(tmp_path / "base.json", result())
    text = json.dumps({"results": [result()]})
    (tmp_path / "new.json").write_text(text.replace('"samples": [', '"samples": [1], "samples": [', 1))
    status, said = run([base, str(tmp_path / "new.json")], capsys)
    assert status == 2 and "the key 'samples' is written twice in one object" in said, said


FORGED = [  # (a result no run writes, what the refusal says)
    (dict(result(target="ibex", unit="cycles"), unit="instructions", timing_model=None),
     "a result of ibex in instructions, and ibex counts cycles only (its RTL on Verilator)"),
    (dict(result(target="ibex-qemu"), target="ibex"),  # the model's cycles relabelled as the RTL's
     "a result of ibex timed by the ibex-small model, and it has no timing model"),
    (dict(result(target="ibex-qemu"), target="ibex", timing_model=None),
     "a result of ibex measured on 'QEMU emulator version 10.0.2', and ibex runs on verilator"),
    (dict(latency([12] * 9 + [189]), worst={"cycles": 150, "sample": 0, "samples": 1}),
     "worst.cycles is 150, below its largest sample 189"),
    (dict(result(), stats=dict(result()["stats"], median=200)), "stats.median is 200, and its samples' median is 267"),
    (dict(result(), count=11), "'count' is 11, and the result holds 10 samples"),
]


@pytest.mark.parametrize("forged, fragment", FORGED, ids=[f[:30] for _, f in FORGED])
def test_a_forged_result_is_refused_with_the_reason(tmp_path, capsys, forged, fragment):
    base = write(tmp_path / "base.json", forged)
    new = write(tmp_path / "new.json", forged)
    status, said = run([base, new, "--across-targets"], capsys)
    assert status == 2 and fragment in said and "Traceback" not in said, said


def test_a_fifo_is_named_as_such(tmp_path, capsys):
    base = write(tmp_path / "base.json", result())
    fifo = tmp_path / "new.fifo"
    os.mkfifo(fifo)
    status, said = run([base, str(fifo)], capsys)
    assert status == 2 and "no such file" not in said, said
    assert f"new {fifo}: a FIFO (a pipe), not a file" in said


def test_standard_input_is_named_for_what_it_is(tmp_path):
    """compare base.json /dev/stdin, fed by a pipe: said to be a pipe, not "no such file"."""
    import subprocess
    import sys
    base = write(tmp_path / "base.json", result())
    done = subprocess.run([sys.executable, "-m", "switchscope", "compare", base, "/dev/stdin"], cwd=tmp_path,
                          input=json.dumps({"results": [result()]}), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "new /dev/stdin: a FIFO (a pipe), not a file" in done.stderr and "save it to a file first" in done.stderr


def test_an_interrupted_suite_is_refused(tmp_path, capsys):
    """Its run files are whole results; only its plan.json says what it did not measure."""
    for side in ("base", "new"):
        runs = tmp_path / side / "runs" / "freertos" / "mps2-an385"
        runs.mkdir(parents=True)
        write(runs / "resume.json", result())
        (tmp_path / side / "plan.json").write_text(json.dumps({"kernels": ["freertos"], "complete": side == "base"}))
    status, said = run([str(tmp_path / "base"), str(tmp_path / "new")], capsys)
    assert status == 2, said
    assert f"new {tmp_path / 'new'}: incomplete (its suite was interrupted" in said and "suite --out DIR --resume" in said


@pytest.mark.firmware
def test_a_measurement_that_failed_in_a_new_suite_fails_the_job(tmp_path, capsys):
    """A suite writes no file for a measurement that failed: only its plan says the measurement is missing, and
    "only in base" would let the job pass."""
    import shutil
    assert cli.main(["suite", "--kernel", "floor", "--target", "atmega328p", "--samples", "40", "--quiet", "--out",
                     str(tmp_path / "base")]) == 0
    shutil.copytree(tmp_path / "base", tmp_path / "new")
    assert run([str(tmp_path / "base"), str(tmp_path / "new")], capsys)[0] == 0  # the same suite: nothing missing
    removed = sorted((tmp_path / "new").glob("runs/**/*.json"))[0]
    removed.unlink()
    status, said = run([str(tmp_path / "base"), str(tmp_path / "new")], capsys)
    assert status == 1, said
    assert "only in base" in said and "error: new: a measurement failed, so its figure cannot be compared: " \
        f"floor/atmega328p/{removed.stem.split('-default')[0]}" in said, said
    assert f"no result in {tmp_path / 'new'} (the measurement failed where it was measured)" in said
