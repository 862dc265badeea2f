"""Results as rows for other tools: CSV (a spreadsheet, pandas) and a
Markdown table (a pull request, a wiki), as hyperfine's --export-csv and
--export-markdown. One row per result: what was measured, how, in which unit,
and its statistics with the chosen percentiles and the TRM range."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from switchscope.common import outputs
from switchscope.figures.result import Result
from switchscope.present.board_facts import memory_lines, memory_of
from switchscope.present.report import PERCENTILES, percentile_label

IDENTITY = ("kernel", "kernel_version", "target", "scenario", "tasks", "method", "configuration", "unit")
PROVENANCE = ("memory", "compiler", "simulator", "measured_at", "commit")  # the Markdown table says them under it


def header(percentiles=PERCENTILES) -> list[str]:
    return [*IDENTITY, "count", "excluded", "min", "median", "mode", "mean", "max", "stddev",
            *map(percentile_label, percentiles), "trm_least_median", "trm_most_median", "ns_per_unit", *PROVENANCE]


def row(result: Result, percentiles=PERCENTILES) -> list:
    stats = result.stats
    least_most = result.bound_stats
    project = result.project or {}
    return [result.kernel or "", result.kernel_version or "", result.target or "", result.scenario,
            result.tasks or "", result.method, " ".join(f"{k}={v}" for k, v in sorted(result.options.items())),
            result.unit, result.count, result.excluded, stats.min, stats.median, stats.mode, round(stats.mean, 4),
            stats.max, round(stats.stddev, 4), *(result.percentile(p) for p in percentiles),
            least_most[0].median if least_most else "", least_most[1].median if least_most else "",
            result.ns_per_unit if result.ns_per_unit is not None else "", memory_of(result) or "",
            result.toolchain.get("compiler", ""), result.simulator.get("name", ""), result.measured_at or "",
            project.get("commit", "")]


def csv_text(results: list[Result], percentiles=PERCENTILES) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header(percentiles))
    writer.writerows(row(r, percentiles) for r in results)
    return buffer.getvalue()


def markdown_text(results: list[Result], percentiles=PERCENTILES) -> str:
    """A GitHub table; the provenance columns, long and the same for a run, are said once under it."""
    names = header(percentiles)[:-len(PROVENANCE)]
    escape = lambda value: str(value).replace("|", "\\|")
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join("---" for _ in names) + "|"]
    lines += ["| " + " | ".join(escape(v) for v in row(r, percentiles)[:len(names)]) + " |" for r in results]
    said = lambda r: [r.toolchain.get("compiler"), r.simulator.get("name"),
                      f"commit {(r.project or {}).get('commit', '')[:12]}" if (r.project or {}).get("commit") else None]
    provenance = dict.fromkeys(", ".join(part for part in said(r) if part) for r in results)  # in order, once each
    lines += ["", *(f"Measured with {line}." for line in provenance if line)]
    lines += [f"{line.strip()}." for line in memory_lines(results)]
    return "\n".join(lines) + "\n"


def write(csv_path: Path | None, markdown_path: Path | None, results: list[Result], percentiles=PERCENTILES) -> None:
    if csv_path:
        outputs.write_text(csv_path, csv_text(results, percentiles))
    if markdown_path:
        outputs.write_text(markdown_path, markdown_text(results, percentiles))
