"""Output files: checked before any work, written atomically.

A command checks every path it will write (`--json`, `--vcd`, `--out`) before
it builds or runs anything, so a typo costs nothing, and never writes onto one
of its own inputs. Every file is written under a temporary name in its
directory and renamed into place: a reader sees the old file or the new one,
never half of one, and an interrupted command leaves no partial file.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from switchscope.common.errors import SwitchscopeError


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_file(path: str | Path, option: str, inputs: tuple[Path, ...] = ()) -> Path:
    """The path a command will write a file to, refused with the reason if it
    is a directory, one of the command's inputs, or a place it cannot write."""
    target = Path(path)
    if target.is_dir():
        raise SwitchscopeError(f"{option} {path}: is a directory", f"give a file name, e.g. {target / 'results.json'}")
    for given in inputs:
        if _same_file(target, Path(given)):
            raise SwitchscopeError(f"{option} {path}: is the input {given} of this command, which it would replace",
                                   "write the output to another file")
    if target.exists() and not os.access(target, os.W_OK):
        raise SwitchscopeError(f"{option} {path}: the file exists and is not writable")
    existing = _nearest_existing(target.parent)
    if not existing.is_dir():
        raise SwitchscopeError(f"{option} {path}: {existing} is a file, not a directory")
    _check_can_create(existing, f"{option} {path}")
    return target


def _check_can_create(directory: Path, what: str) -> None:
    """Create and remove a file there: permissions alone do not tell (read-only mounts, /proc)."""
    try:
        descriptor, probe = tempfile.mkstemp(prefix=".switchscope-check-", dir=directory)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        raise SwitchscopeError(f"{what}: cannot create files in {directory} ({error.strerror})") from None


def check_directory(path: str | Path, option: str) -> Path:
    """The directory a command will write into, created if need be."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise SwitchscopeError(f"{option} {path}: is a file, not a directory", "give a directory name")
    existing = _nearest_existing(target)
    if not existing.is_dir():
        raise SwitchscopeError(f"{option} {path}: {existing} is a file, not a directory")
    _check_can_create(existing, f"{option} {path}")
    return target


def _umask() -> int:
    mask = os.umask(0o022)  # read it the only way there is: by setting it, then setting it back
    os.umask(mask)
    return mask


@contextmanager
def replacing(path: Path, mode: str = "w"):
    """Open a temporary file beside `path` for writing; on success it replaces `path`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    except OSError as error:  # checked before the work, yet gone since (a full disk, a removed directory)
        raise SwitchscopeError(f"cannot write {path}: {error.strerror}") from None
    try:
        with os.fdopen(descriptor, mode) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        # mkstemp makes the file private (0600); an output gets what open() would give it: 0666 less the umask
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    with replacing(path) as file:
        file.write(text)
