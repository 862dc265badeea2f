"""The Ibex model's build (Verilator, then make and g++ under it) leaves nothing behind, however it ends.

Killed: the command takes every one of its tools with it, whatever the signal: SIGINT, SIGTERM and SIGHUP
unwind it, and SIGKILL, which gives it no chance, still ends its tools (their group's leader learns of its
death from the kernel). No half-built model stays, or, after SIGKILL, none that the next build does not clear.
A process of the command's is found by a mark in its environment, which every process it starts inherits:
a tool left behind is reparented to init, and its parent chain no longer leads to the command.

Failed on its disk (full, read-only): one clear line, and no half-built model."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import wait_for

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
        wait_for(lambda: {"verilator_bin", "make"} <= set(_marked(mark).values())
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
        wait_for(lambda: not _marked(mark), 10)
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
        wait_for(lambda: "verilator_bin" in _marked(mark).values(), 600)
    finally:
        command.kill()
        command.wait()
    wait_for(lambda: not _marked(mark), 10)
    (left,) = (build / "ibex").glob(".*.partial")
    again = subprocess.run([sys.executable, "-m", "switchscope", "run", "--target", "ibex", "--scenario", "yield",
                            "--samples", "10", "--quiet"], env={**os.environ, "SWITCHSCOPE_BUILD": str(build)},
                           capture_output=True, text=True, timeout=1800)
    assert again.returncode == 0, again.stderr
    assert not left.exists() and not list((build / "ibex").glob(".*.partial"))
    assert len(list((build / "ibex").glob("*/ibex-sim"))) == 1


@pytest.fixture
def tmpfs(tmp_path):
    """Mount a tmpfs (root only) with the given options at a folder under tmp_path; unmounted afterwards."""
    mounted = []

    def mount(folder: Path, options: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True,
                              text=True)
        if done.returncode != 0:
            pytest.skip(f"a full or read-only disk is made with a tmpfs, which needs root: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in reversed(mounted):
        subprocess.run(["umount", str(folder)], check=True)


def _run_ibex(build: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "switchscope", "run", "--target", "ibex", "--scenario", "yield",
                           "--samples", "10", "--quiet"], env={**os.environ, "SWITCHSCOPE_BUILD": str(build)},
                          capture_output=True, text=True, timeout=1800)


def test_a_read_only_model_folder_is_said_in_a_line(tmp_path, tmpfs):
    build = tmp_path / "build"
    tmpfs(build / "ibex", "ro,size=1m")
    done = _run_ibex(build)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "cannot build the Ibex small model: " in done.stderr and ": Read-only file system" in done.stderr
    assert "set SWITCHSCOPE_BUILD to a folder that is" in done.stderr


@pytest.mark.slow
def test_a_disk_that_fills_during_the_model_build_is_said_and_nothing_half_built_stays(tmp_path, tmpfs):
    build = tmpfs(tmp_path / "build", "size=3m")  # the firmware fits, Verilator's C++ and objects do not
    done = _run_ibex(build)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"verilator failed building Ibex small: the disk of {build / 'ibex'} is full (" in done.stderr
    assert not list((build / "ibex").glob(".*.partial")) and not list((build / "ibex").glob("*/ibex-sim"))


def test_a_write_that_fails_in_the_model_build_leaves_nothing_half_built(tmp_path, monkeypatch):
    """The disk filling at one of the build's own writes (here the first: the primitives' copies): a clear
    error, and the half-built model removed. Injected, as a full disk cannot be had without root."""
    import errno

    from switchscope.build import verilator
    from switchscope.common.errors import BuildFailed
    monkeypatch.setenv("SWITCHSCOPE_BUILD", str(tmp_path / "build"))

    def full(root, destination):
        destination.mkdir(parents=True)
        (destination / "prim_ram_2p.sv").write_text("half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(destination / "prim_flop.sv"))

    monkeypatch.setattr(verilator, "generic_primitives", full)
    with pytest.raises(BuildFailed, match=r"cannot build the Ibex small model: .*prim_flop\.sv: No space left on "
                                          r"device") as refused:
        verilator.ensure("small")
    assert "nothing half-built was kept" in str(refused.value)
    assert [path.name for path in (tmp_path / "build" / "ibex").iterdir()] == [
        f".{verilator.model_key('small')[0]}.lock"]
