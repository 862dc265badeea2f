"""Figures for the HTML report, written as inline SVG text: no plotting
library, no script, nothing to fetch. Every bar and point carries a <title>,
so a browser shows its exact value on hover; the figures also print their key
values, for screens that cannot hover."""

from __future__ import annotations

import math
from html import escape

import numpy as np

PALETTE = ("#3b6ea5", "#c0392b", "#27ae60", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d", "#d35400")
FONT = 'font-family="system-ui, sans-serif" font-size="11"'
MAX_BINS = 60
CHARACTER_WIDTH = 6.2  # pixels a character of the 11 px font takes, about: for fitting labels


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
    """A plot area inside margins, mapping data to pixels."""

    def __init__(self, width: int, height: int, left: int = 56, right: int = 12, top: int = 14, bottom: int = 40):
        self.width, self.height = width, height
        self.left, self.right, self.top, self.bottom = left, right, top, bottom
        self.parts: list[str] = []

    @property
    def inner_width(self) -> float:
        return self.width - self.left - self.right

    @property
    def inner_height(self) -> float:
        return self.height - self.top - self.bottom

    def y_of(self, value: float, top_value: float) -> float:
        return self.top + self.inner_height * (1 - value / top_value) if top_value else self.top + self.inner_height

    def add(self, text: str) -> None:
        self.parts.append(text)

    def y_axis(self, top_value: float, label: str) -> None:
        for tick in nice_ticks(0, top_value, 4):
            y = self.y_of(tick, top_value)
            self.add(f'<line x1="{self.left}" x2="{self.width - self.right}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="#ddd"/><text x="{self.left - 4}" y="{y + 4:.1f}" text-anchor="end">'
                     f'{figure_number(tick)}</text>')
        middle = self.top + self.inner_height / 2
        self.add(f'<text transform="translate(12 {middle:.1f}) rotate(-90)" text-anchor="middle">'
                 f'{escape(label)}</text>')

    def x_label(self, label: str) -> None:
        self.add(f'<text x="{self.left + self.inner_width / 2:.1f}" y="{self.height - 4}" text-anchor="middle">'
                 f'{escape(label)}</text>')

    def svg(self, description: str, css_class: str) -> str:
        return (f'<svg class="{css_class}" viewBox="0 0 {self.width} {self.height}" role="img" '
                f'xmlns="http://www.w3.org/2000/svg" {FONT}><title>{escape(description)}</title>'
                f'<line x1="{self.left}" x2="{self.left}" y1="{self.top}" y2="{self.top + self.inner_height}" '
                f'stroke="#444"/><line x1="{self.left}" x2="{self.width - self.right}" '
                f'y1="{self.top + self.inner_height}" y2="{self.top + self.inner_height}" stroke="#444"/>'
                + "".join(self.parts) + "</svg>")


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


def histogram(values, unit: str, stats: dict, description: str, width: int = 620, height: int = 220) -> str:
    """The whole distribution: one bar per value (or per bin), the median and p99 marked.
    A bar with any sample is at least one pixel high, so rare outliers stay visible."""
    edges, counts, one_per_value = histogram_bins(values)
    total = int(counts.sum())
    canvas = _Canvas(width, height, top=24)
    top_count = int(counts.max())
    low, high = float(edges[0]), float(edges[-1])
    pad = max((high - low) * 0.02, 2 if one_per_value else 0)
    span_low, span_high = low - pad, high + pad
    x_of = lambda value: canvas.left + canvas.inner_width * (value - span_low) / (span_high - span_low)
    canvas.y_axis(top_count, "samples")
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
    for tick in nice_ticks(low, highest_value, 6):
        x = x_of(tick + (0.5 if one_per_value else 0))
        canvas.add(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{canvas.top + canvas.inner_height}" '
                   f'y2="{canvas.top + canvas.inner_height + 4}" stroke="#444"/>'
                   f'<text x="{x:.1f}" y="{canvas.top + canvas.inner_height + 15}" text-anchor="middle">'
                   f'{figure_number(tick)}</text>')
    for index, (name, colour) in enumerate((("median", "#c0392b"), ("p99", "#e67e22"))):
        x = x_of(stats[name] + (0.5 if one_per_value else 0))
        said = f"{name} {figure_number(stats[name])}"
        canvas.add(f'<line class="marker" x1="{x:.1f}" x2="{x:.1f}" y1="{canvas.top}" '
                   f'y2="{canvas.top + canvas.inner_height}" stroke="{colour}" stroke-dasharray="4 3">'
                   f'<title>{said} {escape(unit)}</title></line>')
        # the key above the plot, right-aligned: a label beside the line would sit on the bars
        key_x = canvas.width - canvas.right - 110 * (1 - index)
        canvas.add(f'<line x1="{key_x - 104}" x2="{key_x - 88}" y1="10" y2="10" stroke="{colour}" '
                   f'stroke-dasharray="4 3"/><text x="{key_x - 84}" y="14" fill="{colour}">{said}</text>')
    canvas.x_label(f"switch time ({unit})")
    return canvas.svg(description, "plot histogram")


def series(labels: list[str], points: list[dict], x_label: str, unit: str, description: str,
           width: int = 620, height: int = 240) -> str:
    """Medians against a category (tasks, switches), with each point's min-max band:
    points are {"median", "min", "max", "title"}. The axis starts at zero, so a
    spread of a few cycles does not look like a cliff."""
    canvas = _Canvas(width, height)
    top_value = max(p["max"] for p in points) * 1.15 or 1
    step = canvas.inner_width / len(points)
    x_of = lambda index: canvas.left + step * (index + 0.5)
    canvas.y_axis(top_value, unit)
    upper = " ".join(f"{x_of(i):.1f},{canvas.y_of(p['max'], top_value):.1f}" for i, p in enumerate(points))
    lower = " ".join(f"{x_of(i):.1f},{canvas.y_of(p['min'], top_value):.1f}"
                     for i, p in reversed(list(enumerate(points))))
    canvas.add(f'<polygon points="{upper} {lower}" fill="{PALETTE[0]}" fill-opacity="0.2">'
               f'<title>min to max</title></polygon>')
    line = " ".join(f"{x_of(i):.1f},{canvas.y_of(p['median'], top_value):.1f}" for i, p in enumerate(points))
    canvas.add(f'<polyline points="{line}" fill="none" stroke="{PALETTE[0]}" stroke-width="2"/>')
    for index, (label, point) in enumerate(zip(labels, points)):
        x, y = x_of(index), canvas.y_of(point["median"], top_value)
        canvas.add(f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{PALETTE[0]}">'
                   f'<title>{escape(point["title"])}</title></circle>'
                   f'<text x="{x:.1f}" y="{y - 8:.1f}" text-anchor="middle">{figure_number(point["median"])}</text>'
                   f'<text x="{x:.1f}" y="{canvas.top + canvas.inner_height + 15}" text-anchor="middle">'
                   f'{escape(label)}</text>')
    canvas.x_label(x_label)
    return canvas.svg(description, "plot series")


def grouped_bars(categories: list[str], series_names: list[str], values: dict, unit: str, description: str,
                 titles: dict | None = None, width: int = 620, height: int = 260) -> str:
    """One group of bars per category, one bar per series: values[(category, series)]
    (a missing pair has no bar); titles[(category, series)] is what hovering says."""
    present = [v for v in values.values() if v is not None]
    inner_width = width - 56 - 12  # _Canvas's margins
    # as many legend entries to a row as fit their longest name; category names slanted where they would collide
    per_row = max(1, min(3, int(inner_width // (CHARACTER_WIDTH * max(map(len, series_names), default=1) + 24))))
    legend_rows = math.ceil(len(series_names) / per_row)
    group_width = inner_width / max(len(categories), 1)
    slanted = CHARACTER_WIDTH * max(map(len, categories), default=1) > group_width * 0.95
    label_room = int(CHARACTER_WIDTH * 0.6 * max(map(len, categories), default=1)) if slanted else 0
    canvas = _Canvas(width, height + 16 * legend_rows + label_room, bottom=40 + 16 * legend_rows + label_room)
    top_value = (max(present) if present else 1) * 1.15 or 1
    bar_width = group_width * 0.8 / max(len(series_names), 1)
    canvas.y_axis(top_value, unit)
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
            if bar_width >= 22:
                canvas.add(f'<text x="{x + bar_width * 0.46:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
                           f'font-size="9">{figure_number(value)}</text>')
        x, y = group_left + group_width * 0.4, canvas.top + canvas.inner_height + 15
        if slanted:
            canvas.add(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" transform="rotate(-35 {x:.1f} {y - 4:.1f})">'
                       f'{escape(category)}</text>')
        else:
            canvas.add(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle">{escape(category)}</text>')
    legend_top = canvas.top + canvas.inner_height + 30 + label_room
    for s, name in enumerate(series_names):
        x, y = canvas.left + (s % per_row) * canvas.inner_width / per_row, legend_top + 16 * (s // per_row)
        canvas.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="10" height="10" fill="{PALETTE[s % len(PALETTE)]}"/>'
                   f'<text x="{x + 14:.1f}" y="{y + 9:.1f}">{escape(name)}</text>')
    return canvas.svg(description, "plot bars")
