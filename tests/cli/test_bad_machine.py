"""What the machine does to a command: standard output full, closed or gone,
a build directory where nothing can be built. Each is one line and a status,
never a traceback. Run as real processes: standard output is the subject."""

import subprocess
import sys

import pytest

from conftest import refused_cleanly

COMMAND = [sys.executable, "-m", "switchscope"]
# a command in a process of its own: Python's start and switchscope's imports, about half a second each
in_a_process = pytest.mark.slow


@in_a_process
def test_standard_output_on_a_full_device_is_one_line_and_status_1():
    with open("/dev/full", "w") as full:
        done = subprocess.run([*COMMAND, "list", "targets"], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines() == ["error: cannot write standard output: No space left on device"]


@in_a_process
def test_standard_output_closed_is_no_traceback():
    done = subprocess.run(" ".join(COMMAND) + " list targets >&-", shell=True, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr


@in_a_process
def test_a_reader_that_goes_away_ends_the_command_quietly():
    done = subprocess.run(" ".join(COMMAND) + " list | head -c 10", shell=True, capture_output=True, text=True,
                          timeout=120)
    assert len(done.stdout) == 10
    assert done.stderr == ""


@pytest.mark.parametrize("build, fragment", [
    ("/etc/hostname", "is a file, not a directory"),
    ("/proc/switchscope-build", "cannot create files there"),
])
@pytest.mark.parametrize("command", [
    ["run", "--scenario", "yield", "--samples", "5"],
    ["sweep", "--scenario", "yield", "--samples", "5"],
    ["suite", "--out", "results"],
    ["intrusion", "--scenario", "yield"],
])
def test_a_build_directory_nothing_can_be_built_in_is_refused_before_any_work(tmp_path, monkeypatch, capsys, build,
                                                                              fragment, command):
    monkeypatch.setenv("SWITCHSCOPE_BUILD", build)
    said = refused_cleanly(tmp_path, {}, command, 2, fragment, monkeypatch, capsys)
    assert "SWITCHSCOPE_BUILD" in said


@pytest.mark.parametrize("arguments, fragment", [
    (["flash", "--target", "all"], "flash --target all: a board holds one image"),
    (["flash", "--scenario", "all"], "flash --scenario all: a board holds one image"),
    (["flash", "--kernel", "nosuch"], "unknown kernel 'nosuch'"),  # the name before the missing --port
    (["flash", "--target", "mps2-an385"], "is no real board"),
])
def test_flash_takes_one_of_each(tmp_path, monkeypatch, capsys, arguments, fragment):
    refused_cleanly(tmp_path, {}, arguments, 2, fragment, monkeypatch, capsys)
