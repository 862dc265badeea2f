"""A capture's channel as switchscope reads it, the error every capture reader raises, and the reader
of VCD files (any tool's); capture_files.py reads the sigrok formats and tells a file's format."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from switchscope.common.errors import SwitchscopeError


class CaptureError(SwitchscopeError):
    pass


@dataclass
class Channel:
    name: str
    edges: list[tuple[Fraction, int]]  # (seconds from the capture's start, new level)
    resolution: Fraction  # seconds per sample (or per VCD time step)
    source: str  # what the capture says about itself, for the report
    # a switchscope VCD states the unit one time step counts: ("cycles" or "instructions", seconds per unit)
    time_base: tuple[str, Fraction] | None = None


# VCD $timescale units: ASCII "us", as the format (IEEE 1364) spells a microsecond, never "µs"
SI_STEPS = {"s": 1, "ms": Fraction(1, 10**3), "us": Fraction(1, 10**6), "ns": Fraction(1, 10**9),
            "ps": Fraction(1, 10**12), "fs": Fraction(1, 10**15)}


def unknown_channel(path: Path, name: str, names: list[str]) -> CaptureError:
    return CaptureError(f"{path} has no channel '{name}'", f"its channels: {', '.join(names) or '(none)'}")


MAX_HEADER_LINES = 100_000  # a VCD declares its signals first: a longer header is not a VCD
MAX_TIME_DIGITS = 30  # a time stamp or a number in a capture: more digits are damage, not a capture


@dataclass(frozen=True)
class _Signal:
    scoped: str  # its name in its scopes: top.la.D13
    name: str  # D13
    code: str  # the identifier its value changes carry
    width: int  # bits: 1 for a pin


def _vcd_signals(header: str) -> list[_Signal]:
    """Every $var of a VCD's header, with the $scope names around it."""
    tokens, scopes, found, index = header.split(), [], [], 0

    def after_end(at: int) -> tuple[list[str], int]:
        end = tokens.index("$end", at) if "$end" in tokens[at:] else len(tokens)
        return tokens[at + 1:end], end + 1

    while index < len(tokens):
        token = tokens[index]
        if token == "$scope":  # $scope module top $end
            fields, index = after_end(index)
            scopes.append(fields[1] if len(fields) > 1 else "?")
        elif token == "$upscope":
            scopes = scopes[:-1]
            index = after_end(index)[1]
        elif token == "$var":  # $var wire 1 ! D13 [range] $end
            fields, index = after_end(index)
            if len(fields) >= 4 and fields[1].isascii() and fields[1].isdigit() and len(fields[1]) <= 6:
                found.append(_Signal(".".join([*scopes, fields[3]]), fields[3], fields[2], int(fields[1])))
        elif token.startswith("$") and token not in ("$end", "$enddefinitions"):  # $comment, $date, ...: skipped
            index = after_end(index)[1]
        else:
            index += 1
    return found


def _vcd_channel(path: Path, header: str, channel: str) -> str:
    """The identifier of the one 1-bit signal `channel` names (D13, or top.la.D13 among several D13)."""
    signals = _vcd_signals(header)
    named = [signal for signal in signals if channel in (signal.scoped, signal.name)]
    if not named:
        plain = [signal.name for signal in signals]
        raise unknown_channel(path, channel, list(dict.fromkeys(
            signal.name if plain.count(signal.name) == 1 else signal.scoped for signal in signals)))
    codes = list(dict.fromkeys(signal.code for signal in named))  # one signal may be declared under two names
    if len(codes) > 1:
        scoped = list(dict.fromkeys(signal.scoped for signal in named))
        if len(scoped) < len(named):
            raise CaptureError(f"{path}: '{channel}' is declared twice in one scope, as two signals "
                               f"({' and '.join(codes)})", "the capture's writer named two signals alike: "
                                                           "rename one, or record the pin alone")
        raise CaptureError(f"{path}: '{channel}' names {len(scoped)} signals ({', '.join(scoped)})",
                           f"give the one the pin was recorded on by its full name, e.g. --channel {scoped[-1]}")
    width = named[0].width
    if width != 1:
        raise CaptureError(f"{path}: channel '{channel}' is a vector of {width} bits, and a pin is one bit",
                           "give the 1-bit channel the pin was recorded on, or record the pin as its own channel")
    return codes[0]


