"""The cores beyond the Cortex-M3 and M4 (docs/armv6m.md, docs/fpu.md, docs/rtl.md): the Cortex-M0 and M0+
(ARMv6-M) with FreeRTOS beside the floor and their interrupt latency, the
Cortex-M4F, what a floating-point context costs a switch, with one yield
window's breakdown for each number of tasks that use the FPU, and Ibex's RTL
against its model behind a slow RAM."""

from __future__ import annotations

import re

from pages_default import SWITCH_SCENARIOS
from pages_latency import tick_worst, worst, worst_where
from pages_results import CORES, compiler, one
from pages_studies import breakdown_lines
from pages_text import counted, markdown_table, median

ARMV6M_TARGETS = ("microbit", "microbit-m0plus")
FPU_TARGET = "mps2-an386-fpu"
FP_TASKS = ("0", "1", "2")
KERNELS = (("freertos", "FreeRTOS"), ("floor", "floor"))
IN_PROSE = {"freertos": "FreeRTOS", "floor": "the floor"}


def _label(scenario: str) -> str:
    return "rotate (2 tasks)" if scenario == "rotate" else scenario


def _median(result: dict) -> str:
    """The median, marked as depending on the sample count where the samples are not all one figure (the
    median of two alternating figures is their mean only at an even count)."""
    text = median(result["stats"]["median"])
    return text if result["stats"]["min"] == result["stats"]["max"] else counted(text)


def _model(result: dict) -> str:
    """"Cortex-M0+" from the result's timing model."""
    return result["timing_model"].replace("cortex-m", "Cortex-M").replace("plus", "+").replace("4f", "4F")


# --- the Cortex-M0 and M0+ ---------------------------------------------------------------------------------------

def _switch(results: list[dict], kernel: str, target: str, scenario: str) -> dict:
    return one(results, kernel=kernel, target=target, scenario=scenario, method="probe")


def render_armv6m(measured) -> str:
    results = measured["armv6m"].results
    rows = []
    for scenario in SWITCH_SCENARIOS:
        cells = []
        for target in ARMV6M_TARGETS:
            floor, freertos = (_switch(results, k, target, scenario) for k in ("floor", "freertos"))
            cells += [_median(floor), f"{_median(freertos)} (x{freertos['x_floor']:.2f})"]
        rows.append([_label(scenario), *cells])
    header = ["scenario", *(f"{name} ({CORES[t]})" for t in ARMV6M_TARGETS for name in ("floor", "FreeRTOS"))]
    m0, m0plus = (_switch(results, "freertos", t, "yield") for t in ARMV6M_TARGETS)
    pairs = [[_switch(results, k, t, s)["stats"]["median"] for t in ARMV6M_TARGETS]
             for k, _ in KERNELS for s in SWITCH_SCENARIOS]
    less = [on_m0 - on_m0plus for on_m0, on_m0plus in pairs]
    share = [(on_m0 - on_m0plus) / on_m0 * 100 for on_m0, on_m0plus in pairs]
    overheads = {t: _switch(results, "freertos", t, "yield")["overhead"] for t in ARMV6M_TARGETS}
    return (f"Medians in cycles of each core's model (probe, `-O2`, {compiler(m0)}, "
            f"{counted(format(measured['armv6m'].samples, ','))} samples; `switchscope run --target "
            f"{','.join(ARMV6M_TARGETS)} --floor`), FreeRTOS as a multiple of the floor; the probe's own cost, "
            f"calibrated at start-up and subtracted, is {overheads[ARMV6M_TARGETS[0]]} cycles on the "
            f"{_model(m0)} and {overheads[ARMV6M_TARGETS[1]]} on the {_model(m0plus)}:\n\n"
            + markdown_table(header, "lrrrr", rows)
            + f"\nThe same code costs the {_model(m0plus)} {_range(less)} cycles less "
              f"than the {_model(m0)} ({min(share):.1f} to {max(share):.1f} %).\n\n"
            + _armv6m_latency(results))


