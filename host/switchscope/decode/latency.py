"""The interrupt-latency sweep as the simulator saw it: each assertion of the
board's latency timer ("assert@<address>" in the watch log) paired with the
next entry into its handler ("enter"), and placed in the workload's loop by
the last pass of the loop's top ("loop") before it. The loop's period is the
most common time between two passes of its top that no sample's interrupt
fell between."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from switchscope.common.errors import FirmwareFailed
from switchscope.decode.recording import Events

ASSERT = "assert@"


@dataclass
class Sweep:
    latency: list[int]  # per sample, in the run's unit: assertion to the handler's first instruction
    least: list[int] | None  # cycles from a timing model: the least and the most the core's manual allows
    most: list[int] | None
    addresses: list[int]  # the instruction executing, or next to, at each assertion
    phases: list[int]  # steps from the loop's top to each assertion
    period: int  # the loop's length in steps: the most common distance between two passes of its top

    @property
    def covered(self) -> int:
        """How many distinct steps of the loop some sample asserted at. An
        assertion just before the loop's top instruction is logged before that
        pass of the top: its phase reads a whole period, which is step 0."""
        return len({phase % self.period for phase in self.phases if self.period and 0 <= phase <= self.period})


def sweep(events: Events | None, steps_are_instructions: bool, what: str) -> Sweep:
    """The sweep's samples, in the order taken. `steps_are_instructions`:
    count the phase in instructions (QEMU counting cycles logs both; counting
    instructions its count is the instructions)."""
    if events is None or not len(events):
        raise FirmwareFailed(f"{what}: the simulator logged no interrupt assertions")
    times = events.time.tolist()
    counted_both = steps_are_instructions and bool((events.instructions >= 0).all())  # cycles on QEMU
    steps = events.instructions.tolist() if counted_both else times
    least = events.least.tolist() if events.bounded else None
    most = events.most.tolist() if events.bounded else None
    names = [events.names[i] for i in events.name_index.tolist()]
    found = Sweep([], [] if least else None, [] if most else None, [], [], 0)
    loop_at, asserted, phase, disturbed, loop_gaps = None, None, -1, False, Counter()
    for i, name in enumerate(names):
        if name == "loop":
            if loop_at is not None and not disturbed:  # an iteration no sample's interrupt fell into
                loop_gaps[steps[i] - loop_at] += 1
            loop_at, disturbed = steps[i], False
        elif name.startswith(ASSERT):
            asserted, disturbed = i, True
            phase = steps[i] - loop_at if loop_at is not None else -1  # where it came, not where it was taken
        elif name == "enter" and asserted is not None:
            found.latency.append(times[i] - times[asserted])
            if least is not None:
                found.least.append(least[i] - least[asserted])
                found.most.append(most[i] - most[asserted])
            found.addresses.append(int(names[asserted][len(ASSERT):], 16))
            found.phases.append(phase)
            asserted = None
    if asserted is not None and len(found.latency) == 0:
        raise FirmwareFailed(f"{what}: the interrupt was asserted but its handler never entered")
    found.period = loop_gaps.most_common(1)[0][0] if loop_gaps else 0
    return found


def masked_region(addresses: list[int], latency: list[int], at: int) -> tuple[int, int]:
    """The run of instructions around `at` (by address) at which the interrupt
    waited longer than its shortest latency anywhere: where it was masked, or
    held by a longer instruction. (first, last) addresses."""
    least = min(latency)
    longer = sorted({a for a, value in zip(addresses, latency) if value > least})
    if at not in longer:
        return at, at
    index = longer.index(at)
    first = last = index
    span = np.diff(np.array(longer)) if len(longer) > 1 else np.array([])
    gap = 4  # the longest instruction's bytes (Thumb-2's 32-bit ones, the AVR's two-word ones): a run ends where
    # the addresses part by more
    while first > 0 and span[first - 1] <= gap:
        first -= 1
    while last < len(longer) - 1 and span[last] <= gap:
        last += 1
    return longer[first], longer[last]
