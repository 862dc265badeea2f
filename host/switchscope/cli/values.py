"""The command line's values: each type checks and converts one option's value, or says what is wrong
(argparse's error, exit 2)."""

from __future__ import annotations

import argparse

from switchscope.common.errors import SwitchscopeError
from switchscope.figures.cluster import check_address
from switchscope.figures.shards import Subset
from switchscope.present.report import percentile_label

MAX_TIMEOUT_S = 7 * 24 * 3600  # a week: a bound, not a wish
MAX_JOBS = 256
CLOCK_RANGE_HZ = (1.0, 1e12)  # 1 Hz to 1 THz: any CPU clock there is


def _number(text: str, kind, least, most, what: str):
    """A finite number of `kind` from `least` to `most`, or an argparse error (exit 2) that says so."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}: '{text}' is not a number") from None
    if not least <= value <= most:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"{what}: {text} is outside {least:g} to {most:g}")
    return value


def percentiles(text: str) -> tuple[float, ...]:
    """--percentiles 50,90,99,99.9: each above 0 and at most 100, in the order given, each its own column."""
    chosen: dict[str, str] = {}  # column: the percentile as given
    values = []
    for item in text.split(","):
        value = _number(item.strip(), float, 0.0, 100.0, "a percentile")
        if value == 0:
            raise argparse.ArgumentTypeError("a percentile: 0 is the minimum, shown already; give 0 < P <= 100")
        column = percentile_label(value)
        if column in chosen:
            said = f"{item.strip()} given twice" if chosen[column] == item.strip() else \
                f"{chosen[column]} and {item.strip()} are one percentile"
            raise argparse.ArgumentTypeError(f"--percentiles {text}: {said} (column {column}); give each once")
        chosen[column] = item.strip()
        values.append(value)
    return tuple(values)


def output_path(text: str) -> str:
    """A file or directory to write: an empty one is refused, not taken as none (or as the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the path is empty: give a file name, or leave the option out")
    return text


def seconds(text: str) -> float:
    return _number(text, float, 0.001, MAX_TIMEOUT_S, "seconds")


def jobs(text: str) -> int:
    return _number(text, int, 1, MAX_JOBS, "jobs")


def subset(text: str) -> Subset:
    try:
        return Subset.parse(text)
    except SwitchscopeError as error:
        raise argparse.ArgumentTypeError(f"{error.message}; {error.hint}") from None


def cluster_address(text: str) -> str:
    try:
        return check_address(text)
    except SwitchscopeError as error:
        raise argparse.ArgumentTypeError(f"{error.message}; {error.hint}") from None


def clock_hz(text: str) -> float:
    return _number(text, float, *CLOCK_RANGE_HZ, "a clock in Hz")


def one_name(text: str) -> str:
    """A selection that takes one name (a board holds one image, a breakdown traces one window); 'all' is
    refused by the command, with its reason."""
    if "," in text:
        raise argparse.ArgumentTypeError(f"'{text}' is a list, and this command takes one name")
    return text
