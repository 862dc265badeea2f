"""When a figure was measured and from which commit of the project measured:
the git repository the command runs in (a user's kernel or firmware checkout),
so that a result file says which version of their code gave it."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timezone
from functools import cache


def now() -> str:
    """The time now, UTC, ISO 8601 to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _git(directory: str, *arguments: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", directory, *arguments], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):  # no git, or a git that hangs: the field is left out
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def project() -> dict | None:
    """{"repository", "commit", "dirty"} of the git work tree around the current
    directory; None outside one, or without git."""
    return _project_in(os.getcwd())


@cache  # once per directory and command: a sweep makes thousands of results
def _project_in(directory: str) -> dict | None:
    commit = _git(directory, "rev-parse", "--verify", "HEAD")
    if not commit:
        return None
    changes = _git(directory, "status", "--porcelain", "--untracked-files=no")
    found = {"repository": _git(directory, "rev-parse", "--show-toplevel") or "", "commit": commit}
    if changes is not None:
        found["dirty"] = bool(changes)
    return found
