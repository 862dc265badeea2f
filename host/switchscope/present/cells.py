"""The pieces every terminal table is made of: a number as a cell, a result's row label, the aligned lines."""

from __future__ import annotations

from switchscope.figures.result import Result
from switchscope.present import display


def cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() else f"{value:.2f}"
    return str(value)


def row_label(result: Result, with_method: bool = False) -> str:
    """The scenario as a table row names it, with its task count where it has one (rotate), and its
    method when the table holds several."""
    label = f"{result.scenario} ({result.tasks} tasks)" if result.tasks else result.scenario
    return f"{label}, {result.method}" if with_method else label


def aligned(rows: list[list[str]]) -> list[str]:
    """A table as text lines: rows[0] is the header."""
    return display.table(rows)
