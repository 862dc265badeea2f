"""A command killed while it builds the Ibex model under Verilator (verilator_bin, then make and g++ under
it) takes every one of them with it, whatever the signal: SIGINT, SIGTERM and SIGHUP unwind it, and SIGKILL,
which gives it no chance, still ends its tools (their group's leader learns of its death from the kernel).
No half-built model stays, or, after SIGKILL, none that the next build does not clear.

A process of the command's is found by a mark in its environment, which every process it starts inherits:
a tool left behind is reparented to init, and its parent chain no longer leads to the command."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.firmware

MARK = "SWITCHSCOPE_TEST_MARK"
COMPILERS = ("make", "g++", "cc1plus")


def _marked(mark: str) -> dict[int, str]:
    """Every live process (not a zombie) whose environment holds `mark`, by pid, with its command name."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"{MARK}={mark}".encode() not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if state != "Z":
            found[int(entry.name)] = name
    return found


def _wait_for(condition, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds} s")


def _start_model_build(build: Path) -> tuple[subprocess.Popen, str]:
    mark = uuid.uuid4().hex
    command = subprocess.Popen([sys.executable, "-m", "switchscope", "run", "--target", "ibex", "--scenario",
                                "yield", "--samples", "10", "--quiet"],
                               env={**os.environ, "SWITCHSCOPE_BUILD": str(build), MARK: mark},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return command, mark


@pytest.mark.parametrize("signal_number, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143),
                                                   (signal.SIGHUP, 129), (signal.SIGKILL, -signal.SIGKILL)],
                         ids=["SIGINT", "SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_model_build_killed_mid_compile_leaves_no_tool_running(tmp_path, signal_number, status):
    build = tmp_path / "build"
    command, mark = _start_model_build(build)
    try:
        # the model's C++ is being compiled: Verilator, make and the compiler all running under the command
        _wait_for(lambda: {"verilator_bin", "make"} <= set(_marked(mark).values())
                  and any(name in COMPILERS[1:] for name in _marked(mark).values()), 600)
        command.send_signal(signal_number)
        _, stderr = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
    assert command.returncode == status, stderr
    assert "Traceback" not in stderr, stderr
    if signal_number != signal.SIGKILL:
        assert "interrupted" in stderr, stderr
    left = []
    try:
        _wait_for(lambda: not _marked(mark), 10)
    except AssertionError:
        left = _marked(mark)
        # end them, and what they start meanwhile, so that a failure here does not load the machine after it
        while survivors := _marked(mark):
            for pid in survivors:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
    assert not left, f"still running after the command ended: {left}"
    half_built = list((build / "ibex").glob(".*.partial"))
    if signal_number != signal.SIGKILL:  # the command unwound: it removed its own
        assert not half_built
    else:
        assert len(half_built) == 1  # what the next build of the key clears


@pytest.mark.slow
def test_the_next_build_clears_the_half_built_model_a_killed_command_left(tmp_path):
    build = tmp_path / "build"
    command, mark = _start_model_build(build)
    try:
        _wait_for(lambda: "verilator_bin" in _marked(mark).values(), 600)
    finally:
        command.kill()
        command.wait()
    _wait_for(lambda: not _marked(mark), 10)
    (left,) = (build / "ibex").glob(".*.partial")
    again = subprocess.run([sys.executable, "-m", "switchscope", "run", "--target", "ibex", "--scenario", "yield",
                            "--samples", "10", "--quiet"], env={**os.environ, "SWITCHSCOPE_BUILD": str(build)},
                           capture_output=True, text=True, timeout=1800)
    assert again.returncode == 0, again.stderr
    assert not left.exists() and not list((build / "ibex").glob(".*.partial"))
    assert len(list((build / "ibex").glob("*/ibex-sim"))) == 1
