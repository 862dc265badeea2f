"""The TRM range (the least and the most cycles the core's manual allows for the instructions a timing model
counted) beside the model's figures: in the terminal's tables, in the HTML report, and in compare's verdict
of whether a change lies outside it. Results without a range look as they always did. Pure: hand-made results."""

import re

import pytest

from switchscope.common.errors import SwitchscopeError
from switchscope.figures.result import Result, Stats
from switchscope.figures.results_files import ResultsFile
from switchscope.present import compare, compare_text, html_report, report

NO_CHANGE = compare.Threshold(0, False)


def result(scenario="resume", samples=(126,) * 10, spread=(7, 5), model="cortex-m3", unit="cycles",
           **fields) -> Result:
    """A result whose every sample's TRM range is sample - spread[0] to sample + spread[1] (None: no range)."""
    bounds = {side: Stats.of([s + offset for s in samples]).as_dict()
              for side, offset in (("min", -spread[0]), ("max", spread[1]))} if spread else None
    return Result(kind="scenario", scenario=scenario, method="probe", unit=unit, samples=list(samples), overhead=7,
                  first=samples[0], timing_model=model if unit == "cycles" else None, bounds=bounds,
                  kernel="freertos", kernel_version="V11.1.0", target="mps2-an385", cpu="cortex-m3",
                  f_cpu_hz=25e6, options={"opt": "-O2"}, config={"optimisation": "-O2"},
                  toolchain={"compiler": "arm-none-eabi-gcc 12.2.1"},
                  simulator={"name": "QEMU emulator version 10.0.2"},
                  firmware={"flash_bytes": 9000, "flash_limit": 4194304, "ram_bytes": 3000, "ram_limit": 4194304},
                  **fields)


def header(text: str, first: str) -> list[str]:
    """The column names of the table whose first column is `first`."""
    return next(line.split() for line in text.splitlines() if line.split()[:1] == [first])


def test_the_range_column_follows_the_median_only_when_a_result_has_bounds():
    ranged = report.table([result(), result("yield", (200,) * 10, spread=None)])
    assert header(ranged, "scenario") == ["scenario", *report.columns()[:4], "TRM", "range", *report.columns()[4:]]
    cycles = ranged.split("in µs")[0]  # the table in cycles, not the one in µs under it
    rows = {line.split()[0]: line.split() for line in cycles.splitlines() if line.split()[:1] in (["resume"],
                                                                                                   ["yield"])}
    assert rows["resume"][5] == "119-131"  # median 126, 7 below and 5 above
    assert rows["yield"][5] == "-"  # a row without a range in a table with one
    assert ("TRM range: the median of the least and of the most cycles the Cortex-M3 TRM allows for the same "
            "instructions") in ranged
    plain = report.table([result(spread=None), result("yield", (200,) * 10, spread=None)])
    assert header(plain, "scenario") == ["scenario", *report.columns()] and "TRM" not in plain


def test_measure_and_sweep_tables_show_the_range_too():
    measured = result(source="app.elf", details={"from": {"point": "a", "address": 0x100},
                                                 "to": {"point": "b", "address": 0x200}})
    assert "119-131" in report.marker_table(measured) and "TRM range" in report.marker_table(measured)
    plain = dict(measured.__dict__, bounds=None)
    assert "TRM" not in report.marker_table(Result(**plain))
    sweep = report.sweep_table([result(), result("yield", (200,) * 10, spread=None)])
    names = header(sweep, "kernel")
    assert names[names.index("median") + 1:names.index("median") + 3] == ["TRM", "range"]
    assert "119-131" in sweep
    assert "TRM" not in report.sweep_table([result(spread=None)])


def test_the_note_names_the_core_of_the_model():
    assert "Cortex-M4 TRM" in report.table([result(model="cortex-m4")])
    assert report.range_note([result(spread=None)]) == ""


def test_a_result_read_back_from_json_keeps_its_bounds():
    measured = result(samples=(126, 127, 130) * 4)
    again = Result.from_json(measured.to_json())
    assert again.bounds == measured.bounds and again.bound_stats == measured.bound_stats
    low, high = again.bound_stats
    assert low.median == 120 and high.median == 132 and low.median <= again.stats.median <= high.median
    assert Result.from_json(result(spread=None).to_json()).bounds is None


def test_a_result_file_with_nan_samples_is_refused():
    document = result().to_json()
    document["samples"][3] = float("nan")
    with pytest.raises(SwitchscopeError, match="finite numbers"):
        Result.from_json(document)


@pytest.mark.parametrize("alter, why", [
    (lambda d: d["bounds"]["min"].update(median=1000), "a least above the median"),
    (lambda d: d["bounds"].update(min=d["bounds"]["max"], max=d["bounds"]["min"]), "least and most swapped"),
    (lambda d: d.update(unit="instructions"), "a range on an exact count"),
    (lambda d: d["bounds"]["max"].pop("p99"), "a statistic missing"),
])
def test_a_result_file_with_an_impossible_range_is_refused(alter, why):
    document = result().to_json()
    alter(document)
    with pytest.raises(SwitchscopeError, match="bounds"):
        Result.from_json(document)


