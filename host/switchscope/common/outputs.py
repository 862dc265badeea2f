"""Output files: checked before any work, written atomically.

A command checks every path it will write (`--json`, `--vcd`, `--out`) before
it builds or runs anything, so a typo costs nothing, and never writes onto one
of its own inputs. Every file is written under a temporary name in its
directory and renamed into place: a reader sees the old file or the new one,
never half of one, and an interrupted command leaves no partial file.

Special files: a symbolic link is followed (the file it names is replaced and
the link stays a link); a FIFO or a character device (a pipe, /dev/stdout,
/dev/null) is written to, not replaced, since replacing it would destroy it;
anything else that is not a regular file (a socket, a block device) is
refused. Two outputs of one command naming the same file are refused.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from switchscope.common.errors import OutputFailed, SwitchscopeError


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


def _kind(path: Path) -> str:
    """'missing', 'file', 'stream' (a FIFO or character device: written to in place) or 'other'."""
    try:
        mode = path.stat().st_mode  # follows links: a link is what it names
    except (FileNotFoundError, NotADirectoryError):  # a missing folder on the way is said by the caller
        return "missing"
    except OSError:
        return "other"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return "stream"
    return "directory" if stat.S_ISDIR(mode) else "other"


def check_file(path: str | Path, option: str, inputs: tuple[Path, ...] = ()) -> Path:
    """The path a command will write a file to, refused with the reason if it
    is a directory, one of the command's inputs, inside an input directory, a
    special file other than a FIFO or character device, or a place it cannot write."""
    target = Path(path)
    kind = _kind(target)
    if kind == "directory" or (kind == "missing" and str(path).endswith(os.sep)):
        raise SwitchscopeError(f"{option} {path}: {'is' if kind == 'directory' else 'names'} a directory",
                               f"give a file name, e.g. {target / 'results.json'}")
    if kind == "other":
        raise SwitchscopeError(f"{option} {path}: is neither a regular file nor a FIFO or character device "
                               "(a socket or a block device?)", "give a file name")
    for given in inputs:
        if _same_file(target, Path(given)):
            raise SwitchscopeError(f"{option} {path}: is the input {given} of this command, which it would replace",
                                   "write the output to another file")
        if Path(given).is_dir() and target.suffix == ".json" and inside(target, Path(given)):
            raise SwitchscopeError(f"{option} {path}: is inside the input directory {given}, whose .json files "
                                   "are read as results", "write the output outside it")
    if kind == "stream":
        if not os.access(target, os.W_OK):
            raise SwitchscopeError(f"{option} {path}: cannot be written to")
        return target
    if kind == "file" and not os.access(target, os.W_OK):
        raise SwitchscopeError(f"{option} {path}: the file exists and is not writable")
    existing = _nearest_existing(_followed(target).parent)
    if not existing.is_dir():
        raise SwitchscopeError(f"{option} {path}: {existing} is a file, not a directory")
    _check_can_create(existing, f"{option} {path}")
    return target


def _followed(path: Path) -> Path:
    """Where writing `path` puts the file: a symbolic link's target, else itself."""
    return path.resolve() if path.is_symlink() else path


def inside(path: Path, directory: Path) -> bool:
    """Whether writing `path` puts a file in `directory` or below it (a link is followed)."""
    return _followed(path.absolute()).resolve().is_relative_to(directory.resolve())


def distinct(*checked: tuple[Path | None, str]) -> None:
    """Refuse two outputs of one command that name the same file, however spelt
    (another path, a link): the second would overwrite the first."""
    seen: dict[Path, str] = {}
    for path, option in checked:
        if path is None:
            continue
        where = _followed(Path(path).absolute()).resolve()
        if where in seen:
            raise SwitchscopeError(f"{option} {path}: is also the file of {seen[where]}, which it would overwrite",
                                   "give each output its own file")
        seen[where] = option


def _check_can_create(directory: Path, what: str) -> None:
    """Create and remove a file there: permissions alone do not tell (read-only mounts, /proc)."""
    try:
        descriptor, probe = tempfile.mkstemp(prefix=".switchscope-check-", dir=directory)
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        raise SwitchscopeError(f"{what}: cannot create files in {directory} ({error.strerror})") from None


def check_directory(path: str | Path, option: str, inputs: tuple[Path, ...] = ()) -> Path:
    """The directory a command will write into, created if need be; refused if it is one of the command's
    input directories, lies inside one, or holds one (what it writes would mix with what it reads)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise SwitchscopeError(f"{option} {path}: is a file, not a directory", "give a directory name")
    for given in inputs:
        if target.resolve() == Path(given).resolve():
            raise SwitchscopeError(f"{option} {path}: is one of the inputs, which it would replace",
                                   "give a new directory")
        within, holds = inside(target, Path(given)), inside(Path(given), target)
        if within or holds:
            raise SwitchscopeError(f"{option} {path}: {'is inside' if within else 'holds'} the input {given}, "
                                   "whose results it would mix with", "give a directory outside the inputs")
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
    """Open a temporary file beside `path` for writing; on success it replaces
    `path` (the file a link names). A FIFO or character device is written in place."""
    if _kind(path) == "stream":
        with _stream(path, mode) as file:
            yield file
        return
    path = _followed(path)
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
    except OSError as error:  # a full disk, a file-size limit: the file that was there stays as it was
        Path(temporary).unlink(missing_ok=True)
        raise OutputFailed(f"cannot write {path}: {error.strerror or error}",
                           f"{path} is as it was before; free space or raise the limit, then run again") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextmanager
def _stream(path: Path, mode: str):
    """A FIFO or device, opened without waiting: a FIFO nobody reads is an error, not a hang."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.set_blocking(descriptor, True)
    except OSError as error:
        reason = "no process is reading it" if error.errno == errno.ENXIO else error.strerror
        raise SwitchscopeError(f"cannot write {path}: {reason}", "start its reader first, or give a file") from None
    try:
        with os.fdopen(descriptor, mode) as file:
            yield file
    except OSError as error:
        raise OutputFailed(f"cannot write {path}: {error.strerror or error}") from None


def write_text(path: Path, text: str) -> None:
    with replacing(path) as file:
        file.write(text)
