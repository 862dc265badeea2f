"""docs/flash.md and the memory rows of docs/silicon.md: the STM32 chips as
shipped (their flash's wait states and the accelerator in front of it), each
switch scenario at zero wait states, at the chip's wait states with the
accelerator off, and with it on, warm and cold."""

from __future__ import annotations

import re

from pages_results import KERNEL_NAMES, compiler, kernel_label, maybe, med, mhz, us
from pages_text import markdown_table

CHIPS = {"netduinoplus2": "STM32F405 at 168 MHz", "nucleo-l432kc": "STM32L432 at 80 MHz",
         "bluepill": "STM32F103 at 72 MHz"}
SWITCHES = ("resume", "signal", "yield", "isr", "rotate", "sem-shuffle", "deadlock-break", "msg")
# a column: its heading, the run's JSON it reads, and the options that pick its results there
COLUMNS = (("0 WS", "zero", {"wait_states": "0"}),
           ("WS, accelerator off", "off", {"accelerator": "off"}),
           ("WS, as programmed, warm", "on", {"cache": "warm"}),
           ("WS, as programmed, cold", "on", {"cache": "cold"}))


def _result(measured, target: str, part: str, kernel: str, scenario: str, options: dict) -> dict | None:
    return maybe(measured["flash"].files.get(f"{target}-{part}", []), kernel=kernel, scenario=scenario,
                 options=options)


def _cell(result: dict | None) -> str:
    """The median, and the range the rules allow (the core's TRM and the flash's manual) where it is not one point."""
    if result is None:
        return "-"
    bounds = result.get("bounds") or {}
    least, most = (bounds.get(side, {}).get("median") for side in ("min", "max"))
    spread = "" if least is None or least == most else f" ({least:g}-{most:g})"
    return f"{med(result)}{spread}"


def columns_of(measured, target: str) -> list[tuple[str, str, dict]]:
    """The columns a chip has: no cold one where its flash has no cache to empty."""
    return [(heading, part, options) for heading, part, options in COLUMNS
            if any(_result(measured, target, part, "freertos", s, options) for s in SWITCHES)]


def render_chip(measured, target: str) -> str:
    columns = columns_of(measured, target)
    rows = []
    for scenario in SWITCHES:
        for kernel in ("freertos", "floor"):
            cells = [_cell(_result(measured, target, part, kernel, scenario, options)) for _, part, options in columns]
            if any(cell != "-" for cell in cells):
                rows.append([f"`{scenario}`", KERNEL_NAMES[kernel], *cells])
    some = _result(measured, target, "on", "freertos", "yield", {"cache": "warm"})
    memory = (some or {}).get("memory", {})
    return (f"{target} ({CHIPS[target]}: {memory.get('description', '')}), {kernel_label(some)} and the floor, "
            f"{compiler(some)} `-O2`, by the marker (no instrumentation in the window, see below), medians in "
            f"cycles (the range the rules allow in brackets):\n\n"
            + markdown_table(["scenario", "kernel", *(heading for heading, _, _ in columns)],
                             "ll" + "r" * len(columns), rows))


def factor(measured, target: str, scenario: str, kernel: str = "freertos") -> tuple[dict, dict, float]:
    off = _result(measured, target, "off", kernel, scenario, {"accelerator": "off"})
    on = _result(measured, target, "on", kernel, scenario, {"cache": "warm"})
    return off, on, off["stats"]["median"] / on["stats"]["median"]


def render_art_factor(measured) -> str:
    """The accelerator's worth on the F4, beside Zephyr's published before/after on an STM32F429."""
    published = {"yield": ("average thread context switch using yield", 499, 263),
                 "isr": ("time from ISR to executing a different thread", 694, 518)}
    rows = []
    for scenario, (window, before, after) in published.items():
        off, on, ratio = factor(measured, "netduinoplus2", scenario)
        rows.append([f"`{scenario}`", f"Zephyr: {window}", f"{before} → {after}", f"{before / after:.2f}",
                     f"{med(off)} → {med(on)}", f"{ratio:.2f}", f"{(ratio / (before / after) - 1) * 100:+.0f} %"])
    some = on
    return (f"switchscope: {kernel_label(some)} on netduinoplus2 ({mhz(some)}, 5 wait states), the accelerator "
            f"off then on (warm), {compiler(some)} `-O2`, by the marker; Zephyr: nucleo_f429zi at 168 MHz, its latency "
            f"benchmark before and after the ART's caches were enabled (zephyr PR #36277):\n\n"
            + markdown_table(["window", "published window", "published, cycles off → on", "published factor",
                              "switchscope, cycles off → on", "switchscope factor", "difference"],
                             "lllrlrr", rows))


