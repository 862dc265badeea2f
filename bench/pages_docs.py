"""docs/measurement.md's figures: the options, the TRM range, the tick, the
windows left out, and the intrusion report (docs/methods.md quotes its extremes)."""

from __future__ import annotations

from fractions import Fraction

from pages_results import compiler, med, one, pick, trm
from pages_text import counted, figure, markdown_table, median


def render_options(measured) -> str:
    rows = []
    for line in measured["options"].outputs[0].splitlines()[1:]:
        head, kernels = line.strip().rsplit(" (", 1)
        head, values = head.rsplit(" [", 1)
        name, summary = head.split(None, 1)
        choices, default = values.rstrip("]").rsplit(", default ", 1)
        rows.append([f"`{name}`", choices.replace("|", ", "), default, kernels.rstrip(")"), summary.strip()])
    return ("`--config NAME=VALUE` (repeatable) builds and runs a variant; `NAME=V1,V2` measures each value. Every "
            "result records its options (`options` in the JSON) and what the firmware reports of its own "
            "configuration (`config`). The options are the kernels' own, each declared in its `kernel.toml`; "
            "`switchscope list options` lists them:\n\n"
            + markdown_table(["option", "values", "default", "kernels", "what it sets"], "lllll", rows))


def _m3(measured) -> list[dict]:
    return measured["default"].files["mps2-an385"]


def render_trm_range(measured) -> str:
    switches = [r for r in _m3(measured) if r["method"] == "probe" and r.get("bounds")]
    above = [(r["stats"]["median"] / r["bounds"]["min"]["median"] - 1) * 100 for r in switches]
    below = [(1 - r["stats"]["median"] / r["bounds"]["max"]["median"]) * 100 for r in switches]
    yield_, resume = (one(switches, scenario=s) for s in ("yield", "resume"))
    return (f"FreeRTOS's switches on the Cortex-M3 ({compiler(yield_)}, `-O2`) lie {min(above):.0f} to "
            f"{max(above):.0f} % above the least and {min(below):.0f} to {max(below):.0f} % below the most (yield "
            f"{med(yield_)}, range {trm(yield_)}; resume {med(resume)}, {trm(resume)}); most of the width is the "
            f"branch refill P, which the TRM gives only as \"1 to 3\".\n")


def render_tick(measured) -> str:
    rate = int(one(_m3(measured), scenario="yield", method="probe")["config"]["configTICK_RATE_HZ"])
    counted_in = one(measured["instructions"].results, kernel="freertos", target="mps2-an385", scenario="yield",
                     method="probe")
    per_instruction, period = Fraction(counted_in["timer"]["counts_per_unit"]), counted_in["timer"]["modulus"]
    return (f"FreeRTOS ticks at {rate:,} Hz on the QEMU boards (`configTICK_RATE_HZ`): SysTick's period is "
            f"{period:,} counts = {int(period / per_instruction):,} instructions ({float(per_instruction):g} counts "
            f"an instruction); windows are far shorter.\n")


def render_rotate_excluded(measured) -> str:
    parts = []
    for target in ("mps2-an385", "atmega328p", "mps2-an386"):
        r = one(measured["default"].files[target], scenario="rotate", method="probe")
        reasons = {}
        for sample in r["excluded_samples"]:
            reasons[sample["reason"]] = reasons.get(sample["reason"], 0) + 1
        why = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in sorted(reasons.items())) or "none"
        parts.append(f"{target} {counted(r['excluded'])} of {counted(format(r['count'] + r['excluded'], ','))} "
                     f"({counted(why)})")
    return (f"Windows follow one another while they fit before the next tick, so a few of them catch the tick or "
            f"the stamp timer's wrap and are left out, counted in `excluded` with their reason (`switchscope run "
            f"--scenario rotate`, 2 tasks: {'; '.join(parts)}).\n")


def render_intrusion(measured) -> str:
    rows, printing = [], []
    for target in ("mps2-an385", "atmega328p"):
        group = pick(measured["intrusion"].results, target=target)
        for i, r in enumerate(group):
            printed = r["print"]
            if "adds" in printed:
                printing.append((r, printed))
                cells = [f"+{figure(printed['adds'])}" + (" *" if printed["ticks_in_window"] else ""),
                         f"{printed['factor']:.1f} x"]
            else:
                cells = ["n/a", ""]
            rows.append([f"{target} ({r['unit']})" if i == 0 else "", r["scenario"], median(r["marker"]),
                         f"+{median(r['probe']['adds'])}", median(r["probe"]["residual"]),
                         f"+{median(r['scope']['adds'])}", median(r["scope"]["residual"]), *cells])
    samples = measured["intrusion"].results[0]["samples"]
    table = markdown_table(["target", "scenario", "marker", "probe adds", "probe residual", "scope adds",
                            "scope residual", "printing adds", "printing / marker"], "llrrrrrrr", rows)
    text = (f"`switchscope intrusion --target mps2-an385` and `--target atmega328p`, {counted(format(samples, ','))} "
            f"samples, medians:\n\n{table}")
    notes = [f"{r['scenario']} on {r['target']}: {r['print']['error']}" for r in measured["intrusion"].results
             if "error" in r["print"]]
    ticked = [r for r, p in printing if p["ticks_in_window"]]
    if ticked:
        text += "\n\\* the tick interrupt fell inside the printing windows (kept, as part of the cost).\n"
    for target in ("mps2-an385", "atmega328p"):
        mine = [(r, p) for r, p in printing if r["target"] == target]
        if mine:
            worst = max(mine, key=lambda rp: rp[1]["adds"])
            least = min(p["adds"] for _, p in mine)
            adds = figure(least) if least == worst[1]["adds"] else f"{figure(least)} to {figure(worst[1]['adds'])}"
            text += (f"\nOn {target} printing one line adds {adds} {worst[0]['unit']} (up to "
                     f"{worst[1]['adds'] * worst[0]['ns_per_unit'] / 1000:,.0f} µs), "
                     f"{min(p['factor'] for _, p in mine):.0f} to {max(p['factor'] for _, p in mine):.0f} times the "
                     f"switch it claims to time.\n")
    for note in notes:
        text += f"\nn/a: {note}.\n"
    return text


def render_intrusion_summary(measured) -> str:
    parts, factors = [], []
    for target in ("mps2-an385", "atmega328p"):
        mine = [r for r in pick(measured["intrusion"].results, target=target) if "adds" in r["print"]]
        worst = max(mine, key=lambda r: r["print"]["adds"])
        parts.append(f"+{figure(worst['print']['adds'])} cycles "
                     f"({worst['print']['adds'] * worst['ns_per_unit'] / 1000:,.0f} µs) on {target}")
        factors += [r["print"]["factor"] for r in mine]
    return (f"On every FreeRTOS target of QEMU, simavr and the Ibex RTL, for every scenario, the three give the "
            f"same samples (on the RTL because every method's build is one layout, as [rtl.md](rtl.md) says). "
            f"`switchscope intrusion` "
            f"shows what each method adds before its correction, and what printing from inside the window does to "
            f"the figure: up to {' and '.join(parts)}, {min(factors):.0f} to {max(factors):.0f} times the switch "
            f"itself.\n")
