"""The studies' figures (docs/floor.md, docs/studies.md) and the front page's table: the floor and each
kernel's multiple of it, what a switch costs on every core, BeRTOS's four columns, rotate against the number
of tasks, software against PendSV switching (with one window's breakdown) and under load."""

from __future__ import annotations

import statistics
from collections import Counter

from pages_kernels import suite_result
from pages_results import default_options, kernel_label, med, mhz, one, pick, us
from pages_text import counted, figure, markdown_table, median

FLOOR_ROWS = ("resume", "signal", "yield", "isr", "rotate", "sem-shuffle", "deadlock-raise", "deadlock-release",
              "msg")
FLOOR_CORES = (("Cortex-M3 (mps2-an385)", "mps2-an385"), ("Cortex-M4 (mps2-an386)", "mps2-an386"),
               ("Cortex-M4F, fp_tasks=0 (mps2-an386-fpu)", "mps2-an386-fpu"), ("Cortex-M0 (microbit)", "microbit"),
               ("Cortex-M0+ (microbit-m0plus)", "microbit-m0plus"), ("ATmega328P (simavr)", "atmega328p"),
               ("Ibex small (RTL)", "ibex"), ("Ibex maxperf (RTL)", "ibex-maxperf"),
               ("VexRiscv_Full, warm caches (RTL)", "vexriscv"))
COST_SCENARIOS = ("yield", "signal")
FLOOR_KERNELS = ("floor", "freertos", "embassy", "lilos")
BERTOS_COLUMNS = (("Cooperative NOPRI", {"preemption": "off", "priorities": "off"}),
                  ("Cooperative PRI", {"preemption": "off", "priorities": "on"}),
                  ("Preemptive NOPRI", {"preemption": "on", "priorities": "off"}),
                  ("Preemptive PRI", {"preemption": "on", "priorities": "on"}))


def span(values) -> str:
    """"287", or "285-290" where the values differ."""
    low, high = min(values), max(values)
    return median(low) if low == high else f"{median(low)}-{median(high)}"


def _kernels_on(measured, target: str) -> list[str]:
    return list(dict.fromkeys(r["kernel"] for r in measured["suite"].results if r["target"] == target))


def _floor_cell(measured, kernel: str, target: str, scenario: str) -> str:
    if kernel not in _kernels_on(measured, target):
        return ""
    result = suite_result(measured, kernel, target, scenario)
    if result is None:
        return "n/a"
    return med(result) + (f" (x{result['x_floor']:.2f})" if result.get("x_floor") else "")


def render_floor(measured) -> str:
    rows = []
    for core, target in FLOOR_CORES:
        for i, scenario in enumerate(FLOOR_ROWS):
            label = "rotate, 2 tasks" if scenario == "rotate" else scenario
            rows.append([core if i == 0 else "", label,
                         *(_floor_cell(measured, k, target, scenario) for k in FLOOR_KERNELS)])
    return (f"Medians in cycles (probe, `-O2`, {counted(format(measured['suite'].samples, ','))} samples, the suite's), "
            f"each kernel as a multiple of the floor (`x_floor` in the JSON):\n\n"
            + markdown_table(["core (board)", "scenario", "floor", "FreeRTOS", "Embassy", "lilos"], "llrrrr", rows))


def _cost_cell(measured, kernel: str, target: str) -> str:
    """"yield / signal" medians, "n/a" where the kernel cannot switch that way, "" where it does not run."""
    if kernel not in _kernels_on(measured, target):
        return ""
    results = [suite_result(measured, kernel, target, scenario) for scenario in COST_SCENARIOS]
    return "n/a" if None in results else " / ".join(med(result) for result in results)


def render_switch_cost(measured) -> str:
    """The front page's table: every core, every kernel that runs on it, two switches each."""
    rows = []
    for core, target in FLOOR_CORES:
        freertos = [suite_result(measured, "freertos", target, scenario) for scenario in COST_SCENARIOS]
        rows.append([core, mhz(freertos[0]), *(_cost_cell(measured, k, target) for k in FLOOR_KERNELS),
                     " / ".join(us(result) for result in freertos)])
    return (f"Medians in cycles of `yield` / `signal` (two tasks of equal priority handing over / a task waking a "
            f"more urgent one through a semaphore; probe, `-O2`, {counted(format(measured['suite'].samples, ','))} "
            f"samples, the suite's), and FreeRTOS's in µs at the board's clock:\n\n"
            + markdown_table(["core (board)", "clock", "floor", "FreeRTOS", "Embassy", "lilos", "FreeRTOS, µs"],
                             "llrrrrr", rows))


