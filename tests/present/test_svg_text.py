"""Labels that fit their figures: widths measured in DejaVu Sans erring wide,
long names wrapped or shortened with the whole text in a tooltip, and margins
grown so that no legend, axis name or category name reaches past the edge of
its figure. Pure: the widths are the module's own estimate (the browser test
in test_report.py checks the drawn boxes)."""

import math
from xml.etree import ElementTree

import pytest

from switchscope.present import svg, svg_text

SVG = "{http://www.w3.org/2000/svg}"
LONG = "lock=mutex, opt=-Os, optimised_selection=off, preemption=off, stack_check=on, switch=pendsv, time_slicing=off"


def test_a_width_is_never_less_than_dejavu_sans_draws_it():
    # advance widths Chromium measured in DejaVu Sans at 1,000 px: the estimate is at least as wide
    for text, drawn in (("freertos / mps2-an385 / rotate (2 tasks)", 19_826.7), ("AVAWTo", 3_911.1),
                        ("switch=pendsv", 7_661.6), ("µs", 1_157.2)):
        assert svg_text.width(text, 1000) >= drawn, text
    assert svg_text.width("☃", 10) >= 10  # a character it has no width for: a whole em


def test_a_long_label_wraps_at_its_commas_then_shortens_with_an_ellipsis():
    lines = svg_text.wrap(LONG, 200, 14, most_lines=3)
    assert len(lines) == 3 and all(svg_text.width(line, 14) <= 200 for line in lines)
    assert lines[0].startswith("lock=mutex,") and lines[-1].endswith("…")
    whole = svg_text.wrap(LONG, 2000, 14)
    assert whole == [LONG]
    assert svg_text.wrap("averyveryverylongwordwithoutanyplacetobreak", 60, 14) == \
        [svg_text.shorten("averyveryverylongwordwithoutanyplacetobreak", 60, 14)]


def test_a_shortened_label_carries_the_whole_text_as_its_title():
    drawn = ElementTree.fromstring(svg_text.element(0, 0, [svg_text.shorten(LONG, 100, 14)], LONG))
    assert drawn.tag == "g" and drawn.find("title").text == LONG
    plain = ElementTree.fromstring(svg_text.element(0, 0, ["a, b"], "a, b"))
    assert plain.tag == "text"  # a label shown whole needs no tooltip


def _extents(drawing: str) -> list[tuple[str, float, float, float, float]]:
    """(text, left, right, top, bottom) of each label by the module's widths, rotations applied."""
    found = []
    root = ElementTree.fromstring(drawing)
    for text in root.iter(f"{SVG}text"):
        lines = [t.text for t in text.iter(f"{SVG}tspan")] or ["".join(text.itertext())]
        width = max(svg.text_width(line) for line in lines)
        height = svg.LINE * (len(lines) - 1)
        x, y = float(text.get("x")), float(text.get("y"))
        left = {"end": -width, "middle": -width / 2}.get(text.get("text-anchor"), 0)
        corners = [(left, -0.8 * svg.FONT_SIZE), (left + width, -0.8 * svg.FONT_SIZE),
                   (left, height + svg.DESCENT), (left + width, height + svg.DESCENT)]
        transform = text.get("transform") or ""
        if "rotate" in transform:
            angle, *centre = map(float, transform.split("rotate(")[1].rstrip(")").split())
            cx, cy = centre if centre else (0.0, 0.0)
            if "translate(" in transform:
                cx, cy = map(float, transform.split("translate(")[1].split(")")[0].split())
                x, y = cx, cy
            a = math.radians(angle)
            points = [(x + px, y + py) for px, py in corners]
            points = [(cx + (px - cx) * math.cos(a) - (py - cy) * math.sin(a),
                       cy + (px - cx) * math.sin(a) + (py - cy) * math.cos(a)) for px, py in points]
        else:
            points = [(x + px, y + py) for px, py in corners]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        found.append(("".join(text.itertext()), min(xs), max(xs), min(ys), max(ys)))
    return found


def _inside(drawing: str) -> None:
    _, _, width, height = map(float, ElementTree.fromstring(drawing).get("viewBox").split())
    for text, left, right, top, bottom in _extents(drawing):
        assert left >= 0 and right <= width and top >= 0 and bottom <= height, (text, left, right, top, bottom)


@pytest.mark.parametrize("names", [
    ["default configuration", LONG, "msg_size=16"],
    [f"software: {c}" for c in ("Cooperative NOPRI", "Cooperative PRI", "Preemptive NOPRI", "Preemptive PRI")],
    ["a" * 120],
])
def test_legends_stay_inside_their_figure(names):
    point = {"median": 9_000, "min": 8_000, "max": 12_345, "title": ""}
    _inside(svg.lines(["2", "3", "4"], [(name, [point] * 3) for name in names], "number of tasks", "cycles", "t"))
    categories = ["resume", "rotate (2 tasks)", "rotate (8 tasks)", "deadlock-release"]
    values = {(c, n): 12_345 for c in categories for n in names}
    _inside(svg.grouped_bars(categories, names, values, "cycles", "t"))


def test_slanted_category_names_and_a_long_axis_name_stay_inside():
    categories = ["rotate (2 tasks)", "rotate (3 tasks)", "a very long scenario name (16 tasks)"] * 3
    _inside(svg.grouped_bars(categories, ["one"], {(c, "one"): 300 for c in categories}, "instructions", "t"))
    _inside(svg.by_phase(list(range(600)), [50 + p % 40 for p in range(600)], 600, "instructions",
                         "instructions", "t"))
    _inside(svg.histogram(list(range(1_000_000, 1_000_600)), "instructions", {"median": 1_000_300, "p99": 1_000_594},
                          "t", what="a switch time measured by a long-winded method"))
    _inside(svg.lines(["1", "4"], [("", [{"median": 1, "min": 1, "max": 1, "title": ""}] * 2)],
                      "a label far too long for the width of the figure: " * 3, "a unit name longer than the plot "
                      "is tall, which it must not run past", "t"))
