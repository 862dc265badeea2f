"""docs/ci.md's comparison, docs/architecture.md's suite cost,
docs/reliability.md's stamp-timer wraps, the methods' costs and the Rust
kernels' three methods (docs/rust-kernels.md and docs/measurement.md), and the suite's
size and time (docs/throughput.md)."""

from __future__ import annotations

from pages_kernels import suite_result
from pages_results import med, one, pick
from pages_text import counted, markdown_table, timed
from pages_times import machine, seconds, timed_table

RUST = (("embassy", "mps2-an385"), ("lilos", "mps2-an385"), ("rtic", "lm3s6965evb"), ("embassy", "atmega328p"))


def render_compare(measured) -> str:
    printed = measured["optimisation"].outputs[2]
    samples = format(measured["optimisation"].samples, ",")
    return (f"For example, FreeRTOS at `-Os` against `-O2` on mps2-an385 (`switchscope run --samples {samples} --json "
            f"o2.json`, the same with `--config opt=-Os --json os.json`, then `switchscope compare o2.json os.json "
            f"--ignore-option opt`):\n\n```\n{printed.rstrip()}\n```\n")


def render_avr_os(measured) -> str:
    files = measured["optimisation"].files
    parts, same = [], []
    for o2 in files["avr-o2"]:
        if o2["method"] != "probe":
            continue
        scenario = o2["scenario"]
        os_ = one(files["avr-os"], scenario=scenario, method="probe")
        if o2["stats"]["median"] == os_["stats"]["median"]:
            same.append(scenario)
        else:
            parts.append(f"{scenario} {med(o2)} -> {med(os_)}")
    faster = all(int(p.split("-> ")[1]) < int(p.split()[-3]) for p in parts)
    return (f"(On the ATmega328P, `-Os` is {'the faster' if faster else 'faster for some and slower for others'}: "
            f"{', '.join(parts)} cycles" + (f", {' and '.join(same)} unchanged" if same else "") + ".)\n")


def render_suite_cost(measured) -> str:
    rows = [line for line in measured["suite-cost"].outputs[0].splitlines() if line.startswith("|")]
    cells = [c.strip() for c in rows[2].strip("|").split("|")]
    return (f"`python3 bench/suite_time.py --jobs 1,2` runs `switchscope suite --kernel freertos --target mps2-an385` "
            f"once built, with one worker and with two, and compares its wall time with the sum of its "
            f"measurements' own times (each result's `wall_seconds`), on {timed(machine())}:\n\n"
            + timed_table("\n".join(rows), (1, 5)) +
            f"\nThe suite writes {cells[1]} measurements ({cells[5]} files with summary.md, index.html and the SVG "
            f"figures). With one worker, what the suite adds to its measurements is the per-run JSON files, the "
            f"pages and the figures. Every figure, the suite's files as the HTML page's, is SVG drawn by "
            f"`present/svg.py`.\n")


def render_avr_wraps(measured) -> str:
    parts = []
    for r in measured["default"].files["atmega328p"]:
        if r["method"] != "probe":
            continue
        wrapped = sum(1 for s in r["excluded_samples"] if s["reason"] == "stamp_wrapped")
        parts.append((r["scenario"], wrapped, r["count"] + r["excluded"], r["stats"]["median"]))
    rates = [n / total for _, n, total, _ in parts if n]
    shown = ", ".join(f"{scenario} ({median_:g} cycles) {counted(n)}" for scenario, n, total, median_ in parts)
    total = parts[0][2]
    return (f"How many windows a stamp timer's wrap leaves out: on the ATmega328P, whose Timer1 is not the kernel's "
            f"tick, {counted(f'one window in {round(1 / max(rates))}')} to {counted(f'one in {round(1 / min(rates))}')} "
            f"(`switchscope run --target atmega328p`, of {counted(format(total, ','))} windows each, those left out "
            f"for a wrap: {shown}).\n")


def _signed(difference: float) -> str:
    return f"{difference:+g}" if difference else "0"


def render_rust_methods(measured) -> str:
    rows = []
    for kernel, target in RUST:
        results = pick(measured["methods"].results, kernel=kernel, target=target)
        for scenario in dict.fromkeys(r["scenario"] for r in results):
            by = {m: one(results, scenario=scenario, method=m) for m in ("probe", "scope", "marker")}
            marker = by["marker"]["stats"]["median"]
            rows.append([f"{kernel} ({target})", scenario, *(med(by[m]) for m in ("probe", "scope", "marker")),
                         *(_signed(by[m]["stats"]["median"] - marker) for m in ("probe", "scope"))])
    return ("The three methods on the Rust kernels, medians in cycles (`switchscope run --kernel K --target T "
            "--method all`):\n\n" + markdown_table(["kernel (target)", "scenario", "probe", "scope", "marker",
                                                    "probe - marker", "scope - marker"], "llrrrrr", rows))


