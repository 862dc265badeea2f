"""The cli stage: the command line, one module per group of subcommands (measuring, boards,
results, listing), the grammar in parser.py, and main() here: exit 0 measured, 1 a measurement
failed, 2 bad input, 130/143/129 interrupted (SIGINT, SIGTERM, SIGHUP).

A reader that goes away (switchscope run | head -1) or a standard stream closed from the start
(>&-) ends only the printing: the command goes on, writes its files, and exits with the status of
what it did. Every command writes its files before it prints, so that a failing terminal costs none.

May import: every other stage. Imported by: __main__ and the installed `switchscope` command.
"""

from __future__ import annotations

import errno
import io
import os
import signal
import sys

from switchscope.cli.parser import parser
from switchscope.common.errors import (INTERRUPTING_SIGNALS, Interrupted, OutputFailed, SwitchscopeError,
                                       ignore_signal)


class _Nowhere(io.TextIOBase):
    """A standard stream that was closed before the command started: what is printed to it goes nowhere."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


# What a terminal that cannot encode a sign (PYTHONIOENCODING=ascii, a latin-1 locale) reads in its place
PLAIN_SIGNS = str.maketrans({"µ": "u", "…": "...", "×": "x", "≥": ">=", "≤": "<=", "−": "-", "→": "->", "†": "+",
                             "—": "-", "–": "-", "·": ".", "²": "^2", "±": "+/-", "°": " deg",
                             "‡": "++", "§": "#"})


def _encodable(text: str, encoding: str | None) -> str:
    """`text` as the stream's encoding can write it: "µs" becomes "us", and any other sign it lacks a "?"."""
    if not encoding or text.isascii():
        return text
    try:
        text.encode(encoding)
        return text
    except (UnicodeError, LookupError):
        plain = text.translate(PLAIN_SIGNS)
        try:
            return plain.encode(encoding, errors="replace").decode(encoding)
        except LookupError:
            return plain.encode("ascii", errors="replace").decode("ascii")


class _StandardStream:
    """Standard output or error. A reader that went away (a broken pipe) or a stream closed under the
    command stops the printing, and nothing else: the command still writes its files and says how it
    went by its exit status. Standard output's other failures (a full device, an I/O error) are an
    OutputFailed, said in one line; standard error's have nowhere to be said, and stop its printing too."""

    def __init__(self, stream, name: str):
        self._stream = stream
        self._name = name
        self.gone = isinstance(stream, _Nowhere)

    def _silence(self) -> None:
        self.gone = True
        if self._stream is getattr(sys, f"__{self._name}__"):  # what is still buffered goes nowhere, and
            try:  # Python's own flush at exit does not fail again
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, self._stream.fileno())
                os.close(devnull)
            except (OSError, ValueError):
                pass

    def _guarded(self, action, *arguments, nothing=None):
        if self.gone:
            return nothing
        try:
            return action(*arguments)
        except UnicodeError:
            raise
        except ValueError:  # closed under the command
            self._silence()
            return nothing
        except OSError as error:
            self._silence()
            if error.errno == errno.EPIPE or self._name == "stderr":
                return nothing
            raise OutputFailed(f"cannot write standard output: {error.strerror or error}") from None

    def write(self, text):
        return self._guarded(self._stream.write, _encodable(text, getattr(self._stream, "encoding", None)),
                             nothing=len(text))

    def flush(self):
        return self._guarded(self._stream.flush)

    def isatty(self) -> bool:
        return bool(self._guarded(self._stream.isatty, nothing=False))

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _standard_stream(name: str, descriptor: int):
    """sys.stdout or sys.stderr, guarded. Closed from the start (None), /dev/null takes its descriptor:
    a file the command opens later would get it, and a child process's output would land in that file."""
    stream = getattr(sys, name)
    if stream is None:
        try:
            os.fstat(descriptor)
        except OSError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            if devnull != descriptor:
                os.dup2(devnull, descriptor)
                os.close(devnull)
        stream = _Nowhere()
    return _StandardStream(stream, name)


def _interrupt(signal_number, _frame):
    """The first SIGINT, SIGTERM or SIGHUP unwinds the command; later ones are ignored, so that they cannot break
    into its clean-up (ending the workers and simulators, writing what was measured) half-way."""
    for number in INTERRUPTING_SIGNALS:
        signal.signal(number, ignore_signal)
    raise Interrupted(signal_number)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not getattr(args, "handler", None):
        parser().print_help()
        return 2
    for number in INTERRUPTING_SIGNALS:  # unwind, so that every simulator is ended on the way out
        signal.signal(number, _interrupt)
    given = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _standard_stream("stdout", 1), _standard_stream("stderr", 2)
    try:
        status = args.handler(args)
        sys.stdout.flush()  # a full device shows here, not at exit
        return status
    except SwitchscopeError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_status
    except Interrupted as interruption:
        print(f"interrupted: {getattr(interruption, 'kept', 'nothing was complete')}", file=sys.stderr)
        return interruption.exit_status
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except SwitchscopeError:  # said already, or nowhere to say it
                pass
        sys.stdout, sys.stderr = given
