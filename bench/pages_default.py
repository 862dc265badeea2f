"""docs/default-run.md: the default run on each simulated core, in cycles
and in instructions, the compilers' figures side by side, and (docs/boards.md)
the real boards' images on their simulated twins."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from pages_results import compiler, default_options, kernel_label, maybe, med, mhz, one, pick, simulator, trm, us
from pages_text import CHECKOUT, counted, markdown_table, median, timed
from pages_times import machine, seconds

SWITCH_SCENARIOS = ("resume", "signal", "yield", "isr", "rotate", "sem-shuffle", "deadlock-raise",
                    "deadlock-release", "msg")
FIVE = ("resume", "signal", "yield", "isr", "rotate")


def switch_rows(results: list[dict]) -> list[dict]:
    return [one(results, scenario=s, method="probe") for s in SWITCH_SCENARIOS
            if pick(results, scenario=s, method="probe")]


def _tick(result: dict) -> str:
    """"100 Hz tick"; on the AVR, whose tick is the watchdog's, its period."""
    rate = int(result["config"]["configTICK_RATE_HZ"])
    return f"the watchdog's {1000 / rate:.0f} ms tick" if result["cpu"] == "atmega328p" else f"{rate:,} Hz tick"


def default_table(results: list[dict]) -> str:
    rows = switch_rows(results)
    first = rows[0]
    ranged = bool(first.get("bounds"))
    header = ["scenario", "count", "excluded", "min", "median", *(["TRM range"] if ranged else []), "mode", "mean",
              "max", "stddev", "p99", "first", "median µs"]
    lines = []
    for r in rows:
        s = r["stats"]
        lines.append([r["scenario"], counted(r["count"]), counted(r["excluded"]), s["min"], median(s["median"]),
                      *([trm(r)] if ranged else []), s["mode"], f"{s['mean']:.2f}", s["max"], f"{s['stddev']:.2f}",
                      s["p99"], r["first"], us(r)])
    return markdown_table(header, "l" + "r" * (len(header) - 1), lines)


def _what(result: dict) -> str:
    target = result["target"]
    if result.get("timing_model"):
        core = result["timing_model"].replace("cortex-m", "Cortex-M")
        return (f"**{core} ({target}, {mhz(result)}) on QEMU, in cycles of the {core} timing model** "
                f"(probe overhead {result['overhead']} cycles subtracted; {_tick(result)}):")
    return (f"**{result['cpu'].replace('atmega', 'ATmega').upper().replace('ATMEGA', 'ATmega')} at {mhz(result)} on "
            f"simavr, in cycles** (probe overhead {result['overhead']} subtracted; {_tick(result)}):")


def render_provenance(measured) -> str:
    m3, avr = measured["default"].files["mps2-an385"], measured["default"].files["atmega328p"]
    r3, ravr = switch_rows(m3)[0], switch_rows(avr)[0]
    return (f"`switchscope run`, then `--target atmega328p` and `--target mps2-an386`, "
            f"{counted(format(measured['default'].samples, ','))} samples per scenario, on {timed(machine())} "
            f"(`python3 bench/pages.py` measures and writes every figure of these pages). "
            f"{kernel_label(r3)}, `{r3['config']['optimisation']}`, preemption on, built with "
            f"{compiler(r3)} and {compiler(ravr)}, on {simulator(r3)} and {simulator(ravr)}. Every table switchscope "
            f"prints names its unit, method, configuration, compiler and simulator; other compilers' figures are "
            f"below.\n")


def render_m3(measured) -> str:
    results = measured["default"].files["mps2-an385"]
    return f"{_what(switch_rows(results)[0])}\n\n{default_table(results)}"


def render_avr(measured) -> str:
    results = measured["default"].files["atmega328p"]
    return f"{_what(switch_rows(results)[0])}\n\n{default_table(results)}"


def render_m4_and_instructions(measured) -> str:
    m3, m4 = measured["default"].files["mps2-an385"], measured["default"].files["mps2-an386"]
    ins = measured["instructions"].results
    rows, ratios = [], []
    for scenario in SWITCH_SCENARIOS:
        c3, c4 = maybe(m3, scenario=scenario, method="probe"), maybe(m4, scenario=scenario, method="probe")
        i3 = maybe(ins, kernel="freertos", target="mps2-an385", scenario=scenario, method="probe")
        i4 = maybe(ins, kernel="freertos", target="mps2-an386", scenario=scenario, method="probe")
        if not (c3 and c4 and i3 and i4):
            continue
        ratios.append(c3["stats"]["median"] / i3["stats"]["median"])
        rows.append([scenario, med(c3), med(c4), trm(c4), us(c4), med(i3), med(i4)])
    overhead = one(ins, kernel="freertos", target="mps2-an385", scenario="yield", method="probe")["overhead"]
    table = markdown_table(["scenario", "mps2-an385 (M3) cycles", "mps2-an386 (M4) cycles", "M4 TRM range",
                            "M4 median µs", "mps2-an385 instructions", "mps2-an386 instructions"], "lrrrrrr", rows)
    return (f"**Cortex-M4 (mps2-an386, {mhz(one(m4, scenario='yield', method='probe'))})**, the same firmware built "
            f"for the M4 (FPU unused), in cycles of the Cortex-M4 model, and **in instructions** (`--unit "
            f"instructions`, what QEMU itself counts; probe overhead {overhead} instructions), medians:\n\n{table}\n"
            f"A switch costs {min(ratios):.1f} to {max(ratios):.1f} cycles per instruction on the M3 model.\n")


