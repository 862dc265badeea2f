"""The pieces every terminal table is made of: a number as a cell, a result's row label, the aligned lines."""

from __future__ import annotations

from switchscope.figures.result import Result
from switchscope.present import display


def cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() else f"{value:.2f}"
    return str(value)


def kernel_named(kernel: str | None, version: str | None) -> str:
    """A kernel with its version as a reader takes it: "freertos V11.2.0", "lilos 1.3.0" (a version that names
    its kernel already, not "lilos lilos 1.3.0"), "floor version 1" (a bare number is no count of floors)."""
    kernel, version = kernel or "?", str(version or "")
    if not version:
        return kernel
    if version.lower().startswith(kernel.lower()):
        return version
    return f"{kernel} version {version}" if version[0].isdigit() else f"{kernel} {version}"


def row_label(result: Result, with_method: bool = False) -> str:
    """The scenario as a table row names it, with its task count where it has one (rotate), and its
    method when the table holds several."""
    label = f"{result.scenario} ({result.tasks} tasks)" if result.tasks else result.scenario
    return f"{label}, {result.method}" if with_method else label


def aligned(rows: list[list[str]]) -> list[str]:
    """A table as text lines: rows[0] is the header."""
    return display.table(rows)