def render_floor_prose(measured) -> str:
    def multiples(scenarios):
        return [suite_result(measured, "freertos", t, s)["x_floor"] for _, t in FLOOR_CORES for s in scenarios]
    yields, lists = multiples(["yield"]), multiples(["resume", "signal"])
    return (f"FreeRTOS's yield is {min(yields):.2f} to {max(yields):.2f} times the floor on these cores; its resume "
            f"and signal, which go through its lists, its critical sections and its switch (PendSV on the Cortex-M, "
            f"a software switch on the AVR, the trap handler entered by ecall on Ibex and VexRiscv), are {min(lists):.2f} to "
            f"{max(lists):.2f} times it.\n")


def render_bertos(measured) -> str:
    some = suite_result(measured, "freertos", "mps2-an385", "yield")
    avr = suite_result(measured, "freertos", "atmega328p", "yield")
    tables = [f"BeRTOS's layout, for {kernel_label(some)} ({counted(format(measured['suite'].samples, ','))} samples each, medians; "
              f"`{some['config']['optimisation']}`):\n"]
    for target, what in (("mps2-an385", "Cortex-M3 cycles, µs at 25 MHz"), ("atmega328p", "cycles, µs at 16 MHz")):
        rows = []
        for scenario in ("resume", "signal", "yield", "isr"):
            cells = []
            for _, options in BERTOS_COLUMNS:
                result = suite_result(measured, "freertos", target, scenario, **options)
                cells.append(f"{med(result)} ({us(result)})")
            rows.append([scenario, *cells])
        tables.append(markdown_table([f"{target} ({what})", *(c for c, _ in BERTOS_COLUMNS)], "lrrrr", rows))
    tables.append(f"Cooperative: `configUSE_PREEMPTION=0`; NOPRI: every task at priority 1. In those modes the call "
                  f"does not switch by itself, so the window also holds the `taskYIELD` that completes the switch. "
                  f"Every other option is the default (tick {int(some['config']['configTICK_RATE_HZ']):,} Hz on the "
                  f"Cortex-M3 under QEMU, {_avr_tick(avr)} on the AVR, optimised task selection on the Cortex-M3 "
                  f"only); `summary.md` states it per cell.\n")
    return "\n".join(tables)


def _avr_tick(result: dict) -> str:
    return f"the {1000 / int(result['config']['configTICK_RATE_HZ']):.0f} ms watchdog tick"


def flat_text(curve: dict[int, float], unit: str) -> str:
    """"287 cycles from 3 to 8 tasks (296 with 2)": the value most tasks share, and the others."""
    common = statistics.mode(curve.values())
    same = sorted(t for t, v in curve.items() if v == common)
    others = [f"{median(v)} with {t}" for t, v in sorted(curve.items()) if v != common]
    return (f"{median(common)} {unit} from {same[0]} to {same[-1]} tasks" if len(same) > 1
            else f"{median(common)} {unit} with {same[0]} tasks") + (f" ({'; '.join(others)})" if others else "")


def suite_curve(measured, kernel: str, target: str, **options) -> dict[int, float]:
    """Median against tasks, from the suite's points of its page sample count (the curve against switches
    shares the four-task point at other counts)."""
    found = {}
    for r in pick(measured["suite"].results, kernel=kernel, target=target, scenario="rotate", method="probe",
                  options=default_options(kernel, target, "rotate", 2, **options)):
        if r["count"] + r["excluded"] == measured["suite"].samples:
            found[r["tasks"]] = r["stats"]["median"]
    return dict(sorted(found.items()))


