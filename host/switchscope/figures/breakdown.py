"""Where the cycles of one window go: every instruction with its cost, from
the simulator's trace of that window (marker method: nothing of
switchscope's inside the window). On QEMU the timing model charged each
instruction, and the exception entries, returns and tail-chains between
them are lines of their own; on a core's RTL (Verilator) each instruction
costs the cycles from its first in ID/EX to the next one's, so a trap's
entry is part of the `ecall` (or of the instruction it interrupted) and the
return part of `mret`. With a flash model (target.flash) the plugin says how
each flash read an instruction started was served, and what it waited for
it: that stall stays the instruction's, shown beside its core cycles."""

from __future__ import annotations

import bisect
import dataclasses
import subprocess
from dataclasses import dataclass
from pathlib import Path

from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.catalog.job import Job
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.common.tools import require
from switchscope.decode import elf
from switchscope.decode.methods import warmup_windows
from switchscope.figures import kinds
from switchscope.figures.measure import analyse
from switchscope.run.runner import run, simulator_of



@dataclass(frozen=True)
class Step:
    """One instruction executed in the window, or (address None) a cost of the flow itself."""
    cycles: int
    address: int | None = None
    function: str = ""
    offset: int = 0
    text: str = ""  # the instruction as disassembled, or the flow's name
    stall: int = 0  # of `cycles`, what it waited for the flash (flash_memory.c's lines after it)
    reads: tuple[str, ...] = ()  # how each flash read it started was served ("flash-read", "flash-icache-hit", ...)

    @property
    def core(self) -> int:
        """Its cycles without the flash's stall: the core's own."""
        return self.cycles - self.stall


@dataclass
class Breakdown:
    job: Job
    sample: int  # which sample of the run was traced
    measured: int  # the marker method's figure for that sample
    steps: list[Step]
    unit: str

    @property
    def total(self) -> int:
        return sum(step.cycles for step in self.steps)

    @property
    def stall(self) -> int:
        """What the window waited for the flash."""
        return sum(step.stall for step in self.steps)

    @property
    def has_memory_model(self) -> bool:
        return any(step.reads for step in self.steps)


def parse(lines: list[str]) -> list[tuple[int, str, int | str, int]]:
    """(count, "i" or "f", address or flow name, flow cycles) per line, up to "end" (then ("end", count))."""
    parsed = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        try:
            if len(fields) == 2 and fields[1] == "end":
                parsed.append((int(fields[0]), "end", "", 0))
                return parsed
            if len(fields) == 3 and fields[1] == "i":
                parsed.append((int(fields[0]), "i", int(fields[2], 16), 0))
            elif len(fields) == 4 and fields[1] == "f":
                parsed.append((int(fields[0]), "f", fields[2], int(fields[3])))
            else:
                raise ValueError
        except ValueError:
            raise FirmwareFailed(f"the plugin's trace, line {number}, is malformed: {line!r}",
                                 "this is a bug: report it") from None
    raise FirmwareFailed("the plugin's trace has no end: the traced window never closed")


MEMORY_LINE = "flash-"  # a trace line of the flash model: a read and its stall
# The reads an instruction's fetch starts, logged before its own line (an instruction starts once fetched: the
# count on its line is after them); the model's other lines, data reads, follow the instruction that made them.
FETCH_LINES = ("flash-read", "flash-prefetch", "flash-icache-hit")
CLOSING_FETCH = "the fetch of the instruction the window ends at"


