"""What `measure --switches` found, for the terminal and the HTML report:
every switch as one distribution, then the same by task pair and by cause,
each with its range where the timing model gave one; in the report also
histograms and a timeline of which task ran when."""

from __future__ import annotations

import dataclasses
from html import escape

import numpy as np

from switchscope.figures.result import Result, Stats
from switchscope.present import board_facts, report, svg
from switchscope.present.html_parts import html_table, number_text


def groups(result: Result) -> tuple[list[Result], list[Result]]:
    """The result's switches as one Result per task pair, and one per cause, named by it, most frequent first."""
    facts = result.details["switches"]
    samples = np.asarray(result.samples)
    least, most = facts.get("least"), facts.get("most")

    def part(label: str, keep: np.ndarray) -> Result:
        bounds = None
        if least is not None:
            bounds = {"min": Stats.of(np.asarray(least)[keep]).as_dict(),
                      "max": Stats.of(np.asarray(most)[keep]).as_dict()}
        kept = samples[keep].tolist()
        return dataclasses.replace(result, scenario=label, samples=kept, first=kept[0], bounds=bounds)

    def by(key, label) -> list[Result]:
        keys = np.array([key(entry) for entry in facts["samples"]])
        found = [(int(np.count_nonzero(keys == k)), k) for k in dict.fromkeys(keys.tolist())]
        return [part(label(k), keys == k) for _, k in sorted(found, key=lambda item: -item[0])]

    tasks, causes = facts["tasks"], facts["causes"]
    pairs = by(lambda e: e[0] * len(tasks) + e[1], lambda k: f"{tasks[k // len(tasks)]} -> {tasks[k % len(tasks)]}")
    return pairs, by(lambda e: e[2], lambda k: causes[k])


def text(result: Result) -> str:
    facts = result.details["switches"]
    model = f" ({result.timing_model} timing model)" if result.timing_model else ""
    pairs, causes = groups(result)
    whole = dataclasses.replace(result, scenario="every switch")
    lines = [f"{result.source} on {result.target} ({result.cpu}), {result.kernel} task switches, marker method "
             f"(nothing added to the firmware), unit: {result.unit}{model}",
             f"  a switch: {facts['current']} changed in {' / '.join(facts['switch_path'])}; its window from the "
             f"entry of that switching code to the first instruction of the task switched to; on "
             f"{result.simulator['name']}",
             *report.statistics_lines("", [whole]), "", "  by task pair:",
             *report.statistics_lines("from -> to", pairs), "", "  by cause:",
             *report.statistics_lines("cause", causes)]
    if facts.get("unswitched"):
        lines.append(f"  {facts['unswitched']} passes through the switching code returned to the task they left "
                     "(no switch, not counted)")
    if result.ns_per_unit is not None:
        lines += [board_facts.us_heading(result),
                  *report.aligned([report.us_header(""), report.row_us(whole)]), *board_facts.memory_lines([whole])]
    return "\n".join(lines)


def html(result: Result, anchor: str) -> str:
    """The HTML report's part for one measured application: the whole, the tables by pair and by cause with
    a histogram of each of the most frequent, and a timeline of its first switches."""
    facts = result.details["switches"]
    pairs, causes = groups(result)

    def rows(parts: list[Result]) -> list[list[str]]:
        return [[escape(r.scenario), f"{r.count:,}", number_text(r.stats.min), number_text(r.stats.median),
                 report.trm_range(r, figure=number_text), number_text(r.stats.max), f"{r.stats.mean:,.2f}",
                 f"{r.stats_ns.median / 1000:.3f}" if r.ns_per_unit is not None else "-"] for r in parts]

    header = ["", "count", "min", "median", report.RANGE_COLUMN, "max", "mean", "median µs"]
    title = f"{result.source} on {result.target}: {result.kernel} task switches"
    parts = [f'<h3>{escape(title)}</h3><p class="note">A switch: {escape(facts["current"])} changed in '
             f'{escape(" / ".join(facts["switch_path"]))}, timed from the entry of that switching code to the first '
             'instruction '
             f'of the task switched to, in {escape(result.unit)} (<a href="#{anchor}">the whole distribution and '
             "its provenance</a>).</p>",
             html_table(["by task pair", *header[1:]], rows(pairs), text_columns=(0,)),
             html_table(["by cause", *header[1:]], rows(causes), text_columns=(0,))]
    parts += [svg.histogram(r.samples, r.unit, r.stats.as_dict(), f"{title}: {r.scenario}", what=r.scenario)
              for r in (pairs + causes)[:6] if len(set(r.samples)) > 1]
    starts, ends = facts.get("starts") or [], facts.get("ends") or []
    if len(starts) > 1:
        lanes = facts["tasks"]
        running = [(facts["samples"][i][1], ends[i], starts[i + 1]) for i in range(len(starts) - 1)]
        parts.append(svg.timeline(lanes, running, [(s, e, facts["causes"][facts["samples"][i][2]])
                                                   for i, (s, e) in enumerate(zip(starts, ends))],
                                  result.unit, f"{title}: which task ran when, the first {len(starts)} switches"))
    return "".join(parts)