def _armv6m_latency(results: list[dict]) -> str:
    rows, freertos = [], {}
    for target in ARMV6M_TARGETS:
        for i, (kernel, name) in enumerate(KERNELS):
            r = one(results, kernel=kernel, target=target, scenario="irq-latency")
            if kernel == "freertos":
                freertos[target] = r
            s, phases = r["stats"], r["phases"]
            steps = (f"{phases['period']:,}" if phases["covered"] == phases["period"]
                     else f"{phases['covered']:,} of {phases['period']:,}")
            rows.append([f"{target} ({CORES[target]})" if i == 0 else "", name, s["min"], median(s["median"]),
                         worst(r), worst_where(r), tick_worst(r), steps])
    dearest = max(freertos.values(), key=lambda r: r["stats"]["max"])
    return (f"`irq-latency` ({dearest['method']} method, one sample per instruction of each kernel's loop, the "
            f"tick round's worst beside them), cycles:\n\n"
            + markdown_table(["target", "kernel", "best", "median", "worst", "worst asserted in", "the tick's worst",
                              "steps of the loop"], "llrrrlrr", rows)
            + f"\nFreeRTOS's worst case is asserted in {worst_where(dearest)}: its ARM_CM0 port's critical sections "
              f"set PRIMASK, which holds every interrupt, so no `irq_priority` escapes them ("
            + ", ".join(f"{r['stats']['max']} cycles on the {_model(r)}" for r in freertos.values()) + ").\n")


# --- the Cortex-M4F -----------------------------------------------------------------------------------------------

def _fp(results: list[dict], kernel: str, scenario: str, fp_tasks: str) -> dict:
    return one(results, kernel=kernel, target=FPU_TARGET, scenario=scenario, method="probe",
               options={"fp_tasks": fp_tasks})


def _steps(results: list[dict], kernel: str, name: str) -> str:
    """What each task with an FP context adds: one figure where every step of every scenario is the same."""
    first = [_fp(results, kernel, s, "1")["stats"]["median"] - _fp(results, kernel, s, "0")["stats"]["median"]
             for s in SWITCH_SCENARIOS]
    second = [_fp(results, kernel, s, "2")["stats"]["median"] - _fp(results, kernel, s, "1")["stats"]["median"]
              for s in SWITCH_SCENARIOS]
    if len(set(first + second)) == 1:
        return f"On {name} each task with an FP context adds {median(first[0])} cycles to every switch."
    return (f"On {name} the first task with an FP context adds {_range(first)} cycles, and the second "
            f"{_range(second)}, with the scenario.")


def _range(values) -> str:
    """"16 to 33", or "16" where every value is the same."""
    low, high = min(values), max(values)
    return median(low) if low == high else f"{median(low)} to {median(high)}"


def render_fpu(measured) -> str:
    results = measured["fpu"].results
    rows = [[_label(s), *(_median(_fp(results, k, s, n)) for k, _ in KERNELS for n in FP_TASKS)]
            for s in SWITCH_SCENARIOS]
    some = _fp(results, "freertos", "yield", "0")
    header = ["scenario", *(f"{name} fp_tasks={n}" if n == "0" else n for _, name in KERNELS for n in FP_TASKS)]
    return (f"Medians in cycles of the {_model(some)} model, probe method, "
            f"{counted(format(measured['fpu'].samples, ','))} samples ({compiler(some)}, `-O2`; `switchscope run "
            f"--target {FPU_TARGET} --floor --config fp_tasks={','.join(FP_TASKS)}`):\n\n"
            + markdown_table(header, "lrrrrrr", rows)
            + "\n" + " ".join(_steps(results, k, IN_PROSE[k]) for k, _ in KERNELS) + "\n")


INSTRUCTION = re.compile(r"^\s*(\d+)\s+([\w.]+)\+\d+\s+(\S+)\s*(.*)$")
FP_MULTIPLE = re.compile(r"^(vstmdb|vstmia|vldmia|vldmdb|vpush|vpop)(eq|ne)?$")


class _Window:
    """One `switchscope breakdown --instructions` of a yield window, in the groups the table shows: the yield
    call around the exception, the entry, the handler's saving (up to the function it calls) and restoring, the
    function it calls, the deferred store of the caller-saved FP registers, and the return."""

    def __init__(self, printed: str):
        heading, lines = breakdown_lines(printed)
        self.cycles = int(re.search(r": (\d+) cycles", heading).group(1))
        entry = next(i for i, (_, _, where) in enumerate(lines) if where.startswith("exception entry"))
        exit_ = next(i for i, (_, _, where) in enumerate(lines) if where.startswith("exception return"))
        self.entry, self.exit = lines[entry], lines[exit_]
        self.handler = lines[entry + 1][2]
        inside = lines[entry + 1:exit_]
        called = next(i for i, (_, _, where) in enumerate(inside)
                      if where != self.handler and not where.startswith("the deferred store"))
        self.called = inside[called]
        self.saving = [int(c) for c, _, where in inside[:called] if where == self.handler]
        self.restoring = [int(c) for c, _, where in inside[called + 1:] if where == self.handler]
        self.deferred = next((int(c) for c, _, where in inside if where.startswith("the deferred store")), None)
        self.deferred_what = next((where for _, _, where in inside if where.startswith("the deferred store")), "")
        self.rest = [(int(c), where) for c, _, where in lines[:entry] + lines[exit_ + 1:]]
        listing = printed.split("every instruction:", 1)[1]
        # the FP registers' store and load multiples, in order: (cycles, mnemonic without its condition, operands)
        self.fp_multiples = []
        for line in listing.splitlines():
            found = INSTRUCTION.match(line)
            if found and found.group(2) == self.handler and FP_MULTIPLE.match(found.group(3)):
                registers = found.group(4).split(",", 1)[1].strip()
                self.fp_multiples.append((int(found.group(1)), FP_MULTIPLE.match(found.group(3)).group(1).upper(),
                                          registers))

    def reserved(self) -> str:
        """What the entry reserved space for without storing it (lazy stacking), "" where it stacked no more."""
        found = re.search(r"space reserved for ([^:)]+)", self.entry[2])
        return found.group(1) if found else ""

    def unstacked(self) -> str:
        """What the return unstacked beyond the basic frame, "" where it unstacked that frame only."""
        found = re.search(r"registers, ([^)]+)\)", self.exit[2])
        return found.group(1) if found else ""


