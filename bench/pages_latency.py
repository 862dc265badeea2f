"""Interrupt latency (docs/irq-latency.md: every step of a busy kernel's loop) and
the example application's every switch, by task pair and cause (docs/switches.md)."""

from __future__ import annotations

import statistics

from pages_results import maybe, pick
from pages_text import counted, markdown_table, median

LATENCY_TARGETS = (("mps2-an385", "Cortex-M3"), ("mps2-an386", "Cortex-M4"), ("atmega328p", None))


def worst(result: dict) -> str:
    worst = result["stats"]["max"]
    bounds = result.get("bounds")
    if not bounds or bounds["min"]["max"] == bounds["max"]["max"]:
        return f"{worst}"
    return f"{worst} ({bounds['min']['max']}-{bounds['max']['max']})"


def worst_where(result: dict) -> str:
    """The function the worst case was asserted in; nowhere when no code held the interrupt (the worst is the
    chip's own latency)."""
    if result.get("worst", {}).get("held") is False:
        return "nowhere: the chip's own latency at every step"
    return result.get("worst", {}).get("function") or "-"


def tick_worst(result: dict) -> str:
    """The tick round's worst where the board aims at the tick, else the worst of the samples a tick fell into."""
    phases = result.get("phases", {})
    if phases.get("tick"):
        return f"{phases['tick']['worst']} (tick round)"
    return f"{phases['ticked']['worst']} (where a tick fell)" if phases.get("ticked") else "-"


def latency_rows(measured) -> list[tuple[str, str, str, dict]]:
    """(target, kernel, irq_priority, result) in the table's order: FreeRTOS's default priority from the default
    run, the rest from the irq-latency run."""
    results = measured["irq-latency"].results + [r for results in measured["default"].files.values()
                                                 for r in results if r["scenario"] == "irq-latency"]
    found = []
    for target, _ in LATENCY_TARGETS:
        for kernel in ("freertos", "floor"):
            mine = pick(results, target=target, kernel=kernel, scenario="irq-latency")
            if target == "atmega328p":  # no interrupt priorities
                found += [(target, kernel, "(none)", mine[0])] if mine else []
                continue
            for priority in ("high", "low"):
                found += [(target, kernel, priority, r) for r in mine if r["options"].get("irq_priority") == priority][:1]
    return found


def render_latency(measured) -> str:
    rows, seen = [], set()
    for target, kernel, priority, r in latency_rows(measured):
        core = dict(LATENCY_TARGETS)[target]
        s = r["stats"]
        rows.append([f"{target} ({core})" if core and target not in seen else target if target not in seen else "",
                     "FreeRTOS" if kernel == "freertos" else kernel, priority, s["min"], median(s["median"]),
                     worst(r), worst_where(r), tick_worst(r)])
        seen.add(target)
    steps = sorted({r["phases"]["period"] for *_, r in latency_rows(measured)})
    return (f"Cycles, `-O2`, one sample per instruction (QEMU) or cycle (simavr) of each kernel's loop "
            f"({steps[0]:,} to {steps[-1]:,} of them), the tick's own worst beside them:\n\n"
            + markdown_table(["target", "kernel", "irq_priority", "best", "median", "worst", "worst asserted in",
                              "the tick's worst"], "lllrrrlr", rows))


def render_latency_prose(measured) -> str:
    rows = {(t, k, p): r for t, k, p, r in latency_rows(measured)}
    chip = rows[("mps2-an385", "freertos", "high")]["stats"]["max"]
    below = max(rows[(t, "freertos", "low")]["stats"]["max"] for t in ("mps2-an385", "mps2-an386"))
    above = max(rows[(t, "freertos", "high")]["stats"]["max"] for t in ("mps2-an385", "mps2-an386"))
    held = "adds nothing at any step of its loop" if above == chip else f"adds up to {above - chip} cycles"
    return (f"(On the Cortex-M boards the worst case's range is what the TRM allows for the same instructions. "
            f"{rows[('mps2-an385', 'freertos', 'high')]['stats']['min']} cycles is the tail-chain: the interrupt "
            f"arrived as another handler returned.) Above its ceiling FreeRTOS {held}; below it, its critical "
            f"sections hold the interrupt up to {below / chip:.1f} times the chip's latency ({below} cycles against "
            f"{chip}).\n")


def _groups(result: dict) -> dict[tuple[str, str], list[int]]:
    facts = result["switches"]
    tasks, causes = facts["tasks"], facts["causes"]
    found: dict[tuple[str, str], list[int]] = {}
    for (source, destination, cause), value in zip(facts["samples"], result["samples"]):
        found.setdefault((f"{tasks[source]} -> {tasks[destination]}", causes[cause]), []).append(value)
    return found


def render_switches(measured) -> str:
    m3, avr = (maybe(measured["switches"].files[t], kind="switches") for t in ("mps2-an385", "atmega328p"))
    g3, gavr = _groups(m3), _groups(avr)
    keys = sorted(set(g3) | set(gavr), key=lambda k: -(len(g3.get(k, [])) + len(gavr.get(k, []))))
    rows = []
    for key in keys:
        cells = []
        for groups in (g3, gavr):
            values = groups.get(key)
            cells.append(f"{median(statistics.median(values))} ({counted(format(len(values), ','))})" if values else "")
        rows.append([f"{key[0]} ({key[1]})", *cells])
    rows.append([f"every switch, {counted(format(m3['count'], ','))} / {counted(format(avr['count'], ','))}",
                 *(f"median {median(r['stats']['median'])}, max {counted(r['stats']['max'])}" for r in (m3, avr))])
    return markdown_table(["from -> to (cause)", "mps2-an385 (Cortex-M3 model), median (switches)",
                           "atmega328p, median (switches)"], "lrr", rows)


def render_switches_prose(measured) -> str:
    m3, avr = (next(r for r in measured["switches"].files[t] if r.get("kind") == "switches")
               for t in ("mps2-an385", "atmega328p"))
    called = {statistics.median(v) for (_, cause), v in _groups(m3).items() if cause.startswith("call")}
    interrupted = {statistics.median(v) for (_, cause), v in _groups(m3).items() if not cause.startswith("call")}
    call = min(called)
    return (f"On the Cortex-M3 every switch a task asks for costs "
            + (f"the same {call:g} cycles" if len(called) == 1 else f"{min(called):g} to {max(called):g} cycles")
            + f": the PendSV entry (12), `PendSV_Handler` with `vTaskSwitchContext` ({call - 12 - 1 - 10:g}), its "
              f"`BX LR` (1) and the return (10); one an interrupt causes is tail-chained (6 instead of 12: "
              f"{', '.join(f'{v:g}' for v in sorted(interrupted))}), and the longest, "
              f"{counted(m3['stats']['max'])}, is one where the timer's interrupt preempts PendSV and pends it again. "
              f"On the ATmega `vPortYield` saves and restores all 32 registers, and `vTaskSwitchContext`'s own path "
              f"differs with the ready lists: {avr['stats']['min']} to {counted(avr['stats']['max'])} cycles.\n")
