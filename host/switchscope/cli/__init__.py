"""The cli stage: the command line, one module per group of subcommands (measuring, boards,
results, listing), the grammar in parser.py, and main() here: exit 0 measured, 1 a measurement
failed, 2 bad input, 130/143 interrupted.

May import: every other stage. Imported by: __main__ and the installed `switchscope` command.
"""

from __future__ import annotations

import signal
import sys

from switchscope.cli.parser import parser
from switchscope.common.errors import Interrupted, SwitchscopeError

def _interrupt(signal_number, _frame):
    raise Interrupted(signal_number)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not getattr(args, "handler", None):
        parser().print_help()
        return 2
    for number in (signal.SIGINT, signal.SIGTERM):  # unwind, so that every simulator is ended on the way out
        signal.signal(number, _interrupt)
    try:
        return args.handler(args)
    except SwitchscopeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Interrupted as interruption:
        print(f"interrupted: {getattr(interruption, 'kept', 'nothing was complete')}", file=sys.stderr)
        return interruption.exit_status
    except BrokenPipeError:  # the reader went away (switchscope list | head): nothing more to say
        sys.stderr.close()
        return 0
