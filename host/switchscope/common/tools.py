"""Finding the external tools a run needs, with the package to install when one is missing."""

from __future__ import annotations

import functools
import os
import shutil
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