def render_run_time(measured) -> str:
    outcome = measured["default"]
    m3 = outcome.files["mps2-an385"]
    latency = one(m3, scenario="irq-latency")
    switches = sum(r["wall_seconds"] for r in switch_rows(m3))
    total = outcome.seconds[0]
    s = latency["stats"]
    return (f"The default run also measures `irq-latency` (by the simulator, `marker`: {latency['count']:,} "
            f"interrupts; on the Cortex-M3 best {s['min']}, median {median(s['median'])}, worst {s['max']} cycles, "
            f"see [Interrupt latency, exactly](irq-latency.md)). Once built, on {timed(machine())}, "
            f"`switchscope run` took {timed(f'{total:.1f} s')}: its nine switch scenarios' own runs "
            f"{timed(f'{switches:.1f} s')} in all, the irq-latency sweep {timed(seconds(latency['wall_seconds']))} "
            f"({timed(format(latency['wall_seconds'] / switches, '.1f'))} times the nine switch scenarios); "
            f"`--target atmega328p` took {timed(f'{outcome.seconds[1]:.1f} s')} and `--target mps2-an386` "
            f"{timed(f'{outcome.seconds[2]:.1f} s')}.\n")


def reference_figures() -> SimpleNamespace:
    """The pinned figures of tests/figures/test_reference_figures.py (REFERENCE and the compilers' names), read
    from its source: its assignments of plain constants only, so that nothing the test module imports is needed."""
    tree = ast.parse((CHECKOUT / "tests" / "figures" / "test_reference_figures.py").read_text())
    names: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple)) for t in node.targets):
            try:
                exec(compile(ast.Module([node], []), "test_reference_figures.py", "exec"), {}, names)
            except NameError:  # an assignment that needs what the module imports
                continue
    return SimpleNamespace(**names)


def render_compilers(measured) -> str:
    pinned = reference_figures()
    columns = [("mps2-an385", pinned.GCC_12_ARM, "instructions", "Debian 12"),
               ("mps2-an385", pinned.GCC_14_ARM, "instructions", "Debian 13"),
               ("atmega328p", pinned.GCC_5_AVR, "cycles", "Debian 12"),
               ("atmega328p", pinned.GCC_14_AVR, "cycles", "Debian 13")]
    figures = [pinned.REFERENCE[("freertos", target, gcc, unit)] for target, gcc, unit, _ in columns]
    rows = [[scenario, *(", ".join(map(str, sorted(f[scenario]))) for f in figures)] for scenario in FIVE]
    header = ["scenario", *(f"{target}, {gcc.split()[-1] if 'avr' not in gcc else 'avr-gcc ' + gcc.split()[-1]}"
                            f" ({system})" for target, gcc, _, system in columns)]
    header = [header[0], *(h.replace(", 1", ", gcc 1") for h in header[1:])]
    debian13 = pinned.REFERENCE[("freertos", "mps2-an385", pinned.GCC_14_ARM, "cycles")]
    return (markdown_table(header, "lrrrr", rows) + "\n"
            "(instructions on mps2-an385, cycles on the ATmega328P. In Cortex-M3 cycles, Debian 13's build gives "
            + ", ".join(f"{s} {', '.join(map(str, sorted(debian13[s])))}" for s in FIVE)
            + "; every FreeRTOS target's figures in each unit, for both compilers, are pinned there.)\n")


def render_kits(measured) -> str:
    ins, suite = measured["instructions"].results, measured["suite"].results
    rows = []
    for target in ("stm32vldiscovery", "netduinoplus2"):
        for unit, results in (("instructions", ins), ("cycles", suite)):
            found = [one(results, kernel="freertos", target=target, scenario=s, method="probe", unit=unit,
                         options=default_options("freertos", target, s, 2 if s == "rotate" else None),
                         **({"tasks": 2} if s == "rotate" else {}))
                     for s in FIVE]
            cells = [med(r) for r in found]
            model = found[0].get("timing_model")
            label = f"cycles ({model.replace('cortex-m', 'Cortex-M')} model)" if model else unit
            rows.append([target, label, *cells])
    some = one(ins, kernel="freertos", target="stm32vldiscovery", scenario="yield", method="probe")
    return (f"FreeRTOS on QEMU's models of the kits, probe, medians ({compiler(some)}):\n\n"
            + markdown_table(["target", "unit", *FIVE], "llrrrrr", rows))
