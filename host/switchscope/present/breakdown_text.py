"""One traced window as text: the functions it passes through in order, with
their instructions and cycles, the exception entries and returns on lines of
their own, and, when asked, every instruction. With a flash model, each
stretch and each instruction also says what of its cycles was fetch stall,
and each instruction how the flash reads it started were served."""

from __future__ import annotations

from switchscope.catalog import configs
from switchscope.figures import memory_used
from switchscope.figures.breakdown import Breakdown, parting

FLOW_NAMES = {"exception-entry": "exception entry (stacking 8 registers)",
              "exception-return": "exception return (unstacking 8 registers)",
              "tail-chain": "tail-chain into the next handler",
              "exception-entry-fp-reserved": "exception entry (stacking 8 registers, space reserved for s0-s15 "
                                             "and FPSCR: lazy stacking)",
              "exception-entry-fp": "exception entry (stacking 8 registers, s0-s15 and FPSCR)",
              "fp-lazy-store": "the deferred store of s0-s15 and FPSCR (the handler's first FPU instruction)",
              "exception-return-fp": "exception return (unstacking 8 registers, s0-s15 and FPSCR)",
              "exception-return-fp-unwritten": "exception return (unstacking 8 registers; the FP space never "
                                               "written)",
              "interrupt-entry": "interrupt entry (from between two instructions to the vector's first cycle)",
              "split-fetch": "a second fetch (a 32-bit instruction 2 bytes past a word, where the flow landed)"}


# how the flash model (host/qemu-plugin/flash_memory.c) served a read an instruction started
READ_NAMES = {"flash-read": "miss", "flash-prefetch": "prefetched", "flash-icache-hit": "I-cache hit",
              "flash-dcache-hit": "D-cache hit", "flash-literal": "literal miss", "flash-data": "data miss"}


def runs(breakdown: Breakdown) -> list[tuple[str, int, int, int]]:
    """(where, instructions, cycles, of them fetch stall) for each stretch spent in one function, and each flow
    cost."""
    found: list[list] = []
    for step in breakdown.steps:
        if step.address is None:  # a flow's cost, or the fetch of the instruction the window ends at
            found.append([FLOW_NAMES.get(step.text, step.text), 0, step.cycles, step.stall])
        elif found and found[-1][0] == step.function and found[-1][1]:
            found[-1][1] += 1
            found[-1][2] += step.cycles
            found[-1][3] += step.stall
        else:
            found.append([step.function, 1, step.cycles, step.stall])
    return [tuple(run) for run in found]


def _memory(step) -> str:
    """An instruction's core cycles, its stall and how its reads were served: "1 core + 5 stall: miss"."""
    if not step.reads:
        return ""
    return f"  ({step.core} core + {step.stall} stall: {', '.join(READ_NAMES.get(r, r) for r in step.reads)})"


def text(breakdown: Breakdown, every_instruction: bool = False) -> str:
    job, unit = breakdown.job, breakdown.unit
    defaults = configs.resolve({}, job.kernel, job.target, job.scenario, job.tasks)
    options = job.config.label(defaults) if job.config else "default"
    tasks = f", {job.tasks} tasks" if job.tasks else ""
    lines = [f"one window of {job.scenario.name}{tasks} ({job.kernel.name} on {job.target.name}, {options}): "
             f"{breakdown.total} {unit}, sample {breakdown.sample}, marker method"
             + (f" ({job.target.timing_model} timing model)" if unit == "cycles" and job.target.timing_model
                else " (the core's RTL)" if job.target.simulator == "verilator" else ""),
             *_memory_line(breakdown),
             *_stall_share(breakdown),
             f"  {unit:>8}  {'instructions':>12}  " + ("   stall  " if breakdown.has_memory_model else "") + "where",
             *(f"  {c:>8}  {n or '':>12}  " + (f"{s:>6}    " if breakdown.has_memory_model else "") + where
               for where, n, c, s in runs(breakdown))]
    if every_instruction:
        lines += ["", "every instruction:"]
        width = max((len(f"{s.function}+{s.offset}") for s in breakdown.steps), default=0)
        for step in breakdown.steps:
            where = "" if step.address is None else f"{step.function}+{step.offset}"
            what = FLOW_NAMES.get(step.text, step.text) if step.address is None else step.text
            lines.append(f"  {step.cycles:>8}  {where:<{width}}  {what}{_memory(step)}")
    return "\n".join(lines)


def _memory_line(breakdown: Breakdown) -> list[str]:
    """The memory the window's cycles were counted with, where the target's flash is modelled."""
    job = breakdown.job
    memory = memory_used.record(job.target, breakdown.unit, configs.memory_settings(job.resolved_config()))
    said = memory and (memory["model"] or memory["description"] != memory_used.ZERO_WAIT_STATES)
    return [f"  memory on {job.target.name}: {memory['description']}"] if said else []


def _stall_share(breakdown: Breakdown) -> list[str]:
    """The window's share that is flash stall (fetches and loads), where a flash model charged it."""
    if not breakdown.has_memory_model:
        return []
    share = 100 * breakdown.stall / breakdown.total if breakdown.total else 0.0
    return [f"  flash stall (fetches and loads): {breakdown.stall} of {breakdown.total} {breakdown.unit} "
            f"({share:.1f}%), the rest the core's own"]


def side_by_side(first: Breakdown, second: Breakdown) -> str:
    """The same window traced on two targets (a timing model and the RTL it models): each total, the
    difference, and the first instruction where they part."""
    a, b = first.job.target.name, second.job.target.name
    difference = first.total - second.total
    percent = f" ({100 * difference / second.total:+.1f}%)" if second.total else ""
    lines = [f"{a}: {first.total} {first.unit}; {b}: {second.total} {second.unit}; "
             f"{a} - {b}: {difference:+d} {first.unit}{percent}"]
    found = parting(first, second)
    folded = ("; a model's lines of their own (an entry, a second fetch) count, as the RTL counts them, in the "
              "instruction before them" if any(s.address is None for s in (*first.steps, *second.steps)) else "")
    if found is None:
        lines.append("every instruction costs the same on both" + folded)
    elif found.cycles is None:
        lines.append(f"they run different instructions from instruction {found.index}: {a} "
                     f"{found.function}+{found.offset} {found.text}, {b} {found.other}")
    else:
        lines.append(f"they part at instruction {found.index}, {found.function}+{found.offset} {found.text}: "
                     f"{found.cycles[0]} {first.unit} on {a}, {found.cycles[1]} on {b} (an instruction's cost "
                     f"runs to the next one's first cycle{folded})")
    return "\n".join(lines)