def _configurations(results: list[dict]) -> int:
    """How many configurations a suite measures, whatever its --samples: a rotate point at the default count
    is a point of the switches curve too where the two counts meet, so the results' number moves with it."""
    return len({(r["kernel"], r["target"], r["scenario"], r["method"], r.get("tasks"),
                 tuple(sorted((r.get("options") or {}).items()))) for r in results})


def render_suite_size(measured) -> str:
    results = measured["suite"].results
    freertos = pick(results, kernel="freertos")
    targets = len({r["target"] for r in freertos})
    return (f"`switchscope suite --kernel freertos` measures {counted(_configurations(freertos))} configurations "
            f"on {targets} targets (both switch mechanisms included, each measured once however many of its tables "
            f"show it, at one or more sample counts), and the whole suite, every kernel, "
            f"{counted(_configurations(results))}; on {timed(machine())}, once built, the whole suite "
            f"took {timed(seconds(measured['suite'].seconds[-1]))}, its pages and SVG figures included.\n")


def render_methods_table(measured) -> str:
    def overhead(results, **where) -> int:
        return one(results, scenario="yield", method="probe", **where)["overhead"]
    default, instructions, suite = measured["default"].files, measured["instructions"].results, measured["suite"].results
    mps2 = (overhead(default["mps2-an385"]), overhead(instructions, kernel="freertos", target="mps2-an385"))
    kit = (suite_result(measured, "freertos", "stm32vldiscovery", "yield")["overhead"],
           overhead(instructions, kernel="freertos", target="stm32vldiscovery"))
    avr = overhead(default["atmega328p"])
    t_ab = {r["target"]: r["scope"]["t_ab"] for r in measured["intrusion"].results}
    rows = [["`probe`", "a timer read and a store at each end (SysTick / Timer1)",
             f"{mps2[0]} cycles ({mps2[1]} instructions) on the MPS2 boards, {kit[0]} ({kit[1]}) in the STM32 image, "
             f"which picks its timer at each stamp / {avr} cycles on the AVR, calibrated with back-to-back stamps at "
             f"start-up", "on a real board with a free-running timer"],
            ["`scope`", "a pin driven high before the switching call, low after the resume (embOS)",
             f"tAB, the bare pulse measured before each window ({t_ab['mps2-an385']:g} cycles on the MPS2 boards / "
             f"{t_ab['atmega328p']:g} cycles on the AVR)", "on a real board with a logic analyzer (`switchscope analyze`)"],
            ["`marker`", "nothing: two addresses the simulator watches", "nothing to correct",
             "on a simulator, as the reference; `switchscope measure` for any ELF"]]
    return markdown_table(["method", "what it puts in the path", "its cost, corrected by", "use it"], "llll", rows)


def render_rust_methods_prose(measured) -> str:
    by_kernel = {}
    for kernel, target in RUST:
        results = pick(measured["methods"].results, kernel=kernel, target=target)
        for scenario in dict.fromkeys(r["scenario"] for r in results):
            marker = one(results, scenario=scenario, method="marker")["stats"]["median"]
            for method in ("probe", "scope"):
                difference = abs(one(results, scenario=scenario, method=method)["stats"]["median"] - marker)
                by_kernel.setdefault((kernel, target, method), []).append(difference)
    parts = []
    for method in ("scope", "probe"):
        exact = [f"{k} ({t})" for (k, t, m), d in by_kernel.items() if m == method and max(d) == 0]
        off = [(f"by {min(d):g} to {max(d):g}" if min(d) != max(d) else f"by {max(d):g}") + f" on {k} ({t})"
               for (k, t, m), d in by_kernel.items() if m == method and max(d) > 0]
        said = [f"agrees with the marker exactly on {', '.join(exact)}"] if exact else []
        said += [f"differs from it {', '.join(off)}"] if off else []
        parts.append(f"the {method} {' and '.join(said)}")
    return (f"In cycles (medians, `switchscope run --kernel K --target T --method all`; each scenario's difference "
            f"from the marker, least to most), {parts[0]}; {parts[1]}.\n")

