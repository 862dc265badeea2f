"""The suite's figures, as PNG and SVG: a histogram per result, time against
the number of tasks, time against the number of switches, and the BeRTOS
configuration table."""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from switchscope import outputs  # noqa: E402
from switchscope.result import Result  # noqa: E402

FORMATS = ("png", "svg")


def _save(figure, path: Path) -> list[Path]:
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in FORMATS:
        out = path.with_suffix(f".{fmt}")
        with outputs.replacing(out, "wb") as file:
            figure.savefig(file, format=fmt, dpi=110, bbox_inches="tight")
        written.append(out)
    plt.close(figure)
    return written


def histogram(result: Result, title: str, path: Path) -> list[Path]:
    values = result.samples
    stats = result.stats.as_dict()
    figure, axes = plt.subplots(figsize=(6.4, 3.6))
    low, high = min(values), max(values)
    bins = range(low, high + 2) if high - low < 200 else 100
    axes.hist(values, bins=bins, color="#3b6ea5", edgecolor="#24476d", align="left")
    for name, colour in (("median", "#c0392b"), ("p99", "#e67e22")):
        axes.axvline(stats[name], color=colour, linestyle="--", linewidth=1.2, label=f"{name} {stats[name]:g}")
    axes.set_xlabel(f"switch time ({result.unit})")
    axes.set_ylabel("samples")
    note = (f"n = {result.count}, excluded {result.excluded}; min {stats['min']:g}, max {stats['max']:g}, "
            f"stddev {stats['stddev']:.2f}")
    axes.set_title(f"{title}\n{note}", fontsize=9)
    axes.legend(fontsize=8, loc="upper left")
    if high - low < 10:  # a narrow distribution: show whole units, with room around
        axes.set_xlim(low - 5, high + 5)
    return _save(figure, path)


def _series(axes, xs, results, label, colour):
    """Median with its min-max band, each median written on its point. The axis
    starts at zero: a spread of a few cycles must not look like a cliff."""
    medians = [r.stats.median for r in results]
    axes.plot(xs, medians, marker="o", color=colour, label=f"{label} median")
    axes.fill_between(xs, [r.stats.min for r in results], [r.stats.max for r in results],
                      color=colour, alpha=0.25, label=f"{label} min to max")
    for x, median in zip(xs, medians):
        axes.annotate(f"{median:g}", (x, median), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    axes.set_ylim(0, max(r.stats.max for r in results) * 1.2)


def versus_tasks(results: list[Result], title: str, path: Path) -> list[Path]:
    """Switch time against the number of rotating tasks."""
    results = sorted(results, key=lambda r: r.tasks)
    figure, axes = plt.subplots(figsize=(6.4, 3.8))
    _series(axes, [r.tasks for r in results], results, "rotate", "#3b6ea5")
    axes.set_xlabel("number of tasks")
    axes.set_ylabel(f"switch time ({results[0].unit})")
    axes.set_xticks([r.tasks for r in results])
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8)
    axes.grid(alpha=0.3)
    return _save(figure, path)


def versus_switches(results: list[Result], title: str, path: Path) -> list[Path]:
    """The Cortex-M3 study's curve: total time of n switches, and time per switch, against n."""
    results = sorted(results, key=lambda r: r.count + r.excluded)
    counts = [r.count + r.excluded for r in results]
    unit = results[0].unit
    figure, (total, each) = plt.subplots(1, 2, figsize=(10, 3.8))
    total.plot(counts, [sum(r.samples) for r in results], marker="o", color="#3b6ea5")
    total.set_xscale("log")
    total.set_yscale("log")
    total.set_xlabel("number of switches")
    total.set_ylabel(f"total switch time ({unit})")
    total.set_title("all switches together", fontsize=10)
    total.grid(alpha=0.3, which="both")
    _series(each, counts, results, "per switch", "#c0392b")
    each.set_xscale("log")
    each.set_xlabel("number of switches")
    each.set_ylabel(f"time per switch ({unit})")
    each.set_title("each switch", fontsize=10)
    each.legend(fontsize=8)
    each.grid(alpha=0.3, which="both")
    figure.suptitle(title, fontsize=11)
    return _save(figure, path)


def table(rows: list[list[str]], columns: list[str], title: str, notes: list[str], path: Path) -> list[Path]:
    """A table as a figure (the BeRTOS layout), its notes right below it."""
    wrapped = [line for note in notes for line in textwrap.wrap(note, 120)]
    table_height, notes_height = 0.32 * (len(rows) + 1), 0.17 * len(wrapped)
    figure = plt.figure(figsize=(9, table_height + notes_height + 0.6))
    top = figure.add_axes([0.1, (notes_height + 0.15) / (table_height + notes_height + 0.6), 0.88,
                           table_height / (table_height + notes_height + 0.6)])
    top.axis("off")
    shown = top.table(cellText=[row[1:] for row in rows], rowLabels=[row[0] for row in rows],
                      colLabels=columns, loc="center", cellLoc="center", bbox=[0, 0, 1, 1])
    shown.auto_set_font_size(False)
    shown.set_fontsize(9)
    figure.suptitle(title, fontsize=11)
    figure.text(0.01, 0.03, "\n".join(wrapped), fontsize=7.5, va="bottom")
    return _save(figure, path)
