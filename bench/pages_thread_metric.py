"""docs/thread-metric.md and silicon.md's Thread-Metric comparison: the eight
tests as switchscope times them, per loop and per 30 seconds, computed by the
tool's own figures (switchscope.figures.thread_metric) from the run's results."""

from __future__ import annotations

from pages_results import CORES, KERNEL_NAMES, compiler, kernel_label, mhz, one
from pages_text import counted, markdown_table
from switchscope.catalog.scenarios import THREAD_METRIC
from switchscope.figures import thread_metric
from switchscope.figures.result import Result
from switchscope.present import thread_metric_view

TESTS = [scenario.name for scenario in THREAD_METRIC]
FREERTOS_TARGETS = ("mps2-an385", "mps2-an386-fpu", "microbit-m0plus", "ibex", "nucleo-l432kc", "atmega328p")
KERNELS_TARGET = "mps2-an385"  # every kernel on one Cortex-M target; RTIC on its own Cortex-M3 board
# Thread-Metric on FreeRTOS 10.3.1, STM32L432KB at 80 MHz from flash, arm-none-eabi-gcc 14.2.1, as the CMRX project
# publishes it (cmrxrtos.org): cycles per loop
PUBLISHED = {"tm-cooperative": 140.81, "tm-preemptive": 550.73, "tm-synchronization": 334.09,
             "tm-message": 511.73}


def _result(document: dict) -> Result:
    return Result.from_json(document)


def _cell(results: list[dict], not_applicable: list[dict], kernel: str, target: str, test: str,
          notes: dict[str, int]) -> str:
    found = [r for r in results if (r["kernel"], r["target"], r["scenario"]) == (kernel, target, test)]
    if found:
        return thread_metric_view.cell(_result(found[0]))
    reason = next((n["reason"] for n in not_applicable if (n["kernel"], n["target"]) == (kernel, target)
                   and f"{test}/probe" in n["combinations"]), None)
    if reason is None:
        return ""
    number = notes.setdefault(reason, len(notes) + 1)
    return f"n/a {_superscript(number)}"


def _superscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _notes(notes: dict[str, int]) -> str:
    return "".join(f"\n{_superscript(number)} {reason}." for reason, number in notes.items())


def _table(run, columns: list[tuple[str, str, str]], heading: str) -> str:
    """Tests down, one column per (kernel, target, heading)."""
    results, not_applicable = run.results, run.not_applicable
    notes: dict[str, int] = {}
    rows = [[f"`{test}`", *(_cell(results, not_applicable, kernel, target, test, notes)
                            for kernel, target, _ in columns)] for test in TESTS]
    return markdown_table([heading, *(label for _, _, label in columns)], "l" + "r" * len(columns), rows) + \
        ("\n" + _notes(notes) + "\n" if notes else "")


def render_targets(measured) -> str:
    run = measured["thread-metric"]
    some = one(run.results, kernel="freertos", target="mps2-an385", scenario="tm-cooperative")
    columns = [("freertos", target, f"{target} ({CORES.get(target, 'STM32L432')})") for target in FREERTOS_TARGETS]
    return (f"{kernel_label(some)}, probe method, medians of {counted(run.samples)} windows, {compiler(some)} / the "
            f"AVR's and the RISC-V's gcc, `-O2`; per loop in cycles, and in brackets the loops a 30-second interval "
            f"holds at the board's clock:\n\n" + _table(run, columns, "test"))


def render_kernels(measured) -> str:
    run = measured["thread-metric"]
    columns = [(kernel, "lm3s6965evb" if kernel == "rtic" else KERNELS_TARGET,
                KERNEL_NAMES[kernel] + (" (lm3s6965evb)" if kernel == "rtic" else ""))
               for kernel in ("floor", "freertos", "rtic", "embassy", "lilos")]
    clocks = {target: mhz(one(run.results, kernel=kernel, target=target, scenario="tm-basic"))
              for kernel, target, _ in columns}
    return (f"Every kernel on the Cortex-M3 ({KERNELS_TARGET} at {clocks[KERNELS_TARGET]}; RTIC on lm3s6965evb, "
            f"its port, at {clocks['lm3s6965evb']}), probe method, cycles per loop, and in brackets the loops of 30 s "
            f"at that clock:\n\n" + _table(run, columns, "test"))


def render_intervals(measured) -> str:
    run = measured["thread-metric"]
    rows = []
    for document in run.results:
        result = _result(document)
        check = thread_metric.interval_check(result)
        if document["kernel"] != "freertos" or check is None:
            continue
        loops, computed, length = check
        interval = result.thread_metric["interval"]
        rows.append([f"`{result.scenario}`", result.target, f"{interval['ticks']} ticks, {length:,.0f} {result.unit}",
                     f"{loops:,}", f"{computed:,.1f}", f"{(loops - computed) / computed * 100:+.2f}%"])
    return markdown_table(["test", "target", "interval", "loops counted", "loops its length gives",
                           "difference"], "llllrr", rows)


def render_silicon(measured) -> str:
    run = measured["thread-metric"]
    rows = []
    for test, published in PUBLISHED.items():
        l432 = _result(one(run.results, kernel="freertos", target="nucleo-l432kc", scenario=test))
        m4 = _result(one(run.results, kernel="freertos", target="mps2-an386-fpu", scenario=test))
        ours = thread_metric.per_loop(l432)
        rows.append([f"`{test}`", f"{published:,.2f}", f"{ours:,.2f}", f"{(ours - published) / published * 100:+.1f}%",
                     f"{thread_metric.per_loop(m4):,.2f}"])
    some = one(run.results, kernel="freertos", target="nucleo-l432kc", scenario="tm-cooperative")
    return (f"switchscope: {kernel_label(some)}, {compiler(some)} `-O2`, the probe method, cycles per loop; "
            f"nucleo-l432kc is the STM32L432 at 80 MHz as shipped (4 flash wait states, the ART's caches on, "
            f"prefetch off), mps2-an386-fpu the Cortex-M4F at zero wait states:\n\n"
            + markdown_table(["Thread-Metric test", "published, cycles per loop", "switchscope, nucleo-l432kc",
                              "difference", "switchscope, mps2-an386-fpu"], "lrrrr", rows))
