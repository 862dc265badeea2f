"""Finding the external tools a run needs, with the package to install when one is missing."""

from __future__ import annotations

import functools
import shutil
import subprocess

from switchscope.errors import ToolMissing

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


@functools.lru_cache(maxsize=None)
def version_line(executable: str) -> str:
    """The first line of `executable --version`, for the record of a result."""
    try:
        out = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.splitlines()[0].strip() if out else "unknown"