@pytest.mark.parametrize("base, new, spread, expected", [
    (126, 140, (7, 5), "outside"),  # 119-131 and 133-145: 133 > 131
    (126, 130, (7, 5), "inside"),  # 119-131 and 123-135 overlap
    (126, 138, (7, 5), "inside"),  # 119-131 and 131-143 share 131: a chip could show 131 for both
    (126, 110, (7, 5), "outside"),  # faster: 103-115 lies below 119
    (126, 126, (7, 5), "inside"),  # the same figure
    (126, 140, None, None),  # no range on either side
])
def test_a_change_is_outside_the_range_only_when_the_ranges_do_not_overlap(base, new, spread, expected):
    found, = compare.compare([result(samples=(base,) * 10, spread=spread)],
                             [result(samples=(new,) * 10, spread=spread)], "median", NO_CHANGE)
    assert found.range == expected
    assert found.as_json()["range"] == expected


def test_the_range_is_the_compared_metric_s():
    """The maximum: base 100..300 (max range 295-305), new 100..320 (315-325): outside, though the medians agree."""
    found, = compare.compare([result(samples=(100,) * 9 + (300,))], [result(samples=(100,) * 9 + (320,))],
                             "max", NO_CHANGE)
    assert found.verdict == "slower" and found.range == "outside"
    assert (found.base_range, found.new_range) == ((293, 305), (313, 325))


def test_one_side_without_a_range_or_not_comparable_says_nothing_of_it():
    found, = compare.compare([result(spread=None)], [result(samples=(140,) * 10)], "median", NO_CHANGE)
    assert found.range is None and found.new_range == (133, 145) and found.base_range is None
    found, = compare.compare([result()], [result(samples=(140,) * 10, model="cortex-m4")], "median", NO_CHANGE)
    assert found.verdict == "not comparable" and found.range is None and found.as_json()["new_range"] is None


def test_the_summary_counts_the_changes_outside_the_range_and_the_policy_picks_the_failures():
    base = [result(), result("yield", (200,) * 10)]
    new = [result(samples=(140,) * 10), result("yield", (204,) * 10)]  # outside, inside
    found = compare.compare(base, new, "median", NO_CHANGE)
    assert "2 slower (1 outside the TRM range)" in compare_text.summary(found, NO_CHANGE)
    assert len(compare.regressions(found)) == 2
    assert [c.name for c in compare.regressions(found, "outside-range")] == ["freertos/mps2-an385/resume/probe"]
    rows = compare_text.table_rows(found, "outside-range")
    assert rows[0][4:6] == ["base TRM range", "new TRM range"]
    verdicts = {row[0]: row[-1] for row in rows[1:]}
    assert verdicts["freertos/mps2-an385/resume/probe"] == "[red]slower, outside the TRM range[/red]"
    # inside the range it does not fail the command under outside-range: yellow, not red
    assert verdicts["freertos/mps2-an385/yield/probe"] == "[yellow]slower, inside the TRM range[/yellow]"


def test_compare_without_ranges_looks_as_before():
    found = compare.compare([result(spread=None)], [result(samples=(140,) * 10, spread=None)], "median", NO_CHANGE)
    assert compare_text.table_rows(found)[0] == ["result", "unit", "base", "new", "difference", "percent", "verdict"]
    assert compare_text.table_rows(found)[1][-1] == "[red]slower[/red]"
    assert "TRM" not in compare_text.summary(found, NO_CHANGE)


def page(tmp_path, results: list[Result]) -> str:
    return html_report.render([ResultsFile(tmp_path / "run.json", results)], tmp_path / "report.html")


def test_the_html_report_shows_the_range_beside_the_median(tmp_path):
    text = page(tmp_path, [result(samples=(1260,) * 10, spread=(70, 50)),
                           result("yield", (200,) * 10, spread=None)])
    table = re.search(r'<table class="sortable results" id="every-result">.*?</table>', text).group(0)
    names = re.findall(r'<th[^>]*scope="col">([^<]*)</th>', table)
    assert names[names.index("median") + 1] == "TRM range"
    assert "<td>1,190-1,310</td>" in table and "<td>-</td>" in table  # figures written as the page writes them
    assert "the median of the least and of the most cycles the Cortex-M3 TRM allows" in text
    # the result's own section: the median with its range, and a row of each statistic's least and most
    first = re.search(r'<details class="result" id="result-1"[^>]*>.*?</details>', text).group(0)
    assert '<span class="us">(TRM 1,190-1,310)</span>' in first
    assert "<td class=text>TRM least</td>" in first and "<td class=text>TRM most</td>" in first
    assert "the least and the most cycles the Cortex-M3 TRM allows for the same instructions" in first
    second = re.search(r'<details class="result" id="result-2"[^>]*>.*?</details>', text).group(0)
    assert "TRM" not in second
    # still self-contained: nothing fetched
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|url\(", text)


def test_an_html_report_without_ranges_has_no_trace_of_them(tmp_path):
    assert "TRM" not in page(tmp_path, [result(spread=None), result("yield", (200,) * 10, unit="instructions",
                                                                      spread=None)])
