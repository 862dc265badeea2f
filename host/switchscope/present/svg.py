"""Figures for the HTML report, written as inline SVG text: no plotting
library, no script, nothing to fetch. Every bar and point carries a <title>,
so a browser shows its exact value on hover; the figures also print their key
values, for screens that cannot hover."""

from __future__ import annotations

import math
from html import escape

import numpy as np

from switchscope.present import svg_text

PALETTE = ("#3b6ea5", "#c0392b", "#27ae60", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d", "#d35400")
# A figure is WIDTH units wide and shown at most 540 px wide, shrunk to fit a narrower screen: at 14 units
# its labels are 15 px on a desktop and still 9.5 px on a phone 375 px wide.
WIDTH = 500
FONT_SIZE = 14
FONT = f'font-family="{svg_text.FONT_FAMILY}" font-size="{FONT_SIZE}"'
LINE = FONT_SIZE + 4  # units from one line of labels to the next
DESCENT = 0.3 * FONT_SIZE  # how far a label reaches below its baseline, at most
AXIS_ROOM = 2 * FONT_SIZE + 16  # below a plot: the ticks' labels, then the axis's name
SWATCH = 15  # a legend's colour square and the gap after it
SLANT = math.radians(35)  # category names too long to stand side by side are drawn slanted this much
MAX_BINS = 60


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """Units a label takes (erring wide: see svg_text)."""
    return svg_text.width(text, size)


def figure_number(value: float) -> str:
    """A figure as a person writes it: whole numbers without a point, others with two decimals."""
    value = float(value)
    return f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering low..high: steps of 1, 2 or 5 times a power of ten."""
    if high <= low:
        return [low]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda candidate: abs((high - low) / candidate - count))
    step = max(step, 1) if float(low).is_integer() and float(high).is_integer() else step
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) // step) + 1)]


class _Canvas:
    """A plot area inside margins, mapping data to pixels. What is drawn below the plot (ticks' labels,
    the axis's name, a legend) moves `reach` down, and the figure grows to hold it."""

    def __init__(self, width: int, height: int, left: int = 56, right: int = 12, top: int = 14,
                 bottom: int = AXIS_ROOM):
        self.width, self.height = width, height
        self.left, self.right, self.top = left, right, top
        self.inner_height = height - top - bottom
        self.reach = top + self.inner_height  # the lowest point drawn so far
        self.parts: list[str] = []

    @property
    def inner_width(self) -> float:
        return self.width - self.left - self.right

    @property
    def bottom_of_plot(self) -> float:
        return self.top + self.inner_height

    def y_of(self, value: float, top_value: float) -> float:
        return self.top + self.inner_height * (1 - value / top_value) if top_value else self.bottom_of_plot

    def add(self, text: str) -> None:
        self.parts.append(text)

    def label(self, x: float, y: float, text: str, room: float, attributes: str = "", most_lines: int = 1) -> int:
        """A label of at most `room` units a line (wrapped, then shortened: the whole in its title);
        how many lines it took."""
        lines = svg_text.wrap(text, room, FONT_SIZE, most_lines)
        self.add(svg_text.element(x, y, lines, text, attributes, LINE))
        return len(lines)

    def fit_y_labels(self, top_value: float) -> None:
        """Widen the left margin to the longest label of the y axis, beside the axis's own name."""
        longest = max(text_width(figure_number(tick)) for tick in nice_ticks(0, top_value, 4))
        # the axis's name: its baseline at FONT_SIZE, its descent right of it; then a gap, then the labels
        self.left = max(self.left, math.ceil(FONT_SIZE + DESCENT + 6 + longest + 4))

    def y_axis(self, top_value: float, label: str) -> None:
        self.fit_y_labels(top_value)
        for tick in nice_ticks(0, top_value, 4):
            y = self.y_of(tick, top_value)
            self.add(f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="#ddd"/><text x="{self.left - 4}" y="{y + FONT_SIZE * 0.35:.1f}" text-anchor="end">'
                     f'{figure_number(tick)}</text>')
        middle = self.top + self.inner_height / 2
        lines = [svg_text.shorten(label, self.inner_height, FONT_SIZE)]
        self.add(svg_text.element(0, 0, lines, label,
                                  f' transform="translate({FONT_SIZE} {middle:.1f}) rotate(-90)" text-anchor="middle"'))

    def x_tick_label(self, x: float, text: str, room: float | None = None) -> None:
        """A label centred under `x`, shortened to `room`; at the figure's edge moved in to stay whole."""
        y = self.bottom_of_plot + 4 + FONT_SIZE
        half = min(text_width(text), room or self.width) / 2
        x = min(max(x, half + 2), self.width - half - 2)
        self.label(x, y, text, room or self.width, ' text-anchor="middle"')
        self.reach = max(self.reach, y + DESCENT)

    def x_label(self, label: str) -> None:
        """The axis's name under the plot's middle, moved aside to stay whole, in two lines if it must."""
        lines = svg_text.wrap(label, self.width - 8, FONT_SIZE, 2)
        half = max(map(text_width, lines)) / 2
        x = min(max(self.left + self.inner_width / 2, 4 + half), self.width - 4 - half)
        y = self.bottom_of_plot + 8 + 2 * FONT_SIZE
        self.add(svg_text.element(x, y, lines, label, ' text-anchor="middle"', LINE))
        self.reach = max(self.reach, y + LINE * (len(lines) - 1) + DESCENT)

    def legend(self, names: list[str], colours: list[str] | None = None) -> None:
        """A swatch and a name per series under what is drawn, as many to a row as fit the longest name;
        a name too long for the figure's width is wrapped (three lines at most, then shortened)."""
        if not names:
            return
        colours = colours or [PALETTE[s % len(PALETTE)] for s in range(len(names))]
        widest = max(map(text_width, names)) + SWATCH
        fitting = lambda room: max(1, min(3, int((room + 14) // (widest + 14))))  # names to a row
        left, room = self.left, self.width - self.left - 4  # under the plot, where the names fit as well there
        if widest > room or fitting(self.width - 8) > fitting(room):
            left, room = 4, self.width - 8
        per_row = fitting(room)
        column = room / per_row
        top = self.reach + 10
        for first in range(0, len(names), per_row):
            lines = 1
            for k, name in enumerate(names[first:first + per_row]):
                x = left + k * column
                self.add(f'<rect x="{x:.1f}" y="{top:.1f}" width="11" height="11" fill="{colours[first + k]}"/>')
                lines = max(lines, self.label(x + SWATCH, top + 10, name, column - SWATCH - 14 * (per_row > 1),
                                              most_lines=3))
            top += LINE * lines
        self.reach = top - LINE + 10 + DESCENT

    def svg(self, description: str, css_class: str) -> str:
        height = max(self.height, math.ceil(self.reach + 6))
        return (f'<svg class="{css_class}" viewBox="0 0 {self.width} {height}" role="img" '
                f'xmlns="http://www.w3.org/2000/svg" {FONT}><title>{escape(description)}</title>'
                f'<line x1="{self.left}" x2="{self.left}" y1="{self.top}" y2="{self.bottom_of_plot}" '
                f'stroke="#444"/><line x1="{self.left}" x2="{self.width - self.right}" '
                f'y1="{self.bottom_of_plot}" y2="{self.bottom_of_plot}" stroke="#444"/>'
                + "".join(self.parts) + "</svg>")


def fitted_ticks(low: float, high: float, room: float, count: int = 6) -> list[float]:
    """nice_ticks for an axis `room` units long, as many as fit their labels side by side."""
    while True:
        ticks = nice_ticks(low, high, count)
        widest = max(text_width(figure_number(tick)) for tick in ticks) + FONT_SIZE
        if count <= 1 or widest * len(ticks) <= room:
            return ticks
        count -= 1


def histogram_bins(values) -> tuple[np.ndarray, np.ndarray, bool]:
    """(edges, counts, one_per_value): a bin per whole unit when the range is narrow
    enough to show each value, else MAX_BINS equal bins."""
    data = np.asarray(values, dtype=float)
    low, high = float(data.min()), float(data.max())
    whole = bool(np.all(data == np.floor(data)))
    if whole and high - low < MAX_BINS * 2:
        edges = np.arange(low, high + 2)
        one_per_value = True
    else:
        edges = np.linspace(low, high, MAX_BINS + 1) if high > low else np.array([low, low + 1])
        one_per_value = False
    counts, _ = np.histogram(data, bins=edges)
    return edges, counts, one_per_value


def histogram(values, unit: str, stats: dict, description: str, width: int = WIDTH, height: int = 230,
              what: str = "switch time") -> str:
    """The whole distribution: one bar per value (or per bin), the median and p99 marked.
    A bar with any sample is at least one pixel high, so rare outliers stay visible."""
    edges, counts, one_per_value = histogram_bins(values)
    total = int(counts.sum())
    canvas = _Canvas(width, height, top=LINE + 12)
    top_count = int(counts.max())
    canvas.y_axis(top_count, "samples")
    low, high = float(edges[0]), float(edges[-1])
    pad = max((high - low) * 0.02, 2 if one_per_value else 0)
    span_low, span_high = low - pad, high + pad
    x_of = lambda value: canvas.left + canvas.inner_width * (value - span_low) / (span_high - span_low)
    for index, count in enumerate(counts.tolist()):
        if not count:
            continue
        left, right = x_of(edges[index]), x_of(edges[index + 1])
        bar_height = max(canvas.inner_height * count / top_count, 1)
        where = (f"{figure_number(edges[index])} {unit}" if one_per_value else
                 f"{figure_number(edges[index])} to {figure_number(edges[index + 1])} {unit}")
        canvas.add(f'<rect class="bar" x="{left:.2f}" y="{canvas.top + canvas.inner_height - bar_height:.2f}" '
                   f'width="{max(right - left - 0.5, 0.8):.2f}" height="{bar_height:.2f}" fill="{PALETTE[0]}">'
                   f'<title>{escape(where)}: {count:,} samples ({100 * count / total:.2f} %)</title></rect>')
    highest_value = high - 1 if one_per_value else high  # a value's bar spans [value, value + 1)
    for tick in fitted_ticks(low, highest_value, canvas.inner_width):
        x = x_of(tick + (0.5 if one_per_value else 0))
        canvas.add(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{canvas.top + canvas.inner_height}" '
                   f'y2="{canvas.top + canvas.inner_height + 4}" stroke="#444"/>')
        canvas.x_tick_label(x, figure_number(tick))
    # the key above the plot, right-aligned: a label beside the line would sit on the bars
    key_right = canvas.width - canvas.right
    for name, colour in (("p99", "#e67e22"), ("median", "#c0392b")):
        x = x_of(stats[name] + (0.5 if one_per_value else 0))
        said = f"{name} {figure_number(stats[name])}"
        canvas.add(f'<line class="marker" x1="{x:.1f}" x2="{x:.1f}" y1="{canvas.top}" '
                   f'y2="{canvas.top + canvas.inner_height}" stroke="{colour}" stroke-dasharray="4 3">'
                   f'<title>{said} {escape(unit)}</title></line>')
        key_left = key_right - text_width(said) - 22
        canvas.add(f'<line x1="{key_left:.1f}" x2="{key_left + 16:.1f}" y1="{LINE / 2 + 2}" y2="{LINE / 2 + 2}" '
                   f'stroke="{colour}" stroke-dasharray="4 3"/><text x="{key_left + 20:.1f}" y="{LINE / 2 + 7}" '
                   f'fill="{colour}">{said}</text>')
        key_right = key_left - 12
    canvas.x_label(f"{what} ({unit})")
    return canvas.svg(description, "plot histogram")


def by_phase(phases: list[int], values: list, period: int, unit: str, steps: str, description: str,
             width: int = WIDTH, height: int = 230) -> str:
    """A value against the step of a loop it was taken at (irq-latency: the latency at each step of the
    workload's loop): the most at each step as a line, the least as a lighter one. Steps outside the
    loop's period (a sample in an iteration a tick stretched) are left out."""
    most, least = {}, {}
    for phase, value in zip(phases, values):
        if 0 <= phase < period:
            most[phase] = max(value, most.get(phase, value))
            least[phase] = min(value, least.get(phase, value))
    top_value = (max(most.values()) if most else 1) * 1.1 or 1
    canvas = _Canvas(width, height)
    canvas.y_axis(top_value, unit)
    x_of = lambda phase: canvas.left + canvas.inner_width * phase / max(period, 1)
    lines = ((most, PALETTE[0], "the most at each step"), (least, "#9dc3e6", "the least at each step"))
    for values_at, colour, name in reversed(lines):  # the most drawn last, over the least where they meet
        points = " ".join(f"{x_of(p):.1f},{canvas.y_of(values_at[p], top_value):.1f} "
                          f"{x_of(p + 1):.1f},{canvas.y_of(values_at[p], top_value):.1f}" for p in sorted(values_at))
        canvas.add(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="1.5">'
                   f'<title>{name}</title></polyline>')
    for tick in fitted_ticks(0, period, canvas.inner_width):
        canvas.x_tick_label(x_of(tick), figure_number(tick))
    canvas.x_label(f"step of the loop at the assertion ({steps} from its top)")
    canvas.legend([name for _, _, name in lines], [colour for _, colour, _ in lines])
    return canvas.svg(description, "plot phases")


def lines(labels: list[str], series: list[tuple[str, list[dict | None]]], x_label: str, unit: str,
          description: str, width: int = WIDTH, height: int = 250) -> str:
    """Medians against a category (tasks, switches), a line per series with its min-max band, and a
    legend naming each series when there are several: `series` is [(name, points)], a point per label
    ({"median", "min", "max", "title"}, or None where that series was not measured). The axis starts
    at zero, so a spread of a few cycles does not look like a cliff."""
    names = [name for name, _ in series] if len(series) > 1 else []
    measured = [p for _, points in series for p in points if p]
    top_value = max(p["max"] for p in measured) * 1.15 or 1
    canvas = _Canvas(width, height)
    canvas.y_axis(top_value, unit)
    step = canvas.inner_width / len(labels)
    x_of = lambda index: canvas.left + step * (index + 0.5)
    for number, (name, points) in enumerate(series):
        colour = PALETTE[number % len(PALETTE)]
        shown = [(i, p) for i, p in enumerate(points) if p]
        upper = " ".join(f"{x_of(i):.1f},{canvas.y_of(p['max'], top_value):.1f}" for i, p in shown)
        lower = " ".join(f"{x_of(i):.1f},{canvas.y_of(p['min'], top_value):.1f}" for i, p in reversed(shown))
        canvas.add(f'<polygon points="{upper} {lower}" fill="{colour}" fill-opacity="0.15">'
                   f'<title>{escape(name)}: min to max</title></polygon>')
        line = " ".join(f"{x_of(i):.1f},{canvas.y_of(p['median'], top_value):.1f}" for i, p in shown)
        canvas.add(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for index, point in shown:
            x, y = x_of(index), canvas.y_of(point["median"], top_value)
            canvas.add(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}">'
                       f'<title>{escape(point["title"])}</title></circle>')
            if not names:  # one line: its figures beside its points (several would sit on each other)
                canvas.add(f'<text x="{x:.1f}" y="{y - 8:.1f}" text-anchor="middle">'
                           f'{figure_number(point["median"])}</text>')
    for index, label in enumerate(labels):
        canvas.x_tick_label(x_of(index), label, step - 2)
    canvas.x_label(x_label)
    canvas.legend(names)
    return canvas.svg(description, "plot series")


def grouped_bars(categories: list[str], series_names: list[str], values: dict, unit: str, description: str,
                 titles: dict | None = None, width: int = WIDTH, height: int = 260, worst: dict | None = None) -> str:
    """One group of bars per category, one bar per series: values[(category, series)]
    (a missing pair has no bar); titles[(category, series)] is what hovering says; worst[(category,
    series)], where given (an interrupt's latency), a whisker from the bar up to that worst case."""
    worst = worst or {}
    present = [v for v in [*values.values(), *worst.values()] if v is not None]
    top_value = (max(present) if present else 1) * 1.15 or 1
    canvas = _Canvas(width, height)
    canvas.fit_y_labels(top_value)
    groups = max(len(categories), 1)
    # category names slanted where they would collide; the left margin widened to hold the first ones' start
    widths = [text_width(category) for category in categories]
    slanted = max(widths, default=0) > canvas.inner_width / groups * 0.95
    for _ in range(3) if slanted else ():  # a wider margin narrows the groups: settled in a few rounds
        group_width = canvas.inner_width / groups
        canvas.left = max(canvas.left, math.ceil(max(
            w * math.cos(SLANT) + FONT_SIZE * math.sin(SLANT) + 4 - (c + 0.5) * group_width
            for c, w in enumerate(widths))))
    group_width = canvas.inner_width / groups
    bar_width = group_width * 0.8 / max(len(series_names), 1)
    # every bar says its figure: over it where it fits, else upright (read from below) where a line of type
    # is no wider than the bar (narrower ones have it in their title only: a smaller type is unreadable on
    # a phone); the plot's top then leaves room for the tallest bar's
    said = {key: figure_number(value) for key, value in values.items() if value is not None}
    upright = any(bar_width < text_width(text) + 2 for text in said.values())
    if upright and said:
        room = max(map(text_width, said.values())) + 6
        top_value = max(top_value, max(present) / max(1 - room / canvas.inner_height, 0.3))
    canvas.y_axis(top_value, unit)
    group_width = canvas.inner_width / groups
    bar_width = group_width * 0.8 / max(len(series_names), 1)
    for c, category in enumerate(categories):
        group_left = canvas.left + group_width * c + group_width * 0.1
        for s, name in enumerate(series_names):
            value = values.get((category, name))
            if value is None:
                continue
            x, y = group_left + bar_width * s, canvas.y_of(value, top_value)
            title = (titles or {}).get((category, name), f"{category}, {name}: {figure_number(value)} {unit}")
            canvas.add(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar_width * 0.92:.1f}" '
                       f'height="{canvas.top + canvas.inner_height - y:.1f}" fill="{PALETTE[s % len(PALETTE)]}">'
                       f'<title>{escape(title)}</title></rect>')
            top = y
            if worst.get((category, name)) is not None:
                top = canvas.y_of(worst[(category, name)], top_value)
                middle = x + bar_width * 0.46
                canvas.add(f'<path class="worst" d="M{middle:.1f} {y:.1f}V{top:.1f}M{x + bar_width * 0.16:.1f} '
                           f'{top:.1f}H{x + bar_width * 0.76:.1f}" stroke="#444" stroke-width="1.5" fill="none">'
                           f'<title>{escape(f"{category}, {name}: worst {figure_number(worst[(category, name)])} {unit}")}'
                           f'</title></path>')
            label = figure_number(value)
            if not upright:
                canvas.add(f'<text x="{x + bar_width * 0.46:.1f}" y="{top - 3:.1f}" text-anchor="middle" '
                           f'>{label}</text>')
            elif bar_width >= FONT_SIZE:
                middle = x + bar_width * 0.46 + FONT_SIZE * 0.35
                canvas.add(f'<text x="{middle:.1f}" y="{top - 3:.1f}" '
                           f'transform="rotate(-90 {middle:.1f} {top - 3:.1f})">{label}</text>')
        x, y = group_left + group_width * 0.4, canvas.bottom_of_plot + 4 + FONT_SIZE
        if slanted:
            canvas.add(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" '
                       f'transform="rotate({-math.degrees(SLANT):g} {x:.1f} {y - 4:.1f})">{escape(category)}</text>')
            canvas.reach = max(canvas.reach, y + widths[c] * math.sin(SLANT) + DESCENT)
        else:
            canvas.x_tick_label(x, category, group_width - 2)
    canvas.legend(series_names)
    return canvas.svg(description, "plot bars")


def timeline(lanes: list[str], runs: list[tuple[int, float, float]], switches: list[tuple[float, float, str]],
             unit: str, description: str, width: int = WIDTH) -> str:
    """Which task ran when: a lane per task with a bar for each stretch it ran ((lane, from, to) in `runs`),
    and below them a lane of the switches' windows ((from, to, what) in `switches`), on one time axis."""
    lane_height = LINE + 4
    names = [*lanes, "switch"]
    canvas = _Canvas(width, lane_height * len(names) + AXIS_ROOM + 8,
                     left=math.ceil(max(map(text_width, names)) + 10), top=4)
    low = min([start for _, start, _ in runs] + [start for start, _, _ in switches])
    high = max([end for _, _, end in runs] + [end for _, end, _ in switches])
    x_of = lambda value: canvas.left + canvas.inner_width * (value - low) / ((high - low) or 1)
    for index, name in enumerate(names):
        y = canvas.top + index * lane_height
        canvas.add(f'<text x="{canvas.left - 4}" y="{y + FONT_SIZE:.1f}" text-anchor="end">{escape(name)}</text>')
    for lane, start, end in runs:
        y = canvas.top + lane * lane_height + 2
        canvas.add(f'<rect x="{x_of(start):.2f}" y="{y:.1f}" width="{max(x_of(end) - x_of(start), 0.6):.2f}" '
                   f'height="{LINE - 4}" fill="{PALETTE[lane % len(PALETTE)]}"><title>{escape(lanes[lane])}: '
                   f'{figure_number(start)} to {figure_number(end)} {escape(unit)}</title></rect>')
    y = canvas.top + len(lanes) * lane_height + 2
    for start, end, what in switches:
        canvas.add(f'<rect x="{x_of(start):.2f}" y="{y:.1f}" width="{max(x_of(end) - x_of(start), 0.8):.2f}" '
                   f'height="{LINE - 4}" fill="#444"><title>{escape(what)}: {figure_number(end - start)} '
                   f'{escape(unit)}</title></rect>')
    for tick in fitted_ticks(low, high, canvas.inner_width):
        canvas.x_tick_label(x_of(tick), figure_number(tick))
    canvas.x_label(f"time ({unit} since the run began)")
    return canvas.svg(description, "plot timeline")
