"""msg's cost per byte, for the terminal: a line per configuration swept over msg_size."""

from __future__ import annotations

from switchscope.figures.message_cost import MessageCost
from switchscope.present.report import aligned, cell


def terminal_table(costs: list[MessageCost]) -> str:
    """The slope and the zero-byte part of each sweep, with the medians they come from; "" without any."""
    if not costs:
        return ""
    rows = [["kernel", "target", "method", "unit", "per byte", "at 0 bytes", "medians by msg_size (bytes)"]]
    for cost in costs:
        medians = ", ".join(f"{size}: {cell(median)}" for size, median in cost.medians.items())
        rows.append([cost.kernel, cost.target, cost.method, cost.unit, f"{cost.per_byte:,.2f}",
                     f"{cost.fixed:,.1f}", medians])
    return "\n".join(["msg, the cost of a message per byte (least-squares line through the medians):", *aligned(rows)])
