"""How much room a figure's label takes, and what to draw when it has less.

A label's width is the sum of its characters' advance widths in DejaVu Sans
(the font the figures name first, and the one Debian's browsers draw
system-ui with), with a little slack on top: it errs wide, so a label the
layout gave room to is never cut by the edge of its figure. A label too long
for its room is wrapped at its commas and spaces, and past its lines
shortened with an ellipsis, the whole text then in a <title> that a browser
shows on hover."""

from __future__ import annotations

from html import escape

FONT_FAMILY = "'DejaVu Sans', Verdana, system-ui, sans-serif"
# Advance widths of DejaVu Sans (Book) in thousandths of an em, rounded up: the printable ASCII characters
# from the space on, then a few others the figures write. Any other character counts as a whole em.
_ASCII = (318, 401, 460, 838, 637, 951, 780, 275, 391, 391, 500, 838, 318, 361, 318, 337,  # space to /
          637, 637, 637, 637, 637, 637, 637, 637, 637, 637, 337, 337, 838, 838, 838, 531,  # 0 to ?
          1000, 685, 687, 699, 771, 632, 576, 775, 752, 295, 295, 656, 558, 863, 749, 788,  # @ to O
          604, 788, 695, 635, 611, 732, 685, 989, 686, 611, 686, 391, 337, 391, 838, 500,  # P to _
          500, 613, 635, 550, 635, 616, 353, 635, 634, 278, 278, 580, 278, 975, 634, 612,  # ` to o
          635, 635, 412, 521, 393, 634, 592, 818, 592, 592, 525, 637, 337, 637, 838)  # p to ~
_OTHERS = {"µ": 637, "×": 838, "–": 500, "—": 1000, "…": 1000, "·": 318, "°": 500, "±": 838, "≤": 838,
           "≥": 838, "→": 838, "−": 838, "²": 401}
ADVANCE = {chr(32 + i): width for i, width in enumerate(_ASCII)} | _OTHERS
SLACK = 1.04  # another sans-serif font in its place, hinting, rounding
ELLIPSIS = "…"


def width(text: str, size: float) -> float:
    """Units `text` takes at `size` units a font, erring wide."""
    return sum(ADVANCE.get(character, 1000) for character in text) * size / 1000 * SLACK


def shorten(text: str, room: float, size: float) -> str:
    """`text`, or as much of its start as fits `room` with an ellipsis after it."""
    if width(text, size) <= room:
        return text
    kept = text
    while kept and width(kept.rstrip(" ,/") + ELLIPSIS, size) > room:
        kept = kept[:-1]
    return kept.rstrip(" ,/") + ELLIPSIS


def _pieces(text: str) -> list[str]:
    """`text` cut after each comma, space and slash: the places a line may end."""
    pieces, current = [], ""
    for character in text:
        current += character
        if character in ", /":
            pieces.append(current)
            current = ""
    return pieces + [current] if current else pieces


def wrap(text: str, room: float, size: float, most_lines: int = 2) -> list[str]:
    """`text` in lines of at most `room` units, broken at commas, spaces and slashes; the last of
    `most_lines` lines shortened with an ellipsis when the text needs more."""
    lines, current = [], ""
    for piece in _pieces(text):
        if current and width((current + piece).rstrip(), size) > room:
            lines.append(current.rstrip())
            current = piece.lstrip()
        else:
            current += piece
    lines.append(current.rstrip())
    if len(lines) > most_lines:  # the rest is wider than the room (else it would be on one line): shortened
        lines = lines[:most_lines - 1] + [shorten(" ".join(lines[most_lines - 1:]), room, size)]
    return [shorten(line, room, size) for line in lines]


def element(x: float, y: float, lines: list[str], full: str, attributes: str = "", line_height: float = 0) -> str:
    """A <text> of `lines` (one under another, `line_height` apart), inside a group whose <title> is the
    whole text when the lines do not say all of it."""
    if len(lines) == 1:
        body = escape(lines[0])
    else:
        body = "".join(f'<tspan x="{x:.1f}" dy="{0 if i == 0 else line_height:g}">{escape(line)}</tspan>'
                       for i, line in enumerate(lines))
    drawn = f'<text x="{x:.1f}" y="{y:.1f}"{attributes}>{body}</text>'
    if ELLIPSIS not in "".join(lines) or ELLIPSIS in full:
        return drawn
    return f"<g><title>{escape(full)}</title>{drawn}</g>"
