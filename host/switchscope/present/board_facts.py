"""What a table must say of a figure beyond its statistics, from the core and the board it was measured on:
the settings that apply to the core, a count-leading-zeros done in software where the core has none, the
memory its cycles were counted with (the flash model's settings, or zero wait states), and the flash wait
states a real chip adds at its clock where a figure was counted without its memory model."""

from __future__ import annotations

from switchscope import catalog
from switchscope.catalog.model import CPU_HAS_CLZ
from switchscope.figures.memory_used import ZERO_WAIT_STATES, said
from switchscope.figures.result import Result

SOFTWARE_CLZ_MARK = "‡"  # beside a row whose kernel selects tasks by a software count-leading-zeros
WAIT_STATES_MARK = "§"  # beside µs counted without the memory model of a board whose chip has flash wait states
# Settings a firmware reports that exist on some cores only: FreeRTOS's BASEPRI ceiling is ARMv7-M's (its
# ARMv6-M port masks with PRIMASK, the RISC-V port with mstatus.MIE, the AVR port with cli, whatever it says)
CORE_SETTINGS = {"configMAX_SYSCALL_INTERRUPT_PRIORITY": ("cortex-m3", "cortex-m4", "cortex-m4f")}


def settings_that_apply(result: Result) -> dict:
    """What the firmware reports of itself, less the settings its core has no use for (all where the core is
    unknown): a Cortex-M ceiling is no fact of an Ibex or an AVR build."""
    return {name: value for name, value in result.config.items()
            if name not in CORE_SETTINGS or not result.cpu or result.cpu in CORE_SETTINGS[name]}


def software_clz(result: Result) -> bool:
    """Whether the result's kernel selects its next task by a count-leading-zeros done in software: the
    firmware reports the port's optimised selection on, on a core without the instruction."""
    return (str(result.config.get("configUSE_PORT_OPTIMISED_TASK_SELECTION")) == "1"
            and bool(result.cpu) and not CPU_HAS_CLZ.get(result.cpu, False))


def software_clz_note(cpus: list[str]) -> str:
    return (f"{SOFTWARE_CLZ_MARK} the kernel's optimised task selection is on, on {' / '.join(cpus)}, which has no "
            "count-leading-zeros instruction: its figures include a software one (libgcc's __clzsi2)")


def wait_states(result: Result) -> int:
    """Flash wait states the result's real chip would add at its clock and the simulator did not: its board's
    ([flash] wait_states), for cycles a simulator counted without the memory model (a result of a version
    before it); 0 where the model was applied, for a chip's own count (DWT), and for a board with none."""
    target = catalog.TARGETS.get(result.target or "")
    if target is None or (result.timer or {}).get("name") == "DWT" or result.unit != "cycles" \
            or (result.memory or {}).get("model"):
        return 0
    return target.flash.wait_states if target.flash else 0


def wait_states_note(result: Result) -> str:
    """What a µs figure of such a board is: a zero-wait-state one, and what the chip would add."""
    flash = catalog.TARGETS[result.target].flash
    return (f"{result.target}: zero-wait-state figures; the real chip runs its flash with {flash.wait_states} "
            f"wait states at {result.f_cpu_hz / 1e6:g} MHz ({flash.wait_states_source}), which these figures were "
            "counted without (no memory model): the chip's time can be longer")


def micro(result: Result) -> str:
    """The median in µs at the board's clock, to two places in every row; marked where the chip's flash
    would add wait states the simulation left out."""
    if result.ns_per_unit is None:
        return "-"
    return f"{result.stats.median * result.ns_per_unit / 1000:.2f}" + (WAIT_STATES_MARK if wait_states(result) else "")


def us_heading(result: Result) -> str:
    """The line over a table in µs: the clock, and where the real chip's flash would add wait states at it,
    that the figures are zero-wait-state ones."""
    waits = f" ({WAIT_STATES_MARK} zero-wait-state figures, under the table)" if wait_states(result) else ""
    return f"  in µs at {result.f_cpu_hz / 1e6:g} MHz{waits}:"


def memory_of(result: Result) -> str | None:
    """The memory a result's cycles were counted with, in words: its flash model's settings, or zero wait states
    (a board without a flash model, or a result that records none: counted before the model existed); None for
    a chip's own count (DWT), whose memory is the chip's, and for a count that is no clock's cycles."""
    if said(result):
        return said(result)
    if result.unit != "cycles" or (result.timer or {}).get("name") == "DWT":
        return None
    return f"{ZERO_WAIT_STATES}, without the chip's memory model" if wait_states(result) else ZERO_WAIT_STATES


def memory_lines(results: list[Result]) -> list[str]:
    """Under a table with µs: the memory each board's figures were counted with, once per memory with every
    board counted with it; the note of each board whose µs are zero-wait-state figures of a chip with wait
    states (marked)."""
    timed = [r for r in results if r.ns_per_unit is not None]
    boards_by_memory: dict[str, dict[str, None]] = {}
    for r in timed:
        if memory_of(r) and not wait_states(r):
            boards_by_memory.setdefault(memory_of(r), {})[r.target] = None
    boards = {r.target: r for r in timed if wait_states(r)}
    return [f"  memory on {', '.join(targets)}: {memory}" for memory, targets in boards_by_memory.items()] + \
        [f"  {WAIT_STATES_MARK} {wait_states_note(r)}" for r in boards.values()]
