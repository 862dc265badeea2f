"""The kernels side by side (docs/rust-kernels.md, docs/rhealstone.md): the Rust kernels beside FreeRTOS,
Rhealstone's figures, the floor and each kernel's multiple of it, BeRTOS's
four columns and rotate's curve. All from one suite run (cycles) and the
instruction counts of `run --kernel all --unit instructions`."""

from __future__ import annotations

from pages_results import KERNEL_NAMES, default_options, kernel_label, maybe, med, one, pick, us
from pages_text import markdown_table

SWITCH_ROWS = ("resume", "signal", "yield", "isr", "rotate")
RHEALSTONE = ("sem-shuffle", "deadlock-raise", "deadlock-release", "msg")
CORTEX_M3 = (("freertos", "mps2-an385"), ("rtic", "lm3s6965evb"), ("embassy", "mps2-an385"),
             ("lilos", "mps2-an385"))
# what a kernel's scenario is made of, where it is not the kernel's plain counterpart of FreeRTOS's
MADE_OF = {("rtic", "resume"): "spawn", ("rtic", "signal"): "channel", ("rtic", "isr"): "bound task",
           ("rtic", "sem-shuffle"): "`Arbiter`", ("embassy", "sem-shuffle"): "`Mutex`",
           ("lilos", "sem-shuffle"): "`Mutex`"}
# the footnote that says why a kernel cannot run a scenario (the footnotes stand below the tables)
WHY_NOT = {"resume": "¹", "yield": "²", "rotate": "³", ("rtic", "deadlock"): "⁴", ("embassy", "deadlock"): "⁵",
           ("lilos", "deadlock"): "⁶"}


def _point(scenario: str) -> dict:
    return {"scenario": scenario, "method": "probe", **({"tasks": 2} if scenario == "rotate" else {})}


def suite_result(measured, kernel: str, target: str, scenario: str, **options) -> dict | None:
    """The suite's result of the kernel's default configuration (but for the options given) on the target."""
    point = _point(scenario)
    wanted = default_options(kernel, target, scenario, point.get("tasks"), **options)
    return maybe(measured["suite"].results, kernel=kernel, target=target, **point, options=wanted)


def _why_not(kernel: str, scenario: str) -> str:
    mark = WHY_NOT.get((kernel, "deadlock") if scenario.startswith("deadlock") else scenario, "")
    return f"n/a {mark}".strip()


def _first(result: dict, instructions: dict | None = None) -> str:
    """Embassy's first yield finds its run queue empty: the cheaper one, said beside the median."""
    if result["first"] == result["stats"]["median"]:
        return ""
    return f"first {result['first']}" + (f" / {instructions['first']}" if instructions else "")


def cycles_and_instructions(measured, kernel: str, target: str, scenario: str) -> str:
    cycles = suite_result(measured, kernel, target, scenario)
    if cycles is None:
        return _why_not(kernel, scenario)
    counted = maybe(measured["instructions"].results, kernel=kernel, target=target, unit="instructions",
                    **_point(scenario))
    text = f"{med(cycles)} / {med(counted)}" if counted else med(cycles)
    notes = [note for note in (MADE_OF.get((kernel, scenario)), _first(cycles, counted)) if note]
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _heading(measured, kernel: str, target: str) -> str:
    some = next(r for r in measured["suite"].results if r["kernel"] == kernel and r["target"] == target)
    return f"{kernel_label(some)} ({target})"


def render_kernels(measured) -> str:
    rows = [[s, *(cycles_and_instructions(measured, k, t, s) for k, t in CORTEX_M3)] for s in SWITCH_ROWS]
    return markdown_table(["scenario", *(_heading(measured, k, t) for k, t in CORTEX_M3)], "lrrrr", rows)


def _avr_cell(measured, kernel: str, scenario: str, **options) -> str:
    result = suite_result(measured, kernel, "atmega328p", scenario, **options)
    if result is None:
        return _why_not(kernel, scenario)
    notes = [note for note in ((f"{us(result)} µs" if kernel != "floor" else ""), _first(result)) if note]
    return f"{med(result)}" + (f" ({'; '.join(notes)})" if notes else "")


def render_kernels_avr(measured) -> str:
    rows = [[s, *(_avr_cell(measured, k, s) for k in ("freertos", "embassy"))] for s in ("signal", "yield", "isr")]
    embassy = suite_result(measured, "embassy", "atmega328p", "signal")
    freertos = suite_result(measured, "freertos", "atmega328p", "signal")
    return markdown_table(["scenario", kernel_label(freertos), f"{kernel_label(embassy)} (nightly, build-std)"],
                          "lrr", rows)


def _per_byte(measured, kernel: str, target: str) -> str:
    from switchscope.figures.message_cost import fit
    sizes = pick(measured["msg-size"].results, kernel=kernel, target=target, scenario="msg", method="probe")
    if len(sizes) < 2:
        return ""
    slope, _ = fit({int(r["options"]["msg_size"]): r["stats"]["median"] for r in sizes})
    return f"{slope:.2f}"