def steps_of(parsed: list[tuple[int, str, int | str, int]], functions: list[tuple[int, int, str]],
             disassembly: dict[int, str]) -> list[Step]:
    """Each instruction's cost: its fetch's stall (the fetch lines before it), then from the count on its line
    to the next instruction's fetch (or the end), less the flow costs charged between; each flow cost a step
    of its own, after the instruction it follows. The flash model's lines stay in the instruction's cost, as
    its stall and the reads it started; the fetch of the instruction at the window's end, which the window
    holds (that instruction starts once fetched), is a step of its own."""
    starts = [start for start, _, _ in functions]
    steps = []
    fetched = (0, [])  # the fetch lines before the next instruction: their stall and reads

    def located(what: int) -> tuple[str, int]:
        where = bisect.bisect_right(starts, what) - 1
        if where >= 0 and what < functions[where][1]:
            return functions[where][2], what - functions[where][0]
        return "?", 0

    index = 0
    while index < len(parsed):
        count, kind, what, _ = parsed[index]
        if kind == "f" and str(what) in FETCH_LINES:
            fetched = (fetched[0] + parsed[index][3], fetched[1] + [str(what)])
            index += 1
            continue
        if kind != "i":
            index += 1
            continue
        own_stall, own_reads = fetched
        following = index + 1
        flows, stall, reads = [], own_stall, list(own_reads)
        while parsed[following][1] == "f" and str(parsed[following][2]) not in FETCH_LINES:
            name, cycles = str(parsed[following][2]), parsed[following][3]
            if name.startswith(MEMORY_LINE):
                stall += cycles
                reads.append(name)
            else:
                flows.append(Step(cycles, None, text=name))
            following += 1
        next_fetch, next_reads, ahead = 0, [], following
        while parsed[ahead][1] == "f" and str(parsed[ahead][2]) in FETCH_LINES:
            next_fetch += parsed[ahead][3]
            next_reads.append(str(parsed[ahead][2]))
            ahead += 1
        name, offset = located(what)
        cost = parsed[ahead][0] - next_fetch - count - sum(flow.cycles for flow in flows) + own_stall
        steps += [Step(cost, what, name, offset, disassembly.get(what, ""), stall, tuple(reads)), *flows]
        fetched = (next_fetch, next_reads)
        if parsed[ahead][1] == "end":
            if next_reads:
                steps.append(Step(next_fetch, None, text=CLOSING_FETCH, stall=next_fetch, reads=tuple(next_reads)))
            break
        index = ahead
    return steps


def objdump_of(target: catalog.Target) -> tuple[str, str]:
    """The objdump of the target's gcc, and the Debian packages that bring it with that gcc."""
    return target.gcc.removesuffix("gcc") + "objdump", target.gcc_package


def disassemble(path: Path, objdump: tuple[str, str]) -> dict[int, str]:
    """address -> instruction text, from objdump."""
    objdump = require(*objdump)
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        head, sep, text = line.partition(":\t")
        if sep and head.strip() and all(c in "0123456789abcdef" for c in head.strip()):
            found[int(head.strip(), 16)] = " ".join(text.split("\t")[:2]).split(";")[0].strip()
    return found


def breakdown(job: Job, sample: int, time_limit: float | None = None) -> Breakdown:
    """The traced window of sample `sample` (counted from 0, past any warm-up) of the job, marker method."""
    if not simulator_of(job.target).TRACES_WINDOWS:
        raise SwitchscopeError(f"breakdown needs a simulator that traces a window's every instruction; "
                               f"{job.target.name} runs on {job.target.simulator}, which does not",
                               "choose one of: " + ", ".join(n for n, t in catalog.TARGETS.items()
                                                             if simulator_of(t).TRACES_WINDOWS))
    marker = dataclasses.replace(job, method=catalog.METHODS["marker"])
    samples = sample + 1
    config = marker.resolved_config()
    firmware = build(marker.kernel, marker.target, marker.scenario, marker.method, config)
    kind = kinds.of(marker)
    planned = kind.planned_run(samples, config, time_limit, firmware.elf)

    def run_once(trace_window: int | None):
        output = run(marker.target, firmware.elf, planned.parameters, planned.samples, planned.time_limit,
                     trace_window=trace_window, **planned.options)
        output.check_completed(str(marker))
        return output

    untraced = run_once(None)  # the window's figure, and how many warm-up windows come before the first
    figure = analyse(firmware, marker, untraced, samples, kind.reading(untraced, firmware.elf))
    left_out = {e["seq"]: e["reason"] for e in figure.excluded_samples}
    if sample in left_out:
        raise SwitchscopeError(f"sample {sample} of {job} is left out of its run ({left_out[sample]})",
                               "choose another sample with --sample")
    measured = figure.samples[-1]
    traced = run_once(warmup_windows(untraced.stream) + sample)
    steps = steps_of(parse(traced.trace or []), elf.code_regions(firmware.elf),
                     disassemble(firmware.elf, objdump_of(marker.target)))
    result = Breakdown(marker, sample, measured, steps, marker.counted_in)
    if result.total != measured:
        raise FirmwareFailed(f"{marker}: the trace of sample {sample} sums to {result.total} {result.unit}, the "
                             f"marker measured {measured}", "this is a bug: report it")
    return result


