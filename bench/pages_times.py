"""Times: the machine they were taken on, and the blocks made of the bench
scripts' own tables (throughput, the stream against a gauge, the matrix three
ways, what the timing model costs), whose every time is the machine's."""

from __future__ import annotations

import os
import platform
import re

from pages_text import timed

NUMBER = re.compile(r"^[\d,.]+( s|x)?$")


def machine() -> str:
    """"2 cores of an AMD EPYC (x86_64), Debian 12.11": what the times were taken on."""
    model = "an unnamed processor"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                model = f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"
                break
    except OSError:
        pass
    system = ""
    try:
        system = f", Debian {open('/etc/debian_version').read().strip()}"
    except OSError:
        pass
    return f"{os.cpu_count()} cores of {model} ({platform.machine()}){system}"


def seconds(value: float) -> str:
    return f"{value:.1f} s"


def timed_table(printed: str, figures: tuple[int, ...] = ()) -> str:
    """A bench script's Markdown table with every number in it marked as the machine's, but in the first column
    (it names the row) and the `figures` columns (counts, which do not depend on the machine)."""
    lines = []
    for line in printed.strip().splitlines():
        if not line.startswith("|") or set(line) <= set("|-: "):
            lines.append(line)
            continue
        cells = line.strip("|").split("|")
        marked = [cells[0], *(f" {timed(c.strip())} " if NUMBER.match(c.strip()) and i not in figures else c
                              for i, c in enumerate(cells[1:], 1))]
        lines.append("|" + "|".join(marked) + "|")
    return "\n".join(lines) + "\n"


def script_block(measured, run: str, command: str, note: str = "") -> str:
    """The table a bench script printed, its times marked, the machine stated."""
    printed = measured[run].outputs[0]
    table = "\n".join(line for line in printed.splitlines() if line.startswith("|"))
    rest = [line for line in printed.splitlines() if line.strip() and not line.startswith("|")]
    text = f"`{command}` on {timed(machine())}{note}:\n\n{timed_table(table)}"
    for line in rest:
        text += "\n" + re.sub(r"\d[\d,.]*", lambda m: timed(m.group(0)), line) + "\n"
    return text