def render_rotate_curve(measured) -> str:
    m3 = suite_curve(measured, "freertos", "mps2-an385")
    avr = suite_curve(measured, "freertos", "atmega328p")
    return (f"The Cortex-M3 study's other curve, time against the number of rotating tasks (`rotate`, tasks forced "
            f"round by priority changes), is flat for FreeRTOS: {flat_text(m3, 'Cortex-M3 cycles')}, "
            f"{flat_text(avr, 'cycles')} on the AVR.\n")


def _mechanism_row(label: str, software, pendsv) -> list[str]:
    low, high = min(software), max(pendsv)
    difference = [p - s for s, p in zip(software, pendsv)]
    relative = [(p - s) / s * 100 for s, p in zip(software, pendsv)]
    percent = (f"{relative[0]:+.1f}%" if len({round(r, 1) for r in relative}) == 1
               else f"{min(relative):+.1f}% to {max(relative):+.1f}%")
    return [label, span(software), span(pendsv), span(difference), percent]


def render_mechanism(measured) -> str:
    results = measured["mechanism"].files["scenarios"]
    rows = []
    for scenario in ("yield", "resume", "signal", "isr", "rotate"):
        pair = [one(results, scenario=scenario, method="probe", options={"switch": m}) for m in ("software", "pendsv")]
        label = {"isr": "isr (the interrupt's switch is PendSV in both)", "rotate": "rotate, 2 tasks"}.get(scenario,
                                                                                                           scenario)
        rows.append(_mechanism_row(label, [pair[0]["stats"]["median"]], [pair[1]["stats"]["median"]]))
    for name, curves in (("rotate, 3 to 8 tasks", [suite_curve(measured, "freertos", "mps2-an385", switch=m)
                                                   for m in ("software", "pendsv")]),
                         ("rotate, 2 to 8 tasks, rotation=priority",
                          [{r["tasks"]: r["stats"]["median"] for r in pick(measured["mechanism"].files["priority"],
                                                                           options={"switch": m})}
                           for m in ("software", "pendsv")])):
        tasks = sorted(t for t in curves[0] if t >= (3 if name.endswith("3 to 8 tasks") else 2))
        rows.append(_mechanism_row(name, [curves[0][t] for t in tasks], [curves[1][t] for t in tasks]))
    return (f"In Cortex-M3 cycles (mps2-an385, medians of {counted(format(measured['mechanism'].samples, ','))} switches, "
            f"probe method, `-O2`; \"relative\" is PendSV's time over software's, the study's +1.5%; rotate with 3 "
            f"to 8 tasks from the suite):\n\n"
            + markdown_table(["scenario", "software", "PendSV", "PendSV - software", "relative"], "lrrrr", rows))


def _totals(measured, target: str, mechanism: str) -> dict[int, float]:
    found = {}
    for r in pick(measured["suite"].results, kernel="freertos", target=target, scenario="rotate", method="probe",
                  tasks=4, options=default_options("freertos", target, "rotate", 4, switch=mechanism)):
        found[r["count"] + r["excluded"]] = r["stats"]["mean"] * (r["count"] + r["excluded"])
    return dict(sorted(found.items()))


def render_mechanism_prose(measured) -> str:
    software, pendsv = _totals(measured, "mps2-an385", "software"), _totals(measured, "mps2-an385", "pendsv")
    least, most = min(pendsv), max(pendsv)
    relative = {f"{(software[n] - pendsv[n]) / software[n] * 100:.1f}%" for n in pendsv}
    m4 = [suite_curve(measured, "freertos", "mps2-an386", switch=m) for m in ("software", "pendsv")]
    m4_tasks = [t for t in m4[0] if t >= 3]
    return (f"The gap does not grow with the number of tasks (the study's Figure 12): the FreeRTOS switch does not "
            f"depend on it. Against the number of switches (its Figure 11, 4 tasks, the total at the mean) the "
            f"totals grow in proportion: software's from {figure(software[least])} cycles in {least:,} switches to "
            f"{figure(software[most])} in {most:,}, PendSV's from {figure(pendsv[least])} to {figure(pendsv[most])}, "
            f"PendSV {' to '.join(sorted(relative))} shorter throughout. The Cortex-M4 (mps2-an386) gives the same "
            f"picture (rotate, 3 to 8 tasks: {span([m4[0][t] for t in m4_tasks])} against "
            f"{span([m4[1][t] for t in m4_tasks])} cycles).\n")