def _multiple_note(window: _Window, bare: _Window, index: int) -> tuple[str, int]:
    """The FP store or load multiple that a window executes where the window without FP contexts skips it:
    the note, and the cycles it adds."""
    cycles, mnemonic, registers = window.fp_multiples[index]
    skipped = bare.fp_multiples[index][0]
    if cycles == skipped:
        return "", 0
    return f"{mnemonic} {registers} {cycles} in place of a skipped one ({skipped})", cycles - skipped


def render_fpu_breakdown(measured) -> str:
    windows = [_Window(printed) for printed in measured["fpu-breakdown"].outputs]
    bare = windows[0]
    rows: dict[str, list[str]] = {}
    said: dict[str, set[str]] = {}

    def cell(row: str, figure: str, note: str = "", short: str = "") -> str:
        """The figure and its note, the note in full the first time the row says it, then `short` (if any)."""
        if not note:
            return figure
        if note in said.setdefault(row, set()):
            return f"{figure}, {short}" if short else figure
        said[row].add(note)
        return f"{figure}, {note}" if note[0].islower() else f"{figure}: {note}"

    entry_row = f"exception entry ({bare.handler.removesuffix('_Handler')})"
    saving_row, restoring_row = f"{bare.handler}, saving", f"{bare.handler}, restoring"
    deferred_row = bare.deferred_what or next(w.deferred_what for w in windows if w.deferred_what)
    deferred_row = re.sub(r" \(.*\)$", "", deferred_row)
    rest_names = list(dict.fromkeys(where for _, where in bare.rest))
    rest_row = f"the rest: the yield call ({', '.join(rest_names)})"
    saved_extra, restored_extra = {}, {}
    for i, window in enumerate(windows):
        reserved = window.reserved()
        rows.setdefault(entry_row, []).append(cell(entry_row, window.entry[0], f"{reserved} reserved" if reserved
                                                   else "", "reserved"))
        note, saved_extra[i] = _multiple_note(window, bare, 0)
        rows.setdefault(saving_row, []).append(cell(saving_row, " + ".join(map(str, window.saving)), note))
        rows.setdefault(deferred_row, []).append(str(window.deferred) if window.deferred else "-")
        rows.setdefault(window.called[2], []).append(window.called[0])
        note, restored_extra[i] = _multiple_note(window, bare, 1)
        restoring = str(sum(window.restoring))
        rows.setdefault(restoring_row, []).append(cell(restoring_row, restoring, note))
        unstacked = window.unstacked()
        basic = "(the other task's basic frame)" if reserved and not unstacked else ""
        exit_cycles = window.exit[0]
        rows.setdefault("exception return", []).append(f"{exit_cycles}, unstacking {unstacked}" if unstacked else
                                                       f"{exit_cycles} {basic}".strip())
        rows.setdefault(rest_row, []).append(str(sum(c for c, _ in window.rest)))
        rows.setdefault("**window**", []).append(f"**{window.cycles}**")
    for window, fp_tasks in zip(windows, FP_TASKS):  # the groups must make up the whole window
        grouped = (sum(window.saving) + sum(window.restoring) + int(window.entry[0]) + int(window.exit[0])
                   + int(window.called[0]) + (window.deferred or 0) + sum(c for c, _ in window.rest))
        if grouped != window.cycles:
            raise ValueError(f"fp_tasks={fp_tasks}: the breakdown's lines grouped make {grouped} cycles, the window "
                             f"{window.cycles}: a line of a kind the table does not know")
    table = markdown_table(["cycles", *(f"fp_tasks={n}" for n in FP_TASKS)], "lrrr",
                           [[row, *cells] for row, cells in rows.items()])
    return (f"Where they go (`switchscope breakdown --target {FPU_TARGET} --config fp_tasks=N --scenario yield`, one "
            f"window):\n\n{table}\n" + _fpu_prose(measured, windows, saved_extra, restored_extra))


