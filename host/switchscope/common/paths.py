"""Where the firmware tree and the build directory are."""

from __future__ import annotations

import os
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
    """Where firmware is built: $SWITCHSCOPE_BUILD, else build/ of this checkout."""
    return Path(os.environ.get("SWITCHSCOPE_BUILD", _CHECKOUT / "build"))


def checkout() -> Path:
    """The switchscope checkout this package runs from."""
    return _CHECKOUT