def breakdown_lines(printed: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The heading and the (cycles, instructions, where) lines `switchscope breakdown` printed."""
    lines = printed.splitlines()
    rows = []
    for line in lines[2:]:
        if not line.strip():
            break
        cycles, rest = line.split(None, 1)
        parts = rest.split(None, 1)
        rows.append((cycles, parts[0], parts[1]) if parts[0].isdigit() else (cycles, "", rest.strip()))
    return lines[0], rows


def render_breakdown(measured) -> str:
    outputs = measured["breakdown"].outputs
    (_, pendsv), (_, software) = breakdown_lines(outputs[0]), breakdown_lines(outputs[1])
    rows = []
    for i in range(max(len(pendsv), len(software))):
        left = pendsv[i] if i < len(pendsv) else ("", "", "")
        right = software[i] if i < len(software) else ("", "", "")
        rows.append([left[2], left[0], left[1], right[2], right[0], right[1]])
    rows.append(["**total**", f"**{sum(int(c) for c, _, _ in pendsv)}**", "", "**total**",
                 f"**{sum(int(c) for c, _, _ in software)}**", ""])
    return markdown_table(["PendSV: where", "cycles", "instructions", "software: where", "cycles", "instructions"],
                          "lrrlrr", rows)


def render_load(measured) -> str:
    results = measured["load"].results
    rows = []
    for period in ("125", "1000"):
        for mechanism in ("software", "pendsv"):
            r = one(results, options={"load_period_us": period, "switch": mechanism})
            samples, hit = r["samples"], set(r.get("interfered", []))
            inside = [v for i, v in enumerate(samples) if i in hit]
            outside = [v for i, v in enumerate(samples) if i not in hit]
            s = r["stats"]
            rows.append([f"{int(period):,} µs, {r['options']['load_tasks']} encoder",
                         "software" if mechanism == "software" else "PendSV",
                         counted(f"{len(hit):,} of {r['count']:,}"), median(s["median"]), counted(f"{s['mean']:.1f}"),
                         counted(s["p99"]), counted(f"{s['max']:,}"),
                         median(statistics.median(inside)) if inside else "-", median(statistics.median(outside))])
    return (f"`rotate`, 4 tasks, mps2-an385, {counted(format(measured['load'].samples, ','))} switches each, Cortex-M3 "
            f"cycles:\n\n"
            + markdown_table(["load", "switch", "interfered", "median", "mean", "p99", "max",
                              "interfered windows' median", "the others' median"], "llrrrrrrr", rows))


def render_load_prose(measured) -> str:
    results = measured["load"].results
    added, means, left_alone = {}, {}, {}
    for mechanism in ("software", "pendsv"):
        r = one(results, options={"load_period_us": "125", "switch": mechanism})
        hit = set(r.get("interfered", []))
        inside = [v for i, v in enumerate(r["samples"]) if i in hit]
        outside = [v for i, v in enumerate(r["samples"]) if i not in hit]
        added[mechanism] = statistics.median(inside) - statistics.median(outside)
        means[mechanism] = r["stats"]["mean"]
        left_alone[mechanism] = Counter(outside).most_common(2)
    shorter = (1 - means["pendsv"] / means["software"]) * 100
    longest = max(r["stats"]["max"] for r in results)
    (usual, _), (after, times) = left_alone["software"]
    return (f"An interrupt in a window adds {median(added['software'])} cycles to the software switch and "
            f"{median(added['pendsv'])} to PendSV's (the medians of the windows it fell into against the others'); "
            f"the rare window that also holds a frame's encoding (the encoder preempts the rotation) takes up to "
            f"{counted(figure(longest))} cycles. Under load as without it, PendSV stays the shorter, by "
            f"{counted(format(shorter, '.1f'))}% in the mean at 125 µs. A window the load left alone measures what "
            f"an unloaded one does, but for one after-effect under the software switch: a task the interrupt stopped "
            f"off the stack's 8-byte alignment is resumed by exception return the next time ({after} cycles instead "
            f"of {usual}, in {counted(times)} windows at 125 µs).\n")
