"""switchscope merge: two shares of a suite (--subset 1/2, 2/2) merged are the whole suite's results,
sample for sample, with its summary; two shares of a sweep merged are the whole sweep's; a missing
share, a share of another plan and a measurement two shares give different samples are refused."""

import itertools
import json
import re
import shutil

import pytest

from conftest import VARYING_FIELDS, measured_fields, run_command
from switchscope.decode import stats

pytestmark = pytest.mark.firmware

SUITE = ["suite", "--kernel", "floor", "--target", "atmega328p", "--samples", "40", "--quiet"]
SWEEP = ["sweep", "--kernel", "freertos", "--target", "mps2-an385", "--scenario", "rotate", "--tasks", "2-4",
         "--config", "preemption=on,off", "--samples", "40", "--quiet"]


def _side_by_side(directory) -> list[list[str]]:
    """The rows of the summary's first side-by-side table, each a list of its cells."""
    lines = (directory / "summary.md").read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("## Kernels side by side")), None)
    if start is None:
        return []
    table = list(itertools.takewhile(lambda line: line.startswith("|"), lines[start + 2:]))
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in table[2:]]  # after the header


def test_two_shares_of_a_suite_merged_are_the_whole_suite(tmp_path, capsys):
    for share in ("1/2", "2/2"):
        assert run_command([*SUITE, "--subset", share, "--out", str(tmp_path / share[0])], capsys)[0] == 0
    assert run_command([*SUITE, "--out", str(tmp_path / "whole")], capsys)[0] == 0
    status, said = run_command(["merge", str(tmp_path / "1"), str(tmp_path / "2"), "--out",
                                str(tmp_path / "merged")], capsys)
    assert status == 0, said
    whole = sorted(p.relative_to(tmp_path / "whole") for p in (tmp_path / "whole").glob("runs/**/*.json"))
    merged = sorted(p.relative_to(tmp_path / "merged") for p in (tmp_path / "merged").glob("runs/**/*.json"))
    shares = [p.relative_to(tmp_path / s) for s in "12" for p in (tmp_path / s).glob("runs/**/*.json")]
    assert merged == whole and sorted(shares) == whole  # each measurement in exactly one share
    for relative in whole:  # the floor multiples too: attached again across the shares
        assert measured_fields(tmp_path / "merged" / relative) == measured_fields(tmp_path / "whole" / relative)
    # the time taken is the one line allowed to differ ("0.8 s on 2 worker(s)" against "0.8 s of measuring over 2
    # shares"); the measurement count and samples before it may not
    summary = lambda d: [re.sub(r"; [0-9.]+ s (on|of measuring over) .*$", "", line)
                         for line in (tmp_path / d / "summary.md").read_text().splitlines()]
    assert summary("merged") == summary("whole") and (tmp_path / "merged" / "index.html").is_file()
    assert "Share 1/2 of the suite" in (tmp_path / "1" / "summary.md").read_text()  # a share says it is one
    assert "failed" not in (tmp_path / "1" / "summary.md").read_text()  # the other share's cells are not failures
    for share in "12":  # a side-by-side cell of the other share is "-": never "n/a", which says no kernel runs it
        for row, whole_row in zip(_side_by_side(tmp_path / share), _side_by_side(tmp_path / "whole")):
            assert all(cell in (wanted, "-") and (cell != "-" or wanted != "n/a") for cell, wanted in
                       zip(row, whole_row)), (row, whole_row)

    status, said = run_command(["merge", str(tmp_path / "1"), "--out", str(tmp_path / "gap")], capsys)
    assert status == 2 and "share 2/2 of the plan" in said and "missing" in said
    altered = tmp_path / "altered"
    shutil.copytree(tmp_path / "1", altered)
    victim = next(altered.glob("runs/**/*.json"))
    document = json.loads(victim.read_text())
    document["results"][0]["samples"][0] += 1
    document["results"][0]["stats"] = stats.statistics(document["results"][0]["samples"])  # no trace of the edit
    victim.write_text(json.dumps(document))
    status, said = run_command(["merge", str(tmp_path / "1"), str(altered), str(tmp_path / "2"), "--out",
                                str(tmp_path / "bad")], capsys)
    assert status == 2 and "with other samples" in said
    # a result taken out of a share: the merge says which measurement no share holds
    short = tmp_path / "short"
    shutil.copytree(tmp_path / "1", short)
    removed = sorted(short.glob("runs/**/*.json"))[0]
    removed.unlink()
    status, said = run_command(["merge", str(short), str(tmp_path / "2"), "--out", str(tmp_path / "gap2")], capsys)
    assert status == 1, said
    name = removed.relative_to(short).as_posix()
    assert re.search(rf"error: floor/atmega328p/\S+ \(40 samples\): no result in any share: none of them holds "
                     rf"{re.escape(name)}", said), said
    assert f"{len(whole) - 1} of {len(whole)} measurements" in said


def test_two_shares_of_a_sweep_merged_are_the_whole_sweep(tmp_path, capsys):
    for share in ("1/2", "2/2"):
        status, said = run_command([*SWEEP, "--subset", share, "--json", str(tmp_path / f"{share[0]}.json")], capsys)
        assert status == 0, said
    assert run_command([*SWEEP, "--json", str(tmp_path / "whole.json")], capsys)[0] == 0
    status, said = run_command(["merge", str(tmp_path / "1.json"), str(tmp_path / "2.json"), "--out",
                                str(tmp_path / "merged.json")], capsys)
    assert status == 0, said
    key = lambda r: (r["options"]["preemption"], r["tasks"])
    strip = lambda path: sorted(({k: v for k, v in r.items() if k not in VARYING_FIELDS}
                                 for r in json.loads(path.read_text())["results"]), key=key)
    assert strip(tmp_path / "merged.json") == strip(tmp_path / "whole.json")
    other = tmp_path / "other.json"
    status, _ = run_command([*SWEEP[:SWEEP.index("--samples")], "--samples", "30", "--subset", "2/2", "--json",
                             str(other), "--quiet"], capsys)
    status, said = run_command(["merge", str(tmp_path / "1.json"), str(other), "--out", str(tmp_path / "x.json")],
                               capsys)
    assert status == 2 and "different plans" in said
    # a result taken out of a share: the merged file would be short of it without a word
    document = json.loads((tmp_path / "1.json").read_text())
    held = len(document["results"])
    document["results"].pop()
    (tmp_path / "short.json").write_text(json.dumps(document))
    status, said = run_command(["merge", str(tmp_path / "short.json"), str(tmp_path / "2.json"), "--out",
                                str(tmp_path / "y.json")], capsys)
    assert status == 2 and "1 point is in none of them" in said, said
    assert f"for the plan's {len(json.loads((tmp_path / 'whole.json').read_text())['results'])} points" in said
    assert held > 1