def render_f407(measured) -> str:
    """A switch on the F405/F407 as shipped, beside ChibiOS/RT's published figure."""
    rows = []
    for kernel in ("freertos", "floor"):
        for scenario in ("resume", "signal", "yield"):
            result = _result(measured, "netduinoplus2", "on", kernel, scenario, {"cache": "warm"})
            rows.append([KERNEL_NAMES[kernel], f"`{scenario}`", med(result), us(result),
                         f"{(result['stats']['median'] / 65 - 1) * 100:+.0f} %"])
    return ("ChibiOS/RT 3.1.0 on an STM32F407 at 168 MHz, GCC 4.9.3, its own test report: about 65 cycles a "
            "switch. switchscope on netduinoplus2 as shipped (5 wait states, the accelerator on, warm), by the marker:\n\n"
            + markdown_table(["kernel", "scenario", "cycles", "µs", "against 65"], "llrrr", rows))


STALL_LINE = re.compile(r"flash stall \(fetches and loads\): (\d+) of (\d+) cycles")


def stall_share(printed: str) -> tuple[int, int]:
    """From a `switchscope breakdown`: the window's flash stall and its whole, in cycles."""
    found = STALL_LINE.search(printed)
    if not found:
        raise LookupError("the breakdown printed no flash stall line")
    return int(found.group(1)), int(found.group(2))


def render_stall_share(measured) -> str:
    from pages_runs import FLASH_BREAKDOWN_SCENARIOS
    outputs = iter(measured["flash-breakdown"].outputs)
    rows = []
    for scenario in FLASH_BREAKDOWN_SCENARIOS:
        cells = []
        for _ in ("off", "on"):
            stall, whole = stall_share(next(outputs))
            cells += [f"{stall} of {whole}", f"{stall / whole * 100:.0f} %"]
        rows.append([f"`{scenario}`", *cells])
    return ("One window of FreeRTOS on netduinoplus2 (5 wait states), `switchscope breakdown`, cycles of flash stall "
            "(instruction fetches and loads) of the window's whole:\n\n"
            + markdown_table(["scenario", "accelerator off", "share", "accelerator on (warm)", "share"], "lrrrr",
                             rows))


def render_methods(measured) -> str:
    """The three methods side by side on each chip as shipped: where the flash model makes them part."""
    from pages_runs import CHIPS_WITH_CACHES, FLASH_METHOD_SCENARIOS
    off = ("off", "off", {"accelerator": "off"})
    with_caches = (off, ("as programmed, warm", "on", {"cache": "warm"}),
                   ("as programmed, cold", "on", {"cache": "cold"}))
    rows, some = [], None
    for target in CHIPS:
        for label, part, options in with_caches if target in CHIPS_WITH_CACHES else (off, ("as programmed", "on", {})):
            files = measured["flash-methods"].files.get(f"{target}-{part}", [])
            for scenario in FLASH_METHOD_SCENARIOS:
                found = {method: maybe(files, scenario=scenario, method=method, options=options)
                         for method in ("probe", "scope", "marker")}
                if None in found.values():
                    continue
                some = found["marker"]
                marker = found["marker"]["stats"]["median"]
                rows.append([target, label, f"`{scenario}`", *(med(found[m]) for m in ("probe", "scope", "marker")),
                             *(f"{found[m]['stats']['median'] - marker:+g}" for m in ("probe", "scope"))])
    return (f"{kernel_label(some)}, {compiler(some)} `-O2`, medians in cycles of each method's own build (one "
            f"layout for all three), every chip at its wait states:\n\n"
            + markdown_table(["chip", "accelerator", "scenario", "probe", "scope", "marker", "probe - marker",
                              "scope - marker"], "lllrrrrr", rows))


def render_latency(measured) -> str:
    """irq-latency on the STM32F405 as shipped, beside its core alone."""
    files = measured["flash-latency"].files
    settings = (("0 WS (the core alone)", "zero", {"wait_states": "0"}), ("5 WS, accelerator off", "off", {}),
                ("5 WS, as programmed, warm", "on", {"cache": "warm"}),
                ("5 WS, as programmed, cold", "on", {"cache": "cold"}))
    rows, some = [], None
    for label, part, options in settings:
        result = maybe(files.get(part, []), scenario="irq-latency", options=options)
        if result is None:
            continue
        some = result
        stats, worst = result["stats"], result["worst"]
        most = (result.get("bounds") or {}).get("max", {}).get("max")
        least = (result.get("bounds") or {}).get("min", {}).get("max")
        spread = f" ({least:g}-{most:g})" if least is not None and least != most else ""
        rows.append([label, f"{stats['min']:g}", med(result), f"{stats['max']:g}{spread}",
                     f"`{worst['function']}`"])
    return (f"{kernel_label(some)} on netduinoplus2 ({mhz(some)}), `irq-latency` (its timer at the software "
            f"interrupt's priority, below FreeRTOS's ceiling), {compiler(some)} `-O2`, timed by the simulator from "
            f"the assertion to the handler's first instruction, in cycles (the worst's range the rules allow in "
            f"brackets):\n\n"
            + markdown_table(["memory", "least", "median", "worst", "worst asserted in"], "lrrrl", rows))
