"""What every core's Verilator model shares (Ibex's in build/verilator.py,
VexRiscv's in build/vexriscv.py): our testbench's folder, Verilator's version,
the digest of our own files in a model's cache key, and the build itself:
once per key under a lock, into a partial folder renamed when complete, with
a failure said in one line (a full disk as such) and nothing half-built kept."""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from switchscope.common import paths
from switchscope.common.errors import BuildFailed, SwitchscopeError
from switchscope.common.tools import require, run_owned

HARNESS_FOLDER = "verilator-harness"
# Verilator's makefile compiles the model with -Os; -O2 runs it faster. Verilator 5.032's makefile forces its
# precompiled header into every object after our -include of model_output.h, which makes GCC refuse the .gch and
# look for a header that is not there; each generated .cpp includes that header itself, so the forced one can go.
MAKE_FLAGS = ("-MAKEFLAGS", "OPT_FAST=-O2", "-MAKEFLAGS", "OPT_GLOBAL=-O2",
              "-MAKEFLAGS", "VK_PCH_I_FAST=", "-MAKEFLAGS", "VK_PCH_I_SLOW=")
FULL_BELOW_BYTES = 1 << 20  # what is left when a build failed on a full disk: the failure is that


def harness_folder() -> Path:
    return paths.checkout() / "host" / HARNESS_FOLDER


def package_root(package: str, folder: str, install_hint: str) -> tuple[Path, str]:
    """A pythondata package's folder of RTL and a version naming the core's commit: its version_str and its
    data_git_describe, read, not imported (its module imports nothing we need and the fields are plain text)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise SwitchscopeError(f"the Python package {package} is not installed for {sys.executable}", install_hint)
    root = Path(spec.origin).parent / folder
    init = Path(spec.origin).read_text()
    version = re.search(r'^version_str = "([^"]+)"', init, re.M)
    commit = re.search(r'^data_git_describe = "([^"]+)"', init, re.M)
    if not root.is_dir() or version is None:
        raise SwitchscopeError(f"{spec.origin} does not look like {package} (no {folder}/ or version_str)",
                               install_hint)
    return root, f"{version.group(1)}-{commit.group(1) if commit else 'unknown'}"


def verilator_version(verilator: str) -> str:
    result = subprocess.run([verilator, "--version"], capture_output=True, text=True)
    return result.stdout.split()[1] if result.returncode == 0 and result.stdout.split()[1:] else "unknown"


def build_tools() -> str:
    """Verilator, and what its generated makefile compiles the model with."""
    verilator = require("verilator", "verilator")
    for tool in ("g++", "make"):
        require(tool, tool)
    return verilator


def own_digest(harness_files: tuple[str, ...], *modules: Path) -> str:
    """Our own sources that shape a model: a change to any of them is a new cache key."""
    return hashlib.sha256(b"".join((harness_folder() / name).read_bytes() for name in harness_files)
                          + b"".join(module.read_bytes() for module in modules)).hexdigest()[:12]


def build_once(cache: Path, key: str, binary_name: str, what: str, build: Callable[[Path, Path], None]) -> Path:
    """The model's binary cache/key/binary_name, made first by build(partial, model) if this key has none."""
    model = cache / key
    binary = model / binary_name
    if binary.is_file():
        return binary
    try:
        model.parent.mkdir(parents=True, exist_ok=True)
        with (model.parent / f".{key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # two builds of one key: the second waits and finds it built
            if binary.is_file():
                return binary
            # under the lock no other build of this key is under way: any half-built model of it is one a
            # killed command left
            for stale in model.parent.glob(f".{key}.*.partial"):
                shutil.rmtree(stale, ignore_errors=True)
            partial = model.with_name(f".{key}.{os.getpid()}.partial")
            try:
                build(partial, model)
            except BaseException:  # a failure, a full disk, an interruption: no half-built model stays
                shutil.rmtree(partial, ignore_errors=True)
                raise
    except OSError as error:
        raise BuildFailed(f"cannot build the {what} model: {error.filename or cache}: {error.strerror or error}",
                          "free some space there, or make it writable, or set SWITCHSCOPE_BUILD to a folder "
                          "that is (nothing half-built was kept)") from None
    return binary


def _free_bytes(path: Path) -> int:
    try:
        found = os.statvfs(path if path.exists() else path.parent)
    except OSError:
        return 1 << 62  # unknown: not taken for full
    return found.f_bavail * found.f_frsize


def run_verilator(verilator: str, arguments: list[str], partial: Path, model: Path, what: str, cache: Path,
                  verbose: bool) -> None:
    """Verilator's build of the model into `partial`, renamed `model` once complete; `verbose`: what Verilator
    and the compiler say goes to the terminal as they say it."""
    (partial / "verilator-command.txt").write_text(" ".join([verilator, *arguments]) + "\n")
    started = time.monotonic()
    # in a process group of its own: an interruption, or the command's death, ends make and g++ with it
    result = run_owned([verilator, *arguments], capture_output=not verbose, text=True)
    if result.returncode != 0:
        said = (result.stdout or "") + (result.stderr or "")
        free = _free_bytes(partial)
        if "No space left on device" in said or free < FULL_BELOW_BYTES:  # a compiler's Bus error on a full tmpfs
            raise BuildFailed(f"verilator failed building {what}: the disk of {cache} is full "
                              f"({free / 2**10:.0f} KiB free as the build failed)",
                              "free some space there, or set SWITCHSCOPE_BUILD to a folder on a larger disk "
                              "(nothing half-built was kept)")
        log = model.with_name(f"{model.name}.failed.log")
        try:
            log.write_text(said)
        except OSError:  # the disk that failed the build: no log cut short stays
            log.unlink(missing_ok=True)
            raise
        # the compiler's own error says more than Verilator's "make exited with 2" that follows it
        first = next((line.strip() for line in said.splitlines() if "error" in line.lower()
                      and not line.startswith("%Error: make") and not line.startswith("%Error: Command")), None)
        raise BuildFailed(f"verilator failed building {what}" + (f": {first}" if first else "")
                          + f" (log: {log})", "read the log's first %Error or error: line")
    (partial / "build-seconds.txt").write_text(f"{time.monotonic() - started:.1f}\n")
    # the sources Verilator actually read, for provenance: its dependency file lists them
    depends = next((partial / "obj").glob("*__ver.d"), None)
    if depends is not None:
        used = sorted({word for word in depends.read_text().split() if word.endswith((".sv", ".v", ".svh", ".vlt"))})
        (partial / "sources.txt").write_text("\n".join(used) + "\n")
    shutil.rmtree(partial / "obj", ignore_errors=True)  # the objects are 100 MB; the binary is all we run
    os.rename(partial, model)
