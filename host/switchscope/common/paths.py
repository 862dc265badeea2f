"""Where the firmware tree and the build directory are."""

from __future__ import annotations

import functools
import os
import stat
import tempfile
from pathlib import Path

from switchscope.common.errors import SwitchscopeError

_CHECKOUT = Path(__file__).resolve().parents[3]  # common/ of switchscope/ of host/ of the checkout


def firmware_dir() -> Path:
    """The target-side sources: $SWITCHSCOPE_FIRMWARE, else firmware/ of this checkout."""
    path = Path(os.environ.get("SWITCHSCOPE_FIRMWARE", _CHECKOUT / "firmware"))
    if not (path / "include" / "switchscope" / "kernel.h").is_file():
        raise SwitchscopeError(
            f"no switchscope firmware tree at {path}",
            "install switchscope from its checkout (pip install -e .) or set SWITCHSCOPE_FIRMWARE",
        )
    return path


def build_dir() -> Path:
    """Where firmware is built: $SWITCHSCOPE_BUILD, else build/ of this checkout;
    created if need be, and refused before any work if no file can be made there."""
    path = Path(os.environ.get("SWITCHSCOPE_BUILD", _CHECKOUT / "build"))
    _check_build_dir(path)
    return path


@functools.cache
def _check_build_dir(path: Path) -> None:
    where = "$SWITCHSCOPE_BUILD" if "SWITCHSCOPE_BUILD" in os.environ else "the build directory"
    hint = "set SWITCHSCOPE_BUILD to a directory you can write, e.g. SWITCHSCOPE_BUILD=~/.cache/switchscope"
    if path.exists() and not path.is_dir():
        raise SwitchscopeError(f"{where} {path} is a file, not a directory", hint)
    try:
        path.mkdir(parents=True, exist_ok=True)
        descriptor, probe = tempfile.mkstemp(prefix=".switchscope-check-", dir=path)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        raise SwitchscopeError(f"{where} {path}: cannot create files there ({error.strerror})", hint) from None


def checkout() -> Path:
    """The switchscope checkout this package runs from."""
    return _CHECKOUT


def special_kind(path: Path) -> str | None:
    """What a path that exists but is neither a file nor a directory is, in a user's words."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    for test, said in ((stat.S_ISFIFO, "a FIFO (a pipe)"), (stat.S_ISCHR, "a character device (a terminal?)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return said
    return "neither a file nor a directory"