def _fpu_prose(measured, windows: list[_Window], saved_extra: dict, restored_extra: dict) -> str:
    one_fp, two_fp = windows[1], windows[2]
    deferred = one_fp.deferred
    unstacking = int(two_fp.exit[0]) - int(one_fp.exit[0])
    away = one_fp.cycles - windows[0].cycles - saved_extra[1] - deferred
    to = two_fp.cycles - one_fp.cycles - restored_extra[2] - unstacking
    results = measured["fpu"].results
    floor_yield = [median(_fp(results, "floor", "yield", n)["stats"]["median"]) for n in FP_TASKS]
    return (f"The task switched away from pays its s16-s31 ({saved_extra[1]} more cycles of the port's store) and "
            f"the core's deferred store of s0-s15 and FPSCR ({deferred}), which lazy stacking put off until "
            f"{one_fp.handler}'s first FPU instruction"
            + (f", and {away} cycles more elsewhere" if away else "")
            + f"; the task switched to pays its s16-s31 ({restored_extra[2]}) and the {unstacking} cycles of "
              f"unstacking its extended frame at the return"
            + (f", and {to} cycles more elsewhere" if to else "")
            + f". The floor keeps an FP context at a call, where the ABI makes only s16-s31 the callee's to keep: "
              f"VPUSH and VPOP of them, and no s0-s15 at all (yield {', '.join(floor_yield)}). "
            + _alternation(_fp(results, "floor", "rotate", "1")) + "\n")


def _alternation(result: dict) -> str:
    """The floor's rotate with one FP task: its samples, switch after switch (the excluded windows' sequence
    numbers put the kept ones back in their places)."""
    excluded = {e["seq"] for e in result.get("excluded_samples", [])}
    places = [seq for seq in range(result["count"] + result["excluded"]) if seq not in excluded]
    by_parity = [{v for seq, v in zip(places, result["samples"]) if seq % 2 == parity} for parity in (0, 1)]
    if all(len(values) == 1 for values in by_parity) and by_parity[0] != by_parity[1]:
        first, second = (next(iter(values)) for values in by_parity)
        middle = result["stats"]["median"]
        where = ("falls between them" if min(first, second) < middle < max(first, second)
                 else "is one of them, the windows kept being odd in number")
        return (f"With fp_tasks=1 the floor's rotate alternates between {first} and {second} cycles, one switch "
                f"saving the FP context and the next restoring it (its median, {counted(median(middle))}, {where}).")
    values = sorted(set(result["samples"]))
    return f"With fp_tasks=1 the floor's rotate takes {len(values)} figures, {values[0]} to {values[-1]} cycles."


def render_ibex_slow_memory(measured) -> str:
    """The Ibex RTL, its model and the documentation's reading behind a slow RAM: cycle counts of deterministic
    simulators, compared in full."""
    printed = measured["ibex-slow-memory"].outputs[0]
    table = "\n".join(line for line in printed.splitlines() if line.startswith("|"))
    return f"`python3 bench/ibex_model.py --slow-memory` (marker method, cycles, medians):\n\n{table}\n"


def render_vexriscv_caches(measured) -> str:
    """Every switch on VexRiscv's RTL, warm and cold, at 0 and 2 wait states: what the refills cost."""
    from pages_runs import SWITCH_SCENARIOS
    files = measured["vexriscv-caches"].files
    rows, some = [], None
    for kernel, name in KERNELS:
        for scenario in SWITCH_SCENARIOS:
            cells = []
            for memory in ("zero", "slow"):
                warm, cold = (one(files[memory], kernel=kernel, scenario=scenario, options={"cache": cache})
                              for cache in ("warm", "cold"))
                some = cold
                cells += [median(warm["stats"]["median"]), median(cold["stats"]["median"]),
                          f"{cold['stats']['median'] - warm['stats']['median']:+g}"]
            rows.append([name, f"`{scenario}`", *cells])
    return (f"{compiler(some)} `-O2`, marker, medians in cycles of {counted(format(measured['vexriscv-caches'].samples, ','))} "
            f"samples; cold: both caches emptied before each window (`--config cache=cold`); 2 wait states: "
            f"`--config fetch_wait_states=2,data_wait_states=2`, each beat to the RAM:\n\n"
            + markdown_table(["kernel", "scenario", "warm", "cold", "cold - warm", "warm, 2 WS", "cold, 2 WS",
                              "cold - warm, 2 WS"], "llrrrrrr", rows))
