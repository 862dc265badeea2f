"""The cli stage: the command line, one module per group of subcommands (measuring, boards,
results, listing), the grammar in parser.py, and main() here: exit 0 measured, 1 a measurement
failed, 2 bad input, 130/143 interrupted.

May import: every other stage. Imported by: __main__ and the installed `switchscope` command.
"""

from __future__ import annotations

import os
import signal
import sys

from switchscope.cli.parser import parser
from switchscope.common.errors import Interrupted, OutputFailed, SwitchscopeError


class _StandardOutput:
    """Standard output whose failure (a full device, an I/O error) is an
    OutputFailed, said in one line, rather than a traceback. A reader that goes
    away (BrokenPipeError) is left to main()."""

    def __init__(self, stream):
        self._stream = stream

    def _guarded(self, action, *arguments):
        try:
            return action(*arguments)
        except BrokenPipeError:
            raise
        except OSError as error:
            if self._stream is sys.__stdout__:  # what is still buffered goes nowhere, so that exit does not fail again
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
            raise OutputFailed(f"cannot write standard output: {error.strerror or error}") from None

    def write(self, text):
        return self._guarded(self._stream.write, text)

    def flush(self):
        return self._guarded(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)

def _interrupt(signal_number, _frame):
    """The first SIGINT or SIGTERM unwinds the command; later ones are ignored, so that they cannot break
    into its clean-up (ending the workers and simulators, writing what was measured) half-way."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    raise Interrupted(signal_number)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not getattr(args, "handler", None):
        parser().print_help()
        return 2
    for number in (signal.SIGINT, signal.SIGTERM):  # unwind, so that every simulator is ended on the way out
        signal.signal(number, _interrupt)
    given_stdout = sys.stdout
    if given_stdout is not None:  # None when standard output is closed: print() then says nothing
        sys.stdout = _StandardOutput(given_stdout)
    try:
        status = args.handler(args)
        if sys.stdout is not None:
            sys.stdout.flush()  # a full device shows here, not at exit
        return status
    except SwitchscopeError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_status
    except Interrupted as interruption:
        print(f"interrupted: {getattr(interruption, 'kept', 'nothing was complete')}", file=sys.stderr)
        return interruption.exit_status
    except BrokenPipeError:  # the reader went away (switchscope list | head): nothing more to say
        sys.stderr.close()
        return 0
    finally:
        sys.stdout = given_stdout
