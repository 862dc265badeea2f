"""This checkout's switchscope, for the bench scripts: its own host package
first on the path, run by the Python of its .venv where there is one (another
checkout's `switchscope` may be the one on PATH)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]


def switchscope_command() -> list[str]:
    """The command line that starts this checkout's switchscope (PYTHONPATH is set for it, and for its children)."""
    os.environ["PYTHONPATH"] = os.pathsep.join([str(CHECKOUT / "host"), *filter(None, [os.environ.get("PYTHONPATH")])])
    venv = CHECKOUT / ".venv" / "bin" / "python"
    return [str(venv) if venv.exists() else sys.executable, "-m", "switchscope"]
