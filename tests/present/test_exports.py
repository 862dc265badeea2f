"""--export-csv, --export-markdown and --percentiles: one row per result with
its identity, unit and statistics; percentiles by nearest rank, checked
against numpy's inverted-CDF percentile (the same definition)."""

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import refused_cleanly, run_command
from switchscope.figures.result import Result
from switchscope.present import exports, report


def _result(samples, scenario="yield", **fields):
    base = dict(kernel="freertos", kernel_version="V11.2.0", target="mps2-an385", cpu="cortex-m3",
                f_cpu_hz=25_000_000, options={"preemption": "on"}, toolchain={"compiler": "gcc 12"},
                simulator={"name": "QEMU 10"})
    return Result("scenario", scenario, "probe", "cycles", list(samples), 8, samples[0], **{**base, **fields})


@pytest.mark.property
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=300),
       st.floats(0.01, 100, allow_nan=False))
def test_a_percentile_is_the_nearest_rank(samples, percent):
    expected = np.percentile(np.array(samples), percent, method="inverted_cdf")
    assert _result(samples).percentile(percent) == expected


def test_the_csv_has_a_row_per_result_with_the_chosen_percentiles():
    results = [_result(list(range(1, 1001))), _result([124] * 10, tasks=3, scenario="rotate")]
    rows = list(csv.DictReader(io.StringIO(exports.csv_text(results, (50.0, 90.0, 99.9)))))
    assert len(rows) == 2
    assert (rows[0]["p50"], rows[0]["p90"], rows[0]["p99.9"], rows[0]["min"], rows[0]["max"]) == \
        ("500", "900", "999", "1", "1000")
    assert rows[0]["unit"] == "cycles" and rows[0]["configuration"] == "preemption=on"
    assert rows[0]["ns_per_unit"] == "40.0" and rows[0]["compiler"] == "gcc 12"
    assert rows[1]["tasks"] == "3" and rows[1]["p50"] == "124"
    assert "p99" not in rows[0]  # the chosen set replaces the default


def test_the_markdown_is_a_table_with_the_provenance_said_once():
    text = exports.markdown_text([_result([5, 6, 7]), _result([8, 9])])
    lines = text.splitlines()
    assert lines[0].startswith("| kernel | kernel_version | target |") and "| p99 |" in lines[0]
    assert set(lines[1]) <= set("|-") and lines[1].count("|") == lines[0].count("|")
    assert lines[2].count("|") == lines[0].count("|")
    assert text.count("Measured with gcc 12, QEMU 10") == 1


def test_the_table_shows_the_chosen_percentiles():
    text = report.table([_result(list(range(1, 101)))], (50.0, 99.9))
    header, _, us_header, us_row = [line.split() for line in text.splitlines()
                                    if line.strip().startswith(("scenario", "yield"))]
    assert header[-3:] == ["p50", "p99.9", "first"]
    # the same percentiles in microseconds: 25 MHz, 40 ns a cycle; ranks 50 and 100 of 1..100
    assert us_header[-2:] == ["p50", "p99.9"] and us_row[-2:] == ["2.000", "4.000"]


@pytest.mark.parametrize("value, fragment", [("0", "0 is the minimum"), ("100.5", "outside 0 to 100"),
                                             ("50,x", "'x' is not a number"), ("nan", "outside 0 to 100")])
def test_a_bad_percentile_is_refused(tmp_path, monkeypatch, capsys, value, fragment):
    refused_cleanly(tmp_path, {}, ["run", "--percentiles", value], 2, fragment, monkeypatch, capsys)


def test_an_export_onto_another_output_is_refused(tmp_path, monkeypatch, capsys):
    refused_cleanly(tmp_path, {}, ["sweep", "--json", "out", "--export-csv", "out"], 2,
                    "--export-csv out: is also the file of --json", monkeypatch, capsys)


@pytest.mark.firmware
def test_run_writes_the_exports_it_is_asked_for(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["run", "--scenario", "yield", "--samples", "50", "--percentiles", "50,99.9",
                                "--export-csv", "r.csv", "--export-markdown", "r.md", "--json", "r.json",
                                "--quiet"], capsys)
    assert status == 0, said
    (row,) = csv.DictReader((tmp_path / "r.csv").open())
    (result,) = json.loads((tmp_path / "r.json").read_text())["results"]
    assert row["median"] == str(float(result["stats"]["median"])) and row["p99.9"] == str(max(result["samples"]))
    assert "| yield |" in (tmp_path / "r.md").read_text()
