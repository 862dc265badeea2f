"""Interrupted commands end cleanly: every simulator they started is gone,
what was complete is kept (marked incomplete), and the exit status says which
signal it was (130 SIGINT, 143 SIGTERM, 129 SIGHUP)."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from switchscope.figures.result import Result

from conftest import wait_for

pytestmark = pytest.mark.firmware

SWITCHSCOPE = [sys.executable, "-m", "switchscope"]
SIMULATORS = ("qemu-system-arm", "switchscope-simavr")


def _simulators_started_by(pid: int) -> list[int]:
    """The simulator processes whose parent is `pid`, or a child of it."""
    found, parents = [], {pid}
    for _ in range(3):  # switchscope, its workers, their simulators
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                arguments = (entry / "cmdline").read_bytes().split(b"\0")
                command = arguments[0].decode(errors="replace")
            except (OSError, IndexError, ValueError):
                continue
            if parent in parents:
                parents.add(int(entry.name))
                # a firmware's run, not the version query (`--version`) that exits at once
                if command.endswith(SIMULATORS) and (b"-kernel" in arguments or b"--firmware" in arguments):
                    found.append(int(entry.name))
    return sorted(set(found))



def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("signal_number, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
@pytest.mark.parametrize("target", ["mps2-an385", "atmega328p"])
def test_an_interrupted_run_ends_its_simulator_and_says_so(tmp_path, target, signal_number, status):
    command = subprocess.Popen([*SWITCHSCOPE, "run", "--target", target, "--scenario", "yield", "--samples",
                                "100000000", "--quiet", "--json", str(tmp_path / "out.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    simulators = wait_for(lambda: _simulators_started_by(command.pid))
    command.send_signal(signal_number)
    _, stderr = command.communicate(timeout=20)
    assert command.returncode == status
    assert "interrupted" in stderr and "Traceback" not in stderr
    wait_for(lambda: not any(_alive(pid) for pid in simulators), 5)
    assert not (tmp_path / "out.json").exists()  # nothing was complete, nothing is claimed
    assert not list(tmp_path.glob(".*partial"))


def test_an_interrupted_suite_keeps_its_results_and_resume_measures_only_the_rest(tmp_path):
    out = tmp_path / "results"
    arguments = [*SWITCHSCOPE, "suite", "--kernel", "freertos", "--target", "atmega328p", "--samples", "20",
                 "--quiet", "--jobs", "1", "--out", str(out)]
    command = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: len(list(out.glob("runs/**/*.json"))) >= 3, 120)
    command.send_signal(signal.SIGTERM)
    _, stderr = command.communicate(timeout=30)
    assert command.returncode == 143, stderr
    assert "Traceback" not in stderr and "measurements kept in" in stderr
    wait_for(lambda: not _simulators_started_by(command.pid), 5)
    kept = sorted(out.glob("runs/**/*.json"))
    for path in kept:  # each one whole, never a partial file
        (result,) = [Result.from_json(entry) for entry in json.loads(path.read_text())["results"]]
        assert result.count + result.excluded == 20
    assert not list(out.rglob("*.partial"))
    assert "Incomplete: interrupted after" in (out / "summary.md").read_text()

    written_at = {path: path.stat().st_mtime_ns for path in kept}
    finished = subprocess.run([*arguments, "--resume"], capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stderr
    assert all(path.stat().st_mtime_ns == when for path, when in written_at.items())  # kept, not measured again
    assert len(list(out.glob("runs/**/*.json"))) > len(kept)
    assert "Incomplete" not in (out / "summary.md").read_text()


def test_an_interrupted_run_keeps_the_measurements_it_completed(tmp_path):
    out = tmp_path / "out.json"
    command = subprocess.Popen([*SWITCHSCOPE, "run", "--target", "atmega328p", "--scenario", "all", "--samples",
                                "20000", "--timeout", "600", "--quiet", "--json", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = wait_for(lambda: _simulators_started_by(command.pid))
    wait_for(lambda: set(_simulators_started_by(command.pid)) - set(first), 120)  # the second measurement began
    command.send_signal(signal.SIGTERM)
    stdout, stderr = command.communicate(timeout=20)
    assert command.returncode == 143, stderr
    document = json.loads(out.read_text())
    assert document["incomplete"].startswith("interrupted after 1 of")
    (result,) = [Result.from_json(entry) for entry in document["results"]]
    assert result.count + result.excluded == 20000
    assert "resume" in stdout  # the completed measurement's table is shown
    assert "written to" in stderr


def test_an_interrupted_intrusion_keeps_the_cases_it_completed(tmp_path):
    out, said = tmp_path / "intr.json", tmp_path / "stderr.txt"
    with said.open("w") as stderr:
        command = subprocess.Popen([*SWITCHSCOPE, "intrusion", "--target", "mps2-an385,atmega328p", "--samples",
                                    "200", "--json", str(out)], stdout=subprocess.PIPE, stderr=stderr, text=True)
        wait_for(lambda: re.search(r"^\[1/\d+\] ", said.read_text(), re.M), 300)  # the first case is complete
        command.send_signal(signal.SIGINT)
        stdout, _ = command.communicate(timeout=30)
    lines = said.read_text()
    assert command.returncode == 130, lines
    finished = re.findall(r"^\[\d+/(\d+)\] freertos (\S+) on mps2-an385", lines, re.M)
    assert finished and "nothing was complete" not in lines, lines
    asked = int(finished[0][0])
    document = json.loads(out.read_text())
    assert document["incomplete"] == f"interrupted after {len(finished)} of {asked} measurements"
    assert [(row["target"], row["scenario"]) for row in document["results"]] == \
        [("mps2-an385", scenario) for _, scenario in finished]
    assert f"interrupted: {len(finished)} of {asked} measurements shown above and written to {out}" in lines
    assert "intrusion on mps2-an385" in stdout  # the completed cases' table is shown


def test_a_sweep_writes_each_result_as_measured_and_resume_measures_only_what_is_missing(tmp_path):
    out = tmp_path / "sweep.json"
    arguments = [*SWITCHSCOPE, "sweep", "--target", "atmega328p", "--tasks", "2-4", "--samples", "50", "--quiet",
                 "--json", str(out)]
    first = subprocess.run(arguments, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    document = json.loads(out.read_text())
    assert "incomplete" not in document and [r["tasks"] for r in document["results"]] == [2, 3, 4]
    # as an interrupted sweep leaves it: one point missing, marked incomplete
    missing = document["results"].pop(1)
    out.write_text(json.dumps({**document, "incomplete": "interrupted after 2 of 3 points"}))
    again = subprocess.run([*arguments, "--resume"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    resumed = json.loads(out.read_text())
    assert "incomplete" not in resumed and [r["tasks"] for r in resumed["results"]] == [2, 3, 4]
    kept = [r for r in resumed["results"] if r["tasks"] != 3]
    assert [r["wall_seconds"] for r in kept] == [r["wall_seconds"] for r in document["results"]]  # not measured again
    assert resumed["results"][1]["samples"] == missing["samples"]  # the simulator is deterministic
    # resumed as another sweep, it would rewrite the file without the results that are not its own
    written = out.read_bytes()
    tasks = arguments.index("--tasks") + 1
    other = subprocess.run([*arguments[:tasks], "2", *arguments[tasks + 1:], "--resume"], capture_output=True,
                           text=True, timeout=60)
    assert other.returncode == 2 and "holds a sweep of another plan (3 points, this one has 1)" in other.stderr, \
        other.stderr
    assert out.read_bytes() == written


def test_a_burst_of_signals_ends_a_sweep_once_and_keeps_what_it_says(tmp_path):
    """Ctrl-C pressed again and again: the first signal ends the command, the later ones cannot break into
    its clean-up (ending the workers, writing the results), and what it says it kept is in the file."""
    out = tmp_path / "sweep.json"
    command = subprocess.Popen([*SWITCHSCOPE, "sweep", "--target", "mps2-an385", "--scenario", "rotate", "--tasks",
                                "2-16", "--samples", "100000", "--jobs", "2", "--quiet", "--json", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: out.exists() and json.loads(out.read_text())["results"], 180)
    for _ in range(6):
        command.send_signal(signal.SIGINT)
        time.sleep(0.03)
    _, stderr = command.communicate(timeout=60)
    assert command.returncode == 130, stderr
    assert "Traceback" not in stderr
    said = int(re.search(r"interrupted: (\d+) of 15 points", stderr).group(1))
    assert len(json.loads(out.read_text())["results"]) == said
    wait_for(lambda: not _simulators_started_by(command.pid), 5)


def _descendants(pid: int) -> list[int]:
    found, parents = [], {pid}
    for _ in range(3):
        for entry in Path("/proc").iterdir():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent in parents and int(entry.name) not in found:
                found.append(int(entry.name))
                parents.add(int(entry.name))
    return found


def test_a_sweep_killed_outright_leaves_no_worker_and_no_simulator(tmp_path):
    """SIGKILL gives the command no chance to clean up: its workers learn of its death from the kernel
    (PR_SET_PDEATHSIG), end their simulators and exit, quietly."""
    command = subprocess.Popen([*SWITCHSCOPE, "sweep", "--target", "mps2-an385", "--scenario", "rotate", "--tasks",
                                "2-5", "--samples", "10000000", "--jobs", "2", "--quiet",
                                "--json", str(tmp_path / "sweep.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    simulators = wait_for(lambda: len(_simulators_started_by(command.pid)) == 2 and
                           _simulators_started_by(command.pid), 120)
    scratch = [Path(re.search(rb"out=([^,\0]+)/events\.txt", Path(f"/proc/{pid}/cmdline").read_bytes())
                    .group(1).decode()) for pid in simulators]
    left = _descendants(command.pid)
    assert len(left) >= 4 and all(folder.is_dir() for folder in scratch)  # two workers, two simulators at work
    command.kill()
    _, stderr = command.communicate(timeout=30)  # returns once every holder of the pipes (the workers) is gone
    wait_for(lambda: not any(_alive(pid) for pid in left), 10)
    assert "Traceback" not in stderr, stderr
    assert not any(folder.exists() for folder in scratch)  # the workers cleaned up as they went


def test_a_hang_up_ends_every_worker_of_a_run_and_its_simulators(tmp_path):
    """The terminal closed under `run --scenario all --method all`: the command unwinds as on SIGTERM, and its
    workers, which the hang-up reaches too, end their simulators and exit with it."""
    command = subprocess.Popen([*SWITCHSCOPE, "run", "--target", "mps2-an385", "--scenario", "all", "--method", "all",
                                "--samples", "10000000", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               start_new_session=True)  # its own process group, as a terminal's job has
    wait_for(lambda: _simulators_started_by(command.pid), 300)
    left = _descendants(command.pid)
    assert len(left) >= 3  # the workers (one per core), a simulator at work
    os.killpg(command.pid, signal.SIGHUP)  # as a terminal does: to the whole (foreground) process group
    _, stderr = command.communicate(timeout=60)
    assert command.returncode == 129, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr, stderr
    wait_for(lambda: not any(_alive(pid) for pid in left), 10)
