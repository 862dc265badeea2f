"""What the reports show of an irq-latency result beyond its statistics: the
worst case and the code it fell in, the latency at every step of the
workload's loop (a figure on the HTML page), and how far the probe and the
simulator agree."""

from __future__ import annotations

from html import escape

from switchscope import catalog
from switchscope.figures.result import Result
from switchscope.present import svg


NOTES = {"marker": "timed by the simulator from the interrupt's assertion to its handler's first instruction",
         "probe": "the handler's read of the timer less the counts it expired at, less the instructions before "
                  "that read"}


def note(result: Result) -> str:
    """How an irq-latency result was timed, naming the interrupt by what it is where its board is known."""
    target = catalog.TARGETS.get(result.target or "")
    timer = target.latency_timer if target else None
    if timer is None:
        return NOTES[result.method]
    if result.method == "marker":
        return f"timed by the simulator from the assertion of {timer.interrupt} to the handler's first instruction"
    return (f"{timer.interrupt}: its handler's read of the timer less the counts it expired at, less the "
            "instructions before that read")


def _figure(value) -> str:
    return f"{value:.2f}" if isinstance(value, float) and not value.is_integer() else f"{value:.0f}"


def text_lines(labelled: list[tuple[str, Result]]) -> list[str]:
    """Under a terminal table: each irq-latency result's worst case, the code it fell in, the loop's
    coverage, and the probe's agreement with the simulator. `labelled`: (row label, result) pairs."""
    lines = []
    for label, r in labelled:
        worst, phases = r.worst, r.phases
        if not worst:
            continue
        at = _worst_at(worst)
        where = ""
        if worst.get("held") is False:
            where = ": the core's own latency, no code held the interrupt"
        elif "address" in worst:
            where = f", asserted at {worst['address']} in {worst['function']}{_held_text(worst)}"
        lines.append(f"  {label}: worst {_figure(worst[r.unit])} {r.unit} ({at}){where}")
        if phases:
            lines.append(f"  {label}: {coverage_text(phases)}")
        if phases and phases.get("tick"):
            lines.append(f"  {label}: {tick_round_text(phases['tick'], r.unit)}")
        if phases and phases.get("ticked"):
            lines.append(f"  {label}: {ticked_text(phases['ticked'], r.unit)}")
        agreement = r.details.get("agreement")
        if agreement:
            lines.append(f"  {label}: the probe and the simulator's own view agree on {agreement['equal']} of "
                         f"{agreement['samples']} samples (differences {_figure(agreement['least_difference'])} "
                         f"to {_figure(agreement['largest_difference'])} {agreement['unit']})")
    return lines


def _worst_at(worst: dict) -> str:
    """Where the worst case came: its step of the loop where one sample was taken per step, else its sample."""
    if "step" in worst:
        alike = f"; {worst['samples']:,} steps read it" if worst.get("samples", 1) > 1 else ""
        return f"at step {worst['step']} of the loop{alike}"
    return (f"sample {worst['sample']}" if worst.get("samples", 1) == 1
            else f"{worst['samples']:,} samples, the first: {worst['sample']}")


def _held_text(worst: dict) -> str:
    """The code that held the interrupt: the run of steps around the worst that waited longer than usual."""
    if worst.get("held_steps"):
        steps = f"{worst['held_steps']:,} step{'s' if worst['held_steps'] != 1 else ''}"
        return (f"; held for {steps} of the loop, from {worst['held_from']} "
                f"({worst['held_from_function']}) to {worst['held_to']} ({worst['held_to_function']})")
    if worst["held_from"] != worst["held_to"]:
        return f", held from {worst['held_from']} to {worst['held_to']}"
    return ""


def partial(phases: dict | None) -> bool:
    """Whether the sweep met only part of the workload's loop: its figures are not a whole sweep's."""
    return bool(phases) and phases["covered"] < phases["period"]


def coverage_text(phases: dict) -> str:
    """How much of the loop the distribution covers, and how it was taken."""
    said = f"phases covered {phases['covered']} of the loop's {phases['period']} {phases['steps']}"
    if phases.get("one_per_phase"):
        said += (", one sample each: the distribution (irq-latency sweeps every step once, whatever --samples "
                 "says)")
    if partial(phases):
        said += ("; the sweep met only part of the loop: these figures are not a whole sweep's, and compare "
                 "refuses them against one")
    return said


def tick_round_text(tick: dict, unit: str) -> str:
    median = f", median {_figure(tick['median'])}" if "median" in tick else ""
    return (f"the tick round (beside the loop's figures): {tick['samples']:,} samples, a step apart, from "
            f"{_figure(tick['from'])} to {_figure(tick['to'])} {tick['unit']} after the tick's interrupt "
            f"({tick['handler']}): worst {_figure(tick['worst'])} {unit}, at {_figure(tick['worst_at'])}{median}")


def ticked_text(ticked: dict, unit: str) -> str:
    return (f"a tick fell into {ticked['samples']:,} of the sweep's samples (beside the loop's figures): worst "
            f"{_figure(ticked['worst'])} {unit}, median {_figure(ticked['median'])}")


def html(result: Result) -> str:
    """The section, or "" for a result that is no interrupt latency."""
    worst = result.worst
    if not worst:
        return ""
    said = f"Worst case: {worst[result.unit]} {result.unit} ({_worst_at(worst)})"
    if worst.get("held") is False:
        said += ": the core's own latency, no code held the interrupt"
    elif "address" in worst:
        said += f", asserted at {worst['address']} in {worst['function']}"
        if worst.get("held_steps"):
            said += (_held_text(worst) + ": the steps around it at which the interrupt waited longer than it "
                     "usually does, the region that held it (masked, or a longer instruction)")
        elif worst["held_from"] != worst["held_to"]:
            said += (f"; around it, from {worst['held_from']} to {worst['held_to']}, the interrupt waited longer "
                     "than its least: the region that held it (masked, or a longer instruction)")
    parts = [f'<p class="latency">{escape(said)}.</p>']
    phases = result.phases
    if phases and result.sample_phases:
        said = coverage_text(phases)
        parts.append(f'<p class="latency">{escape(said[0].upper() + said[1:])}.</p>')
        parts.append(svg.by_phase(result.sample_phases, result.samples, phases["period"], result.unit,
                                  phases["steps"], f"latency at each step of the loop, {result.unit}"))
        for said in ([tick_round_text(phases["tick"], result.unit)] if phases.get("tick") else []) + \
                ([ticked_text(phases["ticked"], result.unit)] if phases.get("ticked") else []):
            parts.append(f'<p class="latency">{escape(said[0].upper() + said[1:])}.</p>')
    agreement = result.details.get("agreement")
    if agreement:
        parts.append(f'<p class="latency">The probe and the simulator\'s own view agree on {agreement["equal"]:,} '
                     f'of {agreement["samples"]:,} samples (differences {agreement["least_difference"]} to '
                     f'{agreement["largest_difference"]} {escape(agreement["unit"])}).</p>')
    return "".join(parts)
