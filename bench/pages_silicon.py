"""docs/silicon.md: published figures measured on chips, each beside
switchscope's figure for the same kind of window. The published figures are
quoted (constants here, each with its source on the page); switchscope's are
measured like every other figure of the pages."""

from __future__ import annotations

from pages_kernels import suite_result
from pages_results import compiler, kernel_label, med, mhz, one, pick, simulator, us
from pages_studies import breakdown_lines
from pages_text import markdown_table

ROWS = ("kernel", "core (board)", "clock", "memory", "compiler", "window", "figure")


def _side_by_side(published: dict[str, str], ours: list[tuple[str, dict[str, str]]]) -> str:
    header = ["", "published (silicon)", *(label for label, _ in ours)]
    rows = [[row, published.get(row, ""), *(column.get(row, "") for _, column in ours)] for row in ROWS]
    return markdown_table(header, "l" + "l" * (len(header) - 1), rows)


def _model(result: dict) -> dict[str, str]:
    """The rows every switchscope column states: what ran, on what, built by what."""
    model = result.get("timing_model")
    core = model.replace("cortex-m", "Cortex-M") if model else result["cpu"].upper().replace("ATMEGA", "ATmega")
    return {"kernel": kernel_label(result), "core (board)": f"{core} ({result['target']}, {simulator(result)})",
            "clock": mhz(result),
            "memory": "zero wait states (the timing model)" if model else "flash, no wait states (the AVR's)",
            "compiler": f"{compiler(result)}, `{result['config'].get('optimisation', '-O2')}`"}


def handler_cycles(printed: str) -> tuple[int, int, int]:
    """From a `switchscope breakdown` of yield: the exception entry's cycles, the handler's (its first
    instruction to its BX LR, what it calls included) and the exception return's."""
    _, lines = breakdown_lines(printed)
    names = [where for _, _, where in lines]
    entry = next(i for i, n in enumerate(names) if n.startswith("exception entry"))
    exit_ = next(i for i, n in enumerate(names) if n.startswith("exception return"))
    return (int(lines[entry][0]), sum(int(c) for c, _, _ in lines[entry + 1:exit_]), int(lines[exit_][0]))


def _yield(measured, target: str) -> dict:
    return suite_result(measured, "freertos", target, "yield")


def render_exception(measured) -> str:
    entry, _, exit_ = handler_cycles(measured["breakdown"].outputs[0])
    entry4, _, exit4 = handler_cycles(measured["breakdown"].outputs[2])
    latency = [r for r in pick(measured["irq-latency"].results, kernel="freertos", target="mps2-an385")
               if r["options"].get("irq_priority") == "high"][0]
    m3, m4 = _yield(measured, "mps2-an385"), _yield(measured, "mps2-an386")
    return _side_by_side(
        {"core (board)": "Cortex-M3, Cortex-M4", "memory": "zero wait states", "window": "exception entry; return",
         "figure": "12; 10 cycles"},
        [("switchscope, Cortex-M3", {**_model(m3), "kernel": "any (the core's own)",
                                     "window": "exception entry; return (`switchscope breakdown`)",
                                     "figure": f"{entry}; {exit_} cycles"}),
         ("switchscope, Cortex-M4", {**_model(m4), "kernel": "any (the core's own)",
                                     "window": "exception entry; return (`switchscope breakdown`)",
                                     "figure": f"{entry4}; {exit4} cycles"}),
         ("switchscope, interrupt latency", {**_model(latency), "kernel": "FreeRTOS, `irq_priority=high`",
                                             "window": "an interrupt's assertion to its handler, every step of "
                                                       "a loop (`irq-latency`)",
                                             "figure": f"{latency['stats']['max']} cycles at most; "
                                                       f"{latency['stats']['min']} tail-chained"})])


def render_freertos_faq(measured) -> str:
    _, handler, _ = handler_cycles(measured["breakdown"].outputs[0])
    _, handler4, _ = handler_cycles(measured["breakdown"].outputs[2])
    m3, m4 = _yield(measured, "mps2-an385"), _yield(measured, "mps2-an386")
    window = "PendSV_Handler from its first instruction to its `bx lr`, vTaskSwitchContext included, entry excluded"
    options = "optimised task selection on, stack check, trace and run-time stats off"
    return _side_by_side(
        {"kernel": "FreeRTOS (version not stated), optimised task selection on, stack check, trace and run-time "
                   "stats off", "core (board)": "Cortex-M3 (board not stated)", "clock": "not stated",
         "memory": "not stated", "compiler": "Keil, optimise for speed",
         "window": "the PendSV handler alone, entry excluded", "figure": "84 cycles"},
        [("switchscope, Cortex-M3", {**_model(m3), "kernel": f"{kernel_label(m3)}, {options}", "window": window,
                                     "figure": f"{handler} cycles"}),
         ("switchscope, Cortex-M4", {**_model(m4), "kernel": f"{kernel_label(m4)}, {options}", "window": window,
                                     "figure": f"{handler4} cycles"})])


