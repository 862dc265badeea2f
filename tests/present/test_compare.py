"""`switchscope compare`: matching, verdicts, exit statuses, JUnit and JSON
outputs, and a clear error for every bad input."""

import json
import signal
from xml.etree import ElementTree

import pytest

from switchscope import catalog, cli
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.result import Result, Stats
from switchscope.present.compare import Threshold


def result(scenario="resume", samples=(267,) * 10, unit="cycles", opt="-O2", kernel="freertos",
           target="mps2-an385", simulator="QEMU emulator version 10.0.2", spread=None) -> dict:
    """`spread` (below, above): each sample's TRM range is sample - below to sample + above."""
    bounds = {side: Stats.of([s + offset for s in samples]).as_dict()
              for side, offset in (("min", -spread[0]), ("max", spread[1]))} if spread else None
    return Result(kind="scenario", scenario=scenario, method="probe", unit=unit, samples=list(samples), overhead=7,
                  first=samples[0], kernel=kernel, target=target, options={"opt": opt},
                  timing_model="cortex-m3" if unit == "cycles" else None, bounds=bounds,
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
    base = write(tmp_path / "base.json", result())
    new = write(tmp_path / "new.json", result(unit="instructions", samples=(143,) * 10))
    status, said = run([base, new], capsys)
    assert status == 0
    assert "not comparable" in said and "unit cycles vs instructions" in said


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
    assert status == 0, said
    assert "not comparable" in said and "all steps vs 400 of 588 steps" in said


def test_one_sample_per_step_is_not_compared_with_every_sample_of_an_older_run(tmp_path, capsys):
    status, said = run([write(tmp_path / "a.json", latency([12] * 10, one_per_phase=False)),
                        write(tmp_path / "b.json", latency([12] * 10))], capsys)
    assert status == 0 and "not comparable" in said, said
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
