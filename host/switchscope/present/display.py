"""What a person sees while switchscope works and when it is done: progress
on stderr (only on a terminal, never with --quiet) and aligned tables, both
drawn by rich."""

from __future__ import annotations

import io
import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table


class Activity:
    """Progress of one or many measurements: a bar with the count, the rate and
    the time left. Silent when stderr is not a terminal or when quiet."""

    def __init__(self, quiet: bool, unit: str):
        console = Console(stderr=True)
        self.enabled = not quiet and console.is_terminal
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

    def batch(self, done: int, total: int) -> None:
        """For a sweep or suite: `done` of `total` measurements."""
        if self.task is None:
            self.begin(self.label or "measurements", total)
        self.advance_to(done, every_time=True)


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
