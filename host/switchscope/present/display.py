"""What a person sees while switchscope works and when it is done: progress
on stderr (never with --quiet): on a terminal a live bar, elsewhere (a CI log)
one line per finished measurement; and aligned tables, drawn by rich."""

from __future__ import annotations

import io
import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table



def figure(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def measurement_name(job, samples: int | None = None) -> str:
    """A job as a progress line names it: "freertos rotate (4 tasks), probe on mps2-an385 [preemption=off]",
    with its sample count where a command measures several (a sweep's, a suite's points)."""
    name = f"{job.kernel.name} {job.scenario.name}" + (f" ({job.tasks} tasks)" if job.tasks else "")
    name += f", {job.method.name} on {job.target.name}"
    if job.unit and job.unit != job.target.resolve_unit(None):
        name += f" in {job.unit}"
    if job.changed_options():
        name += f" [{job.changed_options()}]"
    return name + (f", {samples:,} samples" if samples else "")


def outcome_text(outcome) -> str:
    """A measurement's outcome in a few words: its median, or that it failed and the first line of why
    (a sweep's and a suite's failures are outcomes given as their error's text)."""
    if isinstance(outcome, str):
        return f"failed: {outcome.splitlines()[0] if outcome else 'no reason given'}"
    return f"median {figure(outcome.stats.median)} {outcome.unit}"


def intrusion_text(row: dict) -> str:
    """An intrusion report's row (figures.intrusion.report) in a few words: the marker's median and what
    each other method adds to it."""
    printed = row["print"]
    said = (f"marker median {figure(row['marker'])} {row['unit']}; the probe adds {figure(row['probe']['adds'])}, "
            f"the scope {figure(row['scope']['adds'])}")
    return said + (f", a printed line {figure(printed['adds'])}" if "adds" in printed else ", printing n/a")


class Activity:
    """Progress of one or many measurements. On a terminal a bar with the count, the rate and the time
    left; elsewhere (a CI log, a file) one line per finished measurement, so that a long command is not
    silent; nothing when quiet."""

    def __init__(self, quiet: bool, unit: str):
        console = Console(stderr=True)
        self.enabled = not quiet and console.is_terminal
        self.lines = not quiet and not console.is_terminal
        self.unit = unit
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn(unit), TaskProgressColumn(), TextColumn("{task.fields[rate]}"),
                                 TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True,
                                 disable=not self.enabled)
        self.task = None
        self.label = ""
        self.drawn_at = 0.0

    def __enter__(self) -> "Activity":
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def say(self, text: str) -> None:
        """A line on stderr that does not disturb the progress display."""
        self.progress.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def begin(self, label: str, total: int) -> None:
        """A new measurement (or batch) of `total` units."""
        if self.task is not None:
            self.progress.remove_task(self.task)
        self.label = label
        self.task = self.progress.add_task(label, total=total, rate="")

    def on_stage(self, stage: str) -> None:
        self.progress.update(self.task, description=f"{self.label}: {stage}")

    def advance_to(self, done: int, every_time: bool = False) -> None:
        # called for every chunk of a stream: at most ten updates a second, none when nothing is drawn
        now = time.monotonic()
        if not self.enabled or (now - self.drawn_at < 0.1 and not every_time):
            return
        self.drawn_at = now
        speed = self.progress.tasks[-1].speed if self.progress.tasks else None
        self.progress.update(self.task, completed=done, rate=f"{speed:,.0f} {self.unit}/s" if speed else "")

    def batch(self, done: int, total: int, point=None, outcome=None) -> None:
        """For a sweep or suite: `done` of `total` measurements, the last of them `point` (a job at a
        sample count) with its `outcome` (a Result, or the error's text)."""
        if point is not None:
            self.finished(done, total, measurement_name(point.job, point.samples), outcome_text(outcome),
                          getattr(outcome, "wall_seconds", None))
        if self.task is None:
            self.begin(self.label or "measurements", total)
        self.advance_to(done, every_time=True)

    def finished(self, done: int, total: int, name: str, said: str, seconds: float | None = None) -> None:
        """Off a terminal, a line for a finished measurement: "[3/10] NAME: SAID (1.2 s)"."""
        if self.lines:
            took = f" ({seconds:.1f} s)" if seconds is not None else ""
            self.say(f"[{done}/{total}] {name}: {said}{took}")


def table(rows: list[list[str]], markup: bool = False) -> list[str]:
    """rows[0] is the header; the first column is left-aligned, the others
    right-aligned (they are numbers). As text lines indented by two, bold
    headers only when standard output is a terminal. Cells are plain text
    (a configuration's [brackets] included) unless `markup`: then rich markup,
    for colour on a terminal."""
    terminal = sys.stdout is not None and sys.stdout.isatty()  # None: closed before the command started
    grid = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold" if terminal else "")
    for index, name in enumerate(rows[0]):
        grid.add_column(name, justify="left" if index == 0 else "right", no_wrap=True)
    for row in rows[1:]:
        grid.add_row(*(cell if markup else escape(cell) for cell in row))
    buffer = io.StringIO()
    Console(file=buffer, width=10_000, force_terminal=terminal, color_system="standard" if terminal else None,
            highlight=False).print(grid)
    return ["  " + line.rstrip() for line in buffer.getvalue().splitlines()]
