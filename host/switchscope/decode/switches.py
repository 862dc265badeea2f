"""Task switches from the exception flow a simulator logged (the QEMU plugin's
switch_word= events), with nothing added to the firmware:

    entry@<handler>:<word>:<pc>:<lr>   an exception taken from thread mode
    nest@<handler>:<word>              an exception taken in a handler
    chain@<handler>:<word>             a tail-chain into a handler
    resume@<address>:<word>[:<name>]   the return to thread mode

each with the kernel's current-task variable (word) as it was then. Between
two returns to thread mode lies one chain of handlers. It made a switch when
the word it returned with is not the one its entry saw; the switch's window
runs from the last entry (or tail-chain) of the kernel's switching handler in
the chain, the one that returned to the task, to that task's first
instruction. What caused it: the task's own call, where that handler was
entered from thread mode with no interrupt before it (its stacked address
says where: an API function); otherwise the last interrupt taken before it,
the kernel's tick or another.

On Ibex (RISC-V, the Verilator harness) a trap is an entry too: an exception
(ecall) names the handler its vector jumps to, so it is a call; an interrupt
names its vector (mtvec + 4 * cause) and a chain@ follows, into the kernel's
trap handler, so the vector is the interrupt before it; the kernel's tick is
the machine timer's vector (figures/switches.py)."""

from __future__ import annotations

from dataclasses import dataclass

from switchscope.decode.recording import Event


@dataclass(frozen=True)
class Flow:
    """One event of the exception flow, its fields read from its name."""
    kind: str  # "entry", "nest", "chain" or "resume"
    time: int
    address: int  # the handler entered, or the address returned to
    word: int  # the current-task variable
    pc: int | None = None  # entry: the instruction it interrupted
    lr: int | None = None  # entry: the link register it stacked (where the interrupted function returns)
    name: str | None = None  # resume: the task's name, where read
    least: int | None = None
    most: int | None = None

    @classmethod
    def of(cls, event: Event) -> "Flow | None":
        kind, at, rest = event.name.partition("@")
        if kind not in ("entry", "nest", "chain", "resume") or not at:
            return None
        fields = rest.split(":")
        try:
            address, word = int(fields[0], 16), int(fields[1], 16)
            pc = int(fields[2], 16) if kind == "entry" and len(fields) > 2 else None
            lr = int(fields[3], 16) if kind == "entry" and len(fields) > 3 else None
            name = bytes.fromhex(fields[2]).decode("latin-1") if kind == "resume" and len(fields) > 2 else None
        except (IndexError, ValueError):
            return None
        return cls(kind, event.time, address, word, pc, lr, name, event.least, event.most)


@dataclass(frozen=True)
class Switch:
    start: int  # the count before the switching handler's entry or tail-chain
    end: int  # the count before the incoming task's first instruction
    outgoing: int  # the current-task variable before, and after
    incoming: int
    cause: str  # "call", "tick" or "interrupt"
    cause_address: int  # call: the instruction the task was at; tick, interrupt: the handler
    caller: int | None = None  # call: the link register then (where the function it was in returns)
    incoming_name: str | None = None
    least: tuple[int, int] | None = None  # (start, end) as the least and the most the core's manual allows
    most: tuple[int, int] | None = None


def switches(events, switch_path: set[int], tick: set[int]) -> tuple[list[Switch], int]:
    """The switches among the flow events, in order, and how many chains entered the switching
    handler without a switch (the task it returned to was the one it left)."""
    found, unswitched, chain = [], 0, []
    for event in events:
        flow = Flow.of(event)
        if flow is None:
            continue
        if flow.kind != "resume":
            if flow.kind == "entry":
                chain = []
            chain.append(flow)
            continue
        steps, chain = chain, []
        last = max((i for i, step in enumerate(steps) if step.address in switch_path), default=None)
        if last is None:
            continue
        if flow.word == steps[0].word:
            unswitched += 1
            continue
        into = steps[last]
        before = [step for step in steps[:last] if step.address not in switch_path]
        caller = None
        if into.kind == "entry" or not before:
            first = steps[0]
            cause, where, caller = "call", first.pc if first.pc is not None else first.address, first.lr
        else:
            where = before[-1].address
            cause = "tick" if where in tick else "interrupt"
        bounds = into.least is not None and flow.least is not None
        found.append(Switch(into.time, flow.time, steps[0].word, flow.word, cause, where, caller, flow.name,
                            (into.least, flow.least) if bounds else None,
                            (into.most, flow.most) if bounds else None))
    return found, unswitched