@dataclass(frozen=True)
class Parting:
    """Where two traces of one window, on two simulators, first disagree."""
    index: int  # of the instruction, from 0
    function: str
    offset: int
    text: str
    cycles: tuple[int, int] | None  # each trace's cost of that instruction, when both ran it
    other: str = ""  # when they ran different instructions there: what the second ran


def instruction_costs(steps: list[Step]) -> list[tuple[Step, int]]:
    """Each instruction with what it cost, the flow costs charged after it (a trap's entry, a split fetch)
    counted in it, as an RTL's trace counts them: each instruction up to the next one's first cycle."""
    found: list[list] = []
    for step in steps:
        if step.address is None:
            if found:
                found[-1][1] += step.cycles
        else:
            found.append([step, step.cycles])
    return [(step, cycles) for step, cycles in found]


def parting(first: Breakdown, second: Breakdown) -> Parting | None:
    """The first instruction of the window where the two traces differ, by place (function and offset:
    the images may sit at different addresses) or by cost; None when they agree throughout."""
    ours, theirs = instruction_costs(first.steps), instruction_costs(second.steps)
    for index, ((step, cycles), (other, other_cycles)) in enumerate(zip(ours, theirs)):
        if (step.function, step.offset) != (other.function, other.offset):
            return Parting(index, step.function, step.offset, step.text, None,
                           f"{other.function}+{other.offset} {other.text}")
        if cycles != other_cycles:
            return Parting(index, step.function, step.offset, step.text, (cycles, other_cycles))
    if len(ours) != len(theirs):
        index = min(len(ours), len(theirs))
        longer = ours if len(ours) > len(theirs) else theirs
        step = longer[index][0]
        return Parting(index, step.function, step.offset, step.text, None,
                       "the end of the window" if longer is ours else f"{step.function}+{step.offset} {step.text}")
    return None


def against(target: catalog.Target, name: str, unit: str | None) -> catalog.Target:
    """breakdown --against: another simulator of the same core in the same configuration (Ibex small: the model
    and the RTL), which traces the same window in the same unit; checked before anything is traced."""
    (other,) = catalog.select_targets(name)

    def same_core(t: catalog.Target) -> bool:
        return t != target and (t.cpu, t.core_config) == (target.cpu, target.core_config)
    if not same_core(other):
        core = target.cpu + (f", {target.core_config} configuration" if target.core_config else "")
        raise SwitchscopeError(f"--against {other.name}: it traces the same window on another simulator of the "
                               f"same core ({core})", "name a target of that core: "
                               + (", ".join(t.name for t in catalog.TARGETS.values() if same_core(t)) or "there is none"))
    other.resolve_unit(unit)  # a unit the other cannot count is refused now, not after the first trace
    return other


def only_window(jobs: list[Job], scenario: str) -> Job:
    """The one job breakdown traces; a scenario of several windows, one per build (deadlock-break), is refused."""
    if len(jobs) > 1:
        raise SwitchscopeError(f"breakdown traces one window, and {scenario} measures {len(jobs)}, one per build: "
                               + ", ".join(j.scenario.name for j in jobs), "name one of them with --scenario")
    return jobs[0]