def read_vcd(path: Path, channel: str) -> Channel:
    """Read line by line: memory does not grow with the capture's length. Lines may end in LF, CR LF or CR."""
    header_lines, number = [], 0
    with path.open(errors="replace", newline="") as lines:
        for number, line in enumerate(lines, start=1):
            header_lines.append(line)
            if "$enddefinitions" in line or number > MAX_HEADER_LINES:
                break
        header = "".join(header_lines)
        timescale_match = re.search(r"\$timescale\s+(\d{1,6})\s*([munpf]?s)\s+\$end", header)
        if not timescale_match or "$enddefinitions" not in header:
            raise CaptureError(f"{path} is not a complete VCD (no $timescale or no $enddefinitions)")
        step = int(timescale_match.group(1)) * SI_STEPS[timescale_match.group(2)]
        if step == 0:
            raise CaptureError(f"{path}: its $timescale is 0, so its time stamps say nothing")
        code = _vcd_channel(path, header, channel)
        edges, level, now, vector, comment = [], None, None, None, False
        line = header_lines[-1]
        for number, line in enumerate(lines, start=number + 1):
            if not line.endswith(("\n", "\r")):
                break  # the last line, cut short: said below
            for token in line.split():
                new = None
                if comment:  # a comment's words are text, whatever they look like ("1!" or "#500" included)
                    comment = token != "$end"
                elif token == "$comment":
                    comment = True
                elif vector is not None:  # "b1 !": a vector's value, then the signal it is of
                    if token == code:
                        new = 1 if vector.lstrip("0") == "1" else 0
                    vector = None
                elif token.startswith("#"):
                    digits = token[1:]
                    if not (digits.isascii() and digits.isdigit()) or len(digits) > MAX_TIME_DIGITS:
                        raise CaptureError(f"{path}, line {number}: bad time stamp {token[:40]!r}")
                    if now is not None and int(digits) < now:
                        raise CaptureError(f"{path}, line {number}: time goes back from #{now} to {token}")
                    now = int(digits)
                elif token[0] in "bBrR":
                    vector = token[1:]
                elif token[0] in "xXzZ" and token[1:] == code:
                    if level is None:  # unknown until first driven (a simulator's dump starts so): no level yet
                        continue
                    # a known level that becomes unknown: a glitch the analyzer could not read, or a pin let
                    # float; either way no edge can be placed in it
                    raise CaptureError(f"{path}, line {number}: channel '{channel}' goes from {level} to "
                                       f"{token[0]} (unknown) at #{now}: a pin's level is 0 or 1, and an edge "
                                       "cannot be placed in an unknown one",
                                       "capture again with the analyzer's threshold set for the board's logic "
                                       "level, or trim the capture to where the pin is driven")
                elif token[0] in "01" and token[1:] == code:
                    new = int(token[0])
                if new is not None:
                    if level is not None and new != level:
                        if now is None:
                            raise CaptureError(f"{path}, line {number}: a value change before any time stamp")
                        edges.append((now * step, new))
                    level = new
        if not line.endswith(("\n", "\r")):
            raise CaptureError(f"{path}, line {number}: the file ends in the middle of a line: the capture is truncated")
    if level is None:
        raise CaptureError(f"{path}: channel '{channel}' never has a value")
    # switchscope's own VCDs say what their time counts: "1 cycles = 400 x 100 ps", "1 instructions = 256 x 1 ns"
    stated = re.search(r"\$comment switchscope .*?1 (cycles|instructions) = (\d{1,12}) x \d+ [munpf]?s \$end", header)
    time_base = (stated.group(1), int(stated.group(2)) * step) if stated and int(stated.group(2)) else None
    return Channel(channel, edges, step, f"VCD, time step {timescale_match.group(1)} {timescale_match.group(2)}",
                   time_base)
