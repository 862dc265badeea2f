"""Errors a user can act on: each says what went wrong and what to do."""

import signal


class SwitchscopeError(Exception):
    """Base of every error the command line reports without a traceback."""

    exit_status = 2  # bad input, unless a subclass says otherwise

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  {self.hint}"


class OutputFailed(SwitchscopeError):
    """An output could not be written after the work was done (a full disk, a
    file-size limit, standard output on a full device)."""

    exit_status = 1


class ToolMissing(SwitchscopeError):
    pass


class ConfigurationRefused(SwitchscopeError):
    """A combination of valid option values that a kernel refuses for a target or scenario (its conflicts)."""


class UnknownName(SwitchscopeError):
    pass


class BuildFailed(SwitchscopeError):
    pass


class FirmwareFailed(SwitchscopeError):
    """The firmware crashed, hung, or its stream could not be used."""


# The signals that end a command as an interruption: Ctrl-C, kill, and the terminal or session going away
INTERRUPTING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP arrived: the command stops its simulators, keeps what
    it completed, and exits 128 + the signal's number (130, 143, 129). A
    BaseException, so that no `except Exception` on the way swallows it."""

    def __init__(self, signal_number: int):
        super().__init__(f"interrupted by signal {signal_number}")
        self.exit_status = 128 + signal_number


def ignore_signal(_signal_number, _frame) -> None:
    """The handler of a signal after the first, during a clean-up: nothing. A handler that does nothing,
    not SIG_IGN: a signal that arrived before the change and is handled after it would otherwise raise
    "OSError: Signal N ignored due to race condition" wherever the clean-up then is."""
