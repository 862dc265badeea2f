"""The firmware's rooms: its C files in layers, each using only its own layer and those below, and no circle
of files. docs/architecture.md states the same layers; a change that breaks them fails here, naming the file
and what it uses.

A file uses another when it includes it, or when it calls a function that the other file alone defines: a
header's use is resolved to the file that defines what the header declares. A function that several files
define (each board's board_write, each kernel port's ss_task_create) is an interface with one implementation
per build: calling it ties the caller to no one file. Calls inside a macro's body are the macro user's, and
not read; nor is assembly."""

import re
from fnmatch import fnmatch
from pathlib import Path

import pytest

from import_circles import circles

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"
FOLDERS = ("boards", "common", "include", "kernels", "scenarios")
# bottom to top, each file in the first layer that matches it: a file may use its own layer and those below
LAYERS = (
    # what the others are written against: board.h, kernel.h, harness.h, ..., and a board's board_config.h,
    # its part of board.h
    ("interfaces", ("include/switchscope/*.h", "boards/*/*.h")),
    # the record stream and the report of a fatal condition: the board's output and exit, nothing else
    ("stream", ("common/record.c", "common/harness_fail.c")),
    # the boards, and what the Cortex-M boards share
    ("boards", ("common/cortex_m.c", "common/cortex_m_semihosted.c", "boards/*/*.c")),
    ("kernels", ("kernels/*/*.c", "kernels/*/*.h")),
    # the harness and the scenarios' shared parts: the load, the latency sweep, the FP work
    ("harness", ("common/*.c",)),
    ("scenarios", ("scenarios/*.c", "scenarios/*.h")),  # thread_metric.h: what the Thread-Metric tests share
)
# main is the entry of whichever program is linked (the harness's, an application's of its own): the reset
# code that calls it knows no program
PROGRAM_ENTRY = {"main"}
# the C library's functions are the toolchain's, or where it has none a board's stand-in (boards/ibex/libc.c):
# calling memcpy ties the caller to no board
C_LIBRARY_STAND_IN = "libc.c"
NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "__attribute__", "__asm__", "asm",
             "__builtin_return_address", "alias", "section", "weak", "used", "naked", "noreturn"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def firmware_files() -> list[Path]:
    """The C sources and headers of the firmware's folders; a kernel's fetched source is not among them."""
    return sorted(path for folder in FOLDERS for path in (FIRMWARE / folder).rglob("*")
                  if path.suffix in (".c", ".h") and "source" not in path.relative_to(FIRMWARE).parts)


def name(path: Path) -> str:
    return str(path.relative_to(FIRMWARE))


def layer(file: str) -> str | None:
    return next((layer for layer, patterns in LAYERS if any(fnmatch(file, pattern) for pattern in patterns)),
                None)


def code_only(text: str) -> str:
    """The text less its comments, string and character literals and preprocessor lines (a macro's body
    with them), line breaks kept."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda match: " " + "\n" * match.group(0).count("\n") if match.group(0)[0] == "/" else '""',
                  text, flags=re.DOTALL)
    return re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.MULTILINE)


def skip_parentheses(text: str, at: int) -> int:
    """The index after the parenthesis that closes the one at `at`."""
    depth = 0
    for i in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return len(text)


def defined_name(head: str) -> str | None:
    """The function a top-level text ending where a brace opens defines, if it is a function's head:
    the first name followed by a parenthesis that is not an attribute's."""
    if "=" in head or re.search(r"\b(struct|union|enum)\s*\w*\s*$", head):
        return None
    at = 0
    while match := CALL.search(head, at):
        if match.group(1) not in ("__attribute__", "__asm__", "asm"):
            return match.group(1)
        at = skip_parentheses(head, match.end() - 1)
    return None


def read(path: Path) -> tuple[set[str], set[str], set[str]]:
    """A file's quoted includes, the functions it defines and the functions their bodies call."""
    text = path.read_text()
    code = code_only(text)
    defines, calls, depth, head_start, function, body_start = set(), set(), 0, 0, None, 0
    for i, char in enumerate(code):
        if char == "{":
            if depth == 0:
                function, body_start = defined_name(code[head_start:i]), i
                defines |= {function} - {None}
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                if function:
                    calls |= set(CALL.findall(code[body_start:i])) - NOT_CALLS
                function, head_start = None, i + 1
        elif char == ";" and depth == 0:
            head_start = i + 1
    return set(INCLUDE.findall(text)), defines, calls


@pytest.fixture(scope="module")
def graph() -> dict[str, dict[str, set[str]]]:
    """Each file's uses: the file it uses, and what of it (the header it includes, the functions it calls)."""
    files = firmware_files()
    read_files = {name(path): read(path) for path in files}
    definers: dict[str, set[str]] = {}
    for file, (_, defines, _) in read_files.items():
        for function in defines if Path(file).name != C_LIBRARY_STAND_IN else ():
            definers.setdefault(function, set()).add(file)
    uses: dict[str, dict[str, set[str]]] = {file: {} for file in read_files}
    for path in files:
        file = name(path)
        includes, defines, calls = read_files[file]
        for include in includes:
            beside = path.parent / include
            targets = [name(beside)] if beside.is_file() else [other for other in read_files
                                                                if other.endswith("/" + include)]
            for target in targets:
                uses[file].setdefault(target, set()).add(include)
        for call in calls - defines - PROGRAM_ENTRY:
            if len(definers.get(call, ())) == 1:
                uses[file].setdefault(next(iter(definers[call])), set()).add(call)
    return uses


def test_every_file_is_in_a_layer():
    outside = [name(path) for path in firmware_files() if layer(name(path)) is None]
    assert not outside, f"firmware files in no layer of {[layer for layer, _ in LAYERS]}: {outside}"


def test_no_layer_reaches_up(graph):
    order = [layer for layer, _ in LAYERS]
    upward = [f"{file} ({layer(file)}) -> {target} ({layer(target)}): {', '.join(sorted(what))}"
              for file, targets in graph.items() for target, what in sorted(targets.items())
              if order.index(layer(target)) > order.index(layer(file))]
    assert not upward, "firmware files that use a layer above their own:\n" + "\n".join(upward)


def test_there_is_no_circle_of_files(graph):
    found = circles({file: set(targets) for file, targets in graph.items()})
    ties = ["\n".join(f"  {file} -> {target}: {', '.join(sorted(graph[file][target]))}"
                      for file in circle for target in sorted(graph[file]) if target in circle)
            for circle in found]
    assert not found, "circles of firmware files:\n" + "\n\n".join(ties)


def test_the_checks_see_what_they_check(graph):
    """The uses are read from the code: an include, a header's function resolved to the file defining it,
    a function that several files define resolved to none, and a made-up circle is one."""
    assert "include/switchscope/harness.h" in graph["scenarios/yield.c"]
    assert "harness_run" in graph["scenarios/yield.c"]["common/harness.c"]
    assert "record_send" in graph["common/harness.c"]["common/record.c"]
    assert "board_interrupt" in graph["kernels/freertos/kernel_freertos.c"]["boards/ibex/board.c"]
    assert not any(target.startswith("boards/") for target in graph["common/record.c"])
    assert not any(target.startswith("boards/") for target in graph["common/harness.c"])
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
