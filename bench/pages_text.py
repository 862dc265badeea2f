"""The figure blocks of README.md and docs/*.md: where they are, how a
rendered block marks what may differ from run to run, and how a page's block
is compared with one derived again.

A block stands between two marker lines, and only its generator writes it:

    <!-- figures: NAME (bench/pages.py) -->
    ... a table, or prose with figures in it ...
    <!-- end figures -->

A renderer marks every value that is not a property of the firmware: a time
(`timed`: it depends on the machine, and is never compared) and a count that
depends on how many samples were taken (`counted`: compared only when the
block was derived at the sample count its page states). Everything else is
compared exactly.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
PAGES = (CHECKOUT / "README.md", *sorted((CHECKOUT / "docs").glob("*.md")))

TIME, COUNT = "time", "count"
_OPEN, _SPLIT, _CLOSE = "\x00", "\x02", "\x01"
_VOLATILE = re.compile(f"{_OPEN}(\\w+){_SPLIT}(.*?){_CLOSE}", re.S)
BLOCK = re.compile(r"^(?P<head><!-- figures: (?P<name>[\w-]+) \(bench/pages\.py\) -->\n)(?P<body>.*?)"
                   r"^(?P<tail><!-- end figures -->)$", re.S | re.M)


def timed(text) -> str:
    """A time, or a ratio of times: the machine's, never compared."""
    return f"{_OPEN}{TIME}{_SPLIT}{text}{_CLOSE}"


def counted(text) -> str:
    """A figure that depends on the number of samples taken (how many were kept, a mean over rare events)."""
    return f"{_OPEN}{COUNT}{_SPLIT}{text}{_CLOSE}"


def plain(rendered: str) -> str:
    """The text as the page shows it."""
    return _VOLATILE.sub(lambda match: match.group(2), rendered)


def pattern(rendered: str, ignored: set[str]) -> re.Pattern:
    """A pattern the page's block must match: the ignored kinds of value may read anything on their line."""
    pieces, at = [], 0
    for match in _VOLATILE.finditer(rendered):
        pieces.append(re.escape(rendered[at:match.start()]))
        pieces.append(r"[^\n]*?" if match.group(1) in ignored else re.escape(match.group(2)))
        at = match.end()
    pieces.append(re.escape(rendered[at:]))
    return re.compile("".join(pieces), re.S)


@dataclass(frozen=True)
class PageBlock:
    page: Path
    name: str
    body: str


def blocks_in(pages=PAGES) -> list[PageBlock]:
    found = []
    for page in pages:
        found += [PageBlock(page, match.group("name"), match.group("body")) for match in BLOCK.finditer(page.read_text())]
    return found


def differences(page_body: str, rendered: str, ignored: set[str]) -> str:
    """"" when the page's block reads what was derived, else a diff of the two (page first)."""
    if pattern(rendered, ignored).fullmatch(page_body):
        return ""
    return "".join(difflib.unified_diff(page_body.splitlines(keepends=True), plain(rendered).splitlines(keepends=True),
                                        "the page", "derived again"))


def rewrite(page: Path, bodies: dict[str, str]) -> bool:
    """Put each named block's new body into the page; True if the page changed. Written whole, then renamed."""
    text = page.read_text()

    def replaced(match: re.Match) -> str:
        return match.group("head") + bodies.get(match.group("name"), match.group("body")) + match.group("tail")

    new = BLOCK.sub(replaced, text)
    if new == text:
        return False
    scratch = page.with_name(f".{page.name}.new")
    scratch.write_text(new)
    scratch.replace(page)
    return True


def markdown_table(header: list[str], aligns: str, rows: list[list[str]]) -> str:
    """A Markdown table; aligns holds one letter per column: l (left) or r (right)."""
    rule = "|".join("---" if a == "l" else "--:" for a in aligns)
    return "\n".join([f"| {' | '.join(header)} |", f"|{rule}|", *(f"| {' | '.join(map(str, row))} |" for row in rows)]) + "\n"


def figure(value: float, places: int = 0) -> str:
    """A figure as the pages write it: thousands grouped, the given decimal places; whole numbers plain."""
    if places == 0:
        return f"{round(value):,}"
    return f"{value:,.{places}f}"


def median(value: float) -> str:
    """A median as the tool prints it: whole, or the mean of the middle two (x.5)."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
