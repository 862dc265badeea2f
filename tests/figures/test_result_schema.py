"""Every results file read back (compare, report, sweep --resume) is checked
against host/switchscope/figures/results.schema.json in the one reader:
a bad file is refused naming the file, the field and what was expected;
what switchscope itself writes always passes."""

import json

import jsonschema
import pytest

from conftest import refused_cleanly, run_command
from switchscope.figures import results_files

GOOD = {"scenario": "yield", "method": "probe", "unit": "cycles", "samples": [124, 124, 125], "overhead": 8,
        "first": 124, "kernel": "freertos", "target": "mps2-an385", "options": {"preemption": "on"}}
INTRUSION = {"kernel": "freertos", "target": "mps2-an385", "scenario": "yield", "unit": "cycles", "samples": 100,
             "marker": 124, "probe": {"raw": 132, "adds": 8, "overhead": 8, "corrected": 124, "residual": 0},
             "scope": {"t_cd": 140, "adds": 16, "t_ab": 16, "t_cs": 124, "residual": 0},
             "print": {"raw": 9000, "adds": 8876, "factor": 72.6}}


def _document(**changes) -> str:
    return json.dumps({"results": [{**GOOD, **changes}]})


DEEP = '{"results": [' + "[" * 10000 + "]" * 10000 + "]}"

BAD_FILES = [  # (content, a fragment naming the field and what was expected)
    ('["results"]', 'no "results" list'),
    ('{"results": {"scenario": "yield"}}', 'no "results" list'),
    ('{"results": [["yield", 124]]}', "results[0]: ['yield', 124] is not of type 'object'"),
    (_document(samples="124, 125"), "results[0].samples: '124, 125' is not of type 'array'"),
    (_document(samples=[124, "125"]), "results[0].samples[1]: '125' is not of type 'number'"),
    (_document(samples=[124, True]), "results[0].samples[1]: True is not of type 'number'"),
    (_document(overhead="8"), "results[0].overhead: '8' is not of type 'number'"),
    (_document(unit="furlongs"), "results[0].unit: 'furlongs' is not one of"),
    (_document(tasks=0), "results[0].tasks: 0 is less than the minimum of 1"),
    (_document(options=["preemption"]), "results[0].options: ['preemption'] is not of type 'object'"),
    (_document(bounds={"min": {"min": 1}}), "results[0].bounds: 'max' is a required property"),
    (_document(pairs=[[0, 1, 2]]), "results[0].pairs[0]"),
    (_document(excluded_samples=[{"seq": 3}]), "results[0].excluded_samples[0]: 'value' is a required property"),
    (json.dumps({"results": [{k: v for k, v in GOOD.items() if k != "samples"}]}),
     "results[0]: 'samples' is a required property"),
    ('{"results": [{"scenario": "yield", "method": "probe", "unit": "cycles", "samples": [NaN]}]}',
     "NaN is not a number JSON allows"),
    ('{"results": [{"scenario": "yield", "method": "probe", "unit": "cycles", "samples": [Infinity]}]}',
     "Infinity is not a number JSON allows"),
    (DEEP, "nested too deep"),
    (json.dumps({"results": [{k: v for k, v in INTRUSION.items() if k != "scope"}]}),
     "results[0]: 'scope' is a required property"),
    (json.dumps({"results": [{**INTRUSION, "probe": {"raw": "132"}}]}), "results[0].probe"),
    (json.dumps({"results": [GOOD], "failures": "none"}), "failures: 'none' is not of type 'array'"),
    (json.dumps({"results": [GOOD], "incomplete": 3}), "incomplete: 3 is not of type"),
]
IDS = [fragment[:40] for _, fragment in BAD_FILES]


@pytest.mark.parametrize("content, fragment", BAD_FILES, ids=IDS)
def test_compare_refuses_a_bad_file_naming_the_field(tmp_path, monkeypatch, capsys, content, fragment):
    files = {"good.json": json.dumps({"results": [GOOD]}), "bad.json": content}
    said = refused_cleanly(tmp_path, files, ["compare", "good.json", "bad.json"], 2, fragment, monkeypatch, capsys)
    assert "new bad.json" in said


@pytest.mark.parametrize("content, fragment", BAD_FILES[::3], ids=IDS[::3])
def test_report_refuses_a_bad_file_naming_the_field(tmp_path, monkeypatch, capsys, content, fragment):
    refused_cleanly(tmp_path, {"bad.json": content}, ["report", "bad.json", "--html", "page.html"], 2, fragment,
                    monkeypatch, capsys)


@pytest.mark.parametrize("content, fragment", BAD_FILES[1::3], ids=IDS[1::3])
def test_sweep_resume_refuses_a_bad_file_naming_the_field(tmp_path, monkeypatch, capsys, content, fragment):
    said = refused_cleanly(tmp_path, {"sweep.json": content},
                           ["sweep", "--scenario", "yield", "--samples", "5", "--resume", "--json", "sweep.json"], 2,
                           fragment, monkeypatch, capsys)
    assert "is not the JSON of a sweep" in said


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(json.loads(results_files.SCHEMA_FILE.read_text()))


def test_a_file_written_before_results_said_when_still_reads(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"results": [GOOD, INTRUSION]}))
    found = results_files.read_file(path)
    assert found.results[0].measured_at is None and found.results[0].project is None
    assert found.intrusion == [INTRUSION]


@pytest.mark.firmware
def test_what_switchscope_writes_passes_its_own_schema(tmp_path, monkeypatch, capsys):
    """Every command that writes results, on a real simulator: the schema accepts all of it,
    and each result says when it was measured and, run in a git work tree, at which commit."""
    monkeypatch.chdir(tmp_path)
    commands = {
        "run.json": ["run", "--method", "all", "--samples", "20"],
        "avr.json": ["run", "--target", "atmega328p", "--scenario", "signal", "--samples", "20"],
        "sweep.json": ["sweep", "--scenario", "rotate", "--tasks", "2,3", "--samples", "20"],
        "intrusion.json": ["intrusion", "--scenario", "yield", "--samples", "20"],
    }
    validator = jsonschema.Draft202012Validator(json.loads(results_files.SCHEMA_FILE.read_text()))
    for name, arguments in commands.items():
        status, said = run_command([*arguments, "--json", name], capsys)
        assert status == 0, said
        document = json.loads((tmp_path / name).read_text())
        assert not list(validator.iter_errors(document)), name
        found = results_files.read_file(tmp_path / name)
        assert found.results or found.intrusion
        for result in found.results:
            assert result.measured_at and result.measured_at.endswith("+00:00")
            assert result.project is None  # tmp_path is in no git work tree


def test_a_result_made_in_a_git_work_tree_names_its_commit(tmp_path, monkeypatch):
    import subprocess

    from switchscope.common import provenance
    from switchscope.figures.result import Result

    def git(*arguments):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *arguments], cwd=tmp_path,
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "kernel.c").write_text("int x;\n")
    git("add", "kernel.c")
    git("commit", "-qm", "a kernel")
    monkeypatch.chdir(tmp_path)
    provenance._project_in.cache_clear()
    try:
        clean = Result("scenario", "yield", "probe", "cycles", [1], 0, 1).project
        (tmp_path / "kernel.c").write_text("int y;\n")
        provenance._project_in.cache_clear()
        dirty = Result("scenario", "yield", "probe", "cycles", [1], 0, 1).project
    finally:
        provenance._project_in.cache_clear()
    assert clean == {"repository": str(tmp_path.resolve()), "commit": git("rev-parse", "HEAD"), "dirty": False}
    assert dirty["dirty"] is True
