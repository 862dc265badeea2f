"""What a directory given to report or compare stands for: a suite's runs, its runs/ tree given
itself, a folder of suites or of runs' files at any depth; never a suite's plan.json."""

import json

import pytest

from conftest import refused_cleanly, run_command
from switchscope.figures import results_files
from switchscope.figures.result import Result
from switchscope.present import report


def _result(scenario: str) -> Result:
    return Result("scenario", scenario, "probe", "cycles", [120] * 5, 8, 120, kernel="freertos",
                  kernel_version="V11.2.0", target="mps2-an385", cpu="cortex-m3", f_cpu_hz=25_000_000,
                  config={"configTICK_RATE_HZ": "100", "optimisation": "-O2"}, toolchain={"compiler": "gcc"},
                  simulator={"name": "QEMU"})


def _write(path, scenario):
    path.parent.mkdir(parents=True, exist_ok=True)
    report.write_json(path, [_result(scenario)], [])


@pytest.fixture
def tree(tmp_path):
    """Two suites (each a plan.json beside runs/kernel/target/*.json) and loose runs two folders down."""
    for suite, scenario in (("suite-a", "yield"), ("suite-b", "resume")):
        (tmp_path / "all" / suite).mkdir(parents=True)
        (tmp_path / "all" / suite / "plan.json").write_text(json.dumps({"kernels": ["freertos"]}))
        _write(tmp_path / "all" / suite / "runs" / "freertos" / "mps2-an385" / f"{scenario}.json", scenario)
    _write(tmp_path / "all" / "loose" / "monday" / "signal.json", "signal")
    return tmp_path / "all"


def test_a_folder_of_suites_and_runs_gives_every_result_file_and_no_plan(tree):
    files = results_files.files_in(tree, "input")
    assert [f.relative_to(tree).as_posix() for f in files] == [
        "loose/monday/signal.json", "suite-a/runs/freertos/mps2-an385/yield.json",
        "suite-b/runs/freertos/mps2-an385/resume.json"]


def test_a_suites_runs_tree_given_itself_gives_its_files(tree):
    files = results_files.files_in(tree / "suite-a" / "runs", "input")
    assert [f.name for f in files] == ["yield.json"]


def test_report_reads_a_folder_of_folders(tree, tmp_path, capsys):
    page = tmp_path / "page.html"
    status, said = run_command(["report", str(tree), "--html", str(page)], capsys)
    assert status == 0, said
    assert "3 results from 3 files" in said
    html = page.read_text()
    assert all(scenario in html for scenario in ("yield", "resume", "signal"))
    status, said = run_command(["report", str(tree / "suite-b" / "runs"), "--html", str(page)], capsys)
    assert status == 0 and "1 result from 1 file\n" in said, said


def test_a_folder_with_no_results_at_any_depth_is_refused(tmp_path, monkeypatch, capsys):
    refused_cleanly(tmp_path, {"empty/deeper/notes.txt": "x"}, ["report", "empty", "--html", "page.html"], 2,
                    "a directory with no results (no *.json in it or its subfolders)", monkeypatch, capsys)


@pytest.mark.parametrize("plan, fragment", [
    (None, "measure again: the same run with --json "),  # run --json, interrupted: run has no --resume
    ({"digest": "0" * 16, "points": 4}, "finish it: the same sweep again with --resume and --json "),
], ids=["run", "sweep"])
def test_an_incomplete_file_is_refused_with_what_finishes_the_command_that_wrote_it(tmp_path, capsys, plan,
                                                                                    fragment):
    whole, cut = tmp_path / "whole.json", tmp_path / "cut.json"
    report.write_json(whole, [_result("yield")], [])
    report.write_json(cut, [_result("yield")], [], incomplete="interrupted after 1 of 2 measurements", plan=plan)
    status, said = run_command(["compare", str(whole), str(cut)], capsys)
    assert status == 2 and f"new {cut}: incomplete (interrupted after 1 of 2 measurements)" in said, said
    assert f"{fragment}{cut}" in said, said
    assert ("--resume" in said) == (plan is not None) and "suite" not in said.split("\n", 1)[1]


def test_the_report_page_counts_its_results_and_files_in_words(tree, tmp_path, capsys):
    page = tmp_path / "page.html"
    for given, said in ((tree, "3 results from 3 files;"), (tree / "suite-b" / "runs", "1 result from 1 file;")):
        status, printed = run_command(["report", str(given), "--html", str(page)], capsys)
        assert status == 0, printed
        assert said in page.read_text()