def render_embos(measured) -> str:
    avr, m4, m3 = (one(measured["silicon"].files[t], scenario="resume", method="scope")
                   for t in ("atmega328p", "mps2-an386", "mps2-an385"))
    rows = [["ATmega128", "7.3728 MHz", "flash", "IAR", "364", f"atmega328p: {med(avr)} ({us(avr)} µs at "
                                                                  f"{mhz(avr)})"],
            ["TM4C129 (Cortex-M4F)", "120 MHz", "flash", "not stated", "492", f"mps2-an386 (Cortex-M4 model): "
                                                                             f"{med(m4)}"],
            ["STM32F769 (Cortex-M7)", "not stated", "not stated", "not stated", "230",
             f"no Cortex-M7 target; mps2-an385 (Cortex-M3 model): {med(m3)}"],
            ["STM32H743 (Cortex-M7)", "not stated", "not stated", "not stated", "252", "as above"],
            ["AT91SAM7S256 (ARM7TDMI), embOS 3.50b", "48 MHz", "RAM, ARM mode", "IAR EWARM 4.40A",
             "283 (5.896 µs)", "no ARM7 target"],
            ["Renesas RZ/A1 (Cortex-A9), embOS V5.14.0.0", "400 MHz", "RAM, Thumb-2", "SEGGER Embedded Studio 5.50d",
             "192 (480 ns)", "no Cortex-A target"]]
    return (f"switchscope: {kernel_label(avr)}, `resume` by the scope method (a pin set before the call, cleared "
            f"after the other task resumed, the bare pulse subtracted: embOS's own measurement), "
            f"{compiler(m4)} / {compiler(avr)}, `-O2`, cycles:\n\n"
            + markdown_table(["embOS on", "clock", "runs from", "compiler", "published, cycles", "switchscope, "
                              "FreeRTOS resume"], "lllllr", rows))


def render_zephyr(measured) -> str:
    m3, m4 = _yield(measured, "mps2-an385"), _yield(measured, "mps2-an386")
    return _side_by_side(
        {"kernel": "Zephyr v3.5 (latency_measure)", "core (board)": "a 120 MHz Cortex-M board; a MAX32 Cortex-M4",
         "clock": "120 MHz", "memory": "flash; on the MAX32, instruction cache off / on",
         "compiler": "Zephyr SDK gcc (not stated)", "window": "k_yield between two threads, averaged over many",
         "figure": "519 cycles; MAX32: 713-749 (cache off), 308 (cache on)"},
        [("switchscope, Cortex-M3", {**_model(m3), "window": "`yield` between two tasks of equal priority",
                                     "figure": f"{med(m3)} cycles"}),
         ("switchscope, Cortex-M4", {**_model(m4), "window": "`yield` between two tasks of equal priority",
                                     "figure": f"{med(m4)} cycles"})])


def render_bertos(measured) -> str:
    def cell(preemption: str, priorities: str) -> str:
        r = one(measured["suite"].results, kernel="freertos", target="atmega328p", scenario="signal",
                method="probe", options={"preemption": preemption, "priorities": priorities})
        return f"{med(r)} cycles ({us(r)} µs)"
    some = suite_result(measured, "freertos", "atmega328p", "signal")
    return _side_by_side(
        {"kernel": "BeRTOS 2.5.0", "core (board)": "ATmega328P", "clock": "16 MHz", "memory": "flash",
         "compiler": "avr-gcc (version not stated)", "window": "`signal`, oscilloscope on an LED, its cost not "
                                                             "subtracted",
         "figure": "14.60 µs (cooperative, no priorities) to 18.50 µs (preemptive, priorities)"},
        [("switchscope", {**_model(some), "window": "`signal`, the probe's cost subtracted",
                          "figure": f"{cell('off', 'off')} (cooperative, no priorities) to {cell('on', 'on')} "
                                    f"(preemptive, priorities)"})])
