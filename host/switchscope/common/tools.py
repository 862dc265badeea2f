"""Finding the external tools a run needs, with the package to install when one is missing, and running
them so that none outlives the command (run_owned)."""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import subprocess
from pathlib import Path

from switchscope.common.errors import ToolMissing

SETUP_HINT = "run ./setup.sh from the switchscope checkout, or install it yourself"


def require(executable: str, package: str) -> str:
    """Path of `executable`, or a ToolMissing error naming the Debian package."""
    path = shutil.which(executable)
    if path is None:
        raise ToolMissing(
            f"{executable} not found on PATH",
            f"install the Debian package {package} (apt-get install {package}), or {SETUP_HINT}",
        )
    return path


RUST_HINT = "run ./setup.sh from the switchscope checkout: it installs rustup and the pinned Rust toolchains"


def rust_tool(executable: str) -> str:
    """Path of cargo or rustc: on PATH, or where rustup puts them ($CARGO_HOME/bin,
    ~/.cargo/bin), so a shell opened before set-up installed rustup still finds them.
    Run them in a directory with a rust-toolchain.toml: rustup picks the pinned
    toolchain from it."""
    path = shutil.which(executable)
    if path is None:
        cargo_home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
        candidate = cargo_home / "bin" / executable
        if os.access(candidate, os.X_OK):
            return str(candidate)
        raise ToolMissing(f"{executable} not found on PATH nor in {cargo_home / 'bin'}", RUST_HINT)
    return path


@functools.lru_cache(maxsize=None)
def version_line(executable: str) -> str:
    """The first line of `executable --version`, for the record of a result."""
    try:
        out = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.splitlines()[0].strip() if out else "unknown"


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(signal_number: int = signal.SIGKILL) -> None:
    """In a child process (a simulator before it starts, a sweep's worker, a tool's group leader):
    Linux sends it `signal_number` when the process that started it dies,
    however that dies, even by SIGKILL, which leaves no chance to clean up."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal_number)
    except (OSError, AttributeError):
        pass  # not Linux: the parent's own clean-up still ends it


# The leader of a tool's process group: it starts the tool in its group and waits; told to end (SIGTERM, which
# Linux sends it when the command dies, even by SIGKILL: die_with_parent), it kills the whole group, the
# tool's own children (Verilator's make and its compilers, cargo's rustc) with it. The tool alone would take
# only itself: a parent's death signal is not inherited by the children a process forks.
_GROUP_LEADER = ("/bin/sh", "-c", 'trap "kill -KILL 0" TERM; "$@" & wait $!', "switchscope-tool")


def end_group(process: subprocess.Popen) -> None:
    """Kill a process started in a session of its own, and everything in its group, and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run_owned(command: list[str], *, capture_output: bool = False, text: bool = False, cwd=None, env=None,
              timeout: float | None = None) -> subprocess.CompletedProcess:
    """subprocess.run for a tool that starts processes of its own (a compiler driver, make, cargo), in a process
    group of its own: an interruption of the command (SIGINT, SIGTERM, SIGHUP: errors.Interrupted), a timeout
    (subprocess.TimeoutExpired) or the command's death, however it dies, ends the whole group. The tool's
    standard input is /dev/null. Its status is 128 + N if a signal N ended it."""
    process = subprocess.Popen([*_GROUP_LEADER, *command], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE if capture_output else None,
                               stderr=subprocess.PIPE if capture_output else None, text=text, cwd=cwd, env=env,
                               start_new_session=True, preexec_fn=functools.partial(die_with_parent, signal.SIGTERM))
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except BaseException:  # an interruption or a timeout: nothing of the tool's may go on
        end_group(process)
        raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