def _mutex(measured, kernel: str, target: str) -> str:
    result = maybe(measured["mutex"].results, kernel=kernel, target=target, scenario="sem-shuffle", method="probe",
                   options={"lock": "mutex"})
    return med(result) if result else ""


RHEALSTONE_M3 = (("floor", "mps2-an385"), *CORTEX_M3)


def render_rhealstone(measured) -> str:
    rows = []
    for scenario in RHEALSTONE:
        label = "msg (4 bytes)" if scenario == "msg" else scenario
        rows.append([label, *(cycles_and_instructions(measured, k, t, scenario) for k, t in RHEALSTONE_M3)])
        if scenario == "sem-shuffle":
            rows.append(["sem-shuffle, lock=mutex", *(_mutex(measured, k, t) for k, t in RHEALSTONE_M3)])
    rows.append(["msg, cycles per byte (1 to 64)", *(_per_byte(measured, k, t) for k, t in RHEALSTONE_M3)])
    headings = ["floor (mps2-an385)", *(_heading(measured, k, t) for k, t in CORTEX_M3)]
    return markdown_table(["scenario", *headings], "lrrrrr", rows)


def render_rhealstone_m4_avr(measured) -> str:
    m4 = [[("msg (4 bytes)" if s == "msg" else s),
           *(med(suite_result(measured, k, "mps2-an386", s)) for k in ("floor", "freertos"))] for s in RHEALSTONE]
    m4.insert(1, ["sem-shuffle, lock=mutex", *(_mutex(measured, k, "mps2-an386") for k in ("floor", "freertos"))])
    avr = []
    for scenario in RHEALSTONE:
        avr.append([("msg (4 bytes)" if scenario == "msg" else scenario),
                    *(_avr_cell(measured, k, scenario) for k in ("floor", "freertos", "embassy"))])
        if scenario == "sem-shuffle":
            avr.append(["sem-shuffle, lock=mutex", *(_mutex(measured, k, "atmega328p")
                                                     for k in ("floor", "freertos", "embassy"))])
    avr.append(["msg, cycles per byte (1 to 64)", *(_per_byte(measured, k, "atmega328p")
                                                    for k in ("floor", "freertos", "embassy"))])
    freertos = suite_result(measured, "freertos", "atmega328p", "signal")
    embassy = suite_result(measured, "embassy", "atmega328p", "signal")
    return ("The Cortex-M4 (mps2-an386), in its model's cycles:\n\n"
            + markdown_table(["scenario", "floor", kernel_label(freertos)], "lrr", m4)
            + "\nThe ATmega328P at 16 MHz, in cycles:\n\n"
            + markdown_table(["scenario", "floor", kernel_label(freertos), kernel_label(embassy)], "lrrr", avr))


def render_rhealstone_prose(measured) -> str:
    signal = suite_result(measured, "freertos", "mps2-an385", "signal")
    shuffle = suite_result(measured, "freertos", "mps2-an385", "sem-shuffle")
    release = suite_result(measured, "freertos", "mps2-an385", "deadlock-release")
    raise_ = suite_result(measured, "freertos", "mps2-an385", "deadlock-raise")
    mutex = one(measured["mutex"].results, kernel="freertos", target="mps2-an385", scenario="sem-shuffle")
    same = "is `signal` to the cycle" if shuffle["stats"]["median"] == signal["stats"]["median"] else \
        f"is {med(shuffle)} cycles against `signal`'s {med(signal)}"
    equal = ("it is exactly `deadlock-release`" if mutex["stats"]["median"] == release["stats"]["median"]
             else f"`deadlock-release` is {med(release)}")
    rust = {k: float(_per_byte(measured, k, t)) for k, t in CORTEX_M3 if _per_byte(measured, k, t)}
    dearest = max(rust, key=rust.get)
    return (f"What they show. On FreeRTOS `sem-shuffle` with a semaphore {same}: both are a give that unblocks a "
            f"more urgent waiter (`xQueueGenericSend`), and holding the semaphore first changes nothing in that path. "
            f"A mutex costs the hand-over {mutex['stats']['median'] - shuffle['stats']['median']:g} cycles more, its "
            f"priority inheritance given back, and {equal}: FreeRTOS indexes its ready lists by priority, so the "
            f"ready medium task is never looked at. The raise is FreeRTOS's dearest path here ({med(raise_)} cycles: "
            f"the take that finds the mutex held, `xTaskPriorityInherit` moving the holder between ready lists, and "
            f"the switch). Messages cost FreeRTOS {rust['freertos']:.2f} cycles a byte on the Cortex-M3, its "
            f"`memcpy` in and out; the Rust kernels copy the message by value through their futures, several times, "
            f"and {KERNEL_NAMES[dearest]}'s "
            f"{'channel' if dearest == 'rtic' else 'queue'} most ({rust[dearest]:.2f} cycles a byte).\n")
