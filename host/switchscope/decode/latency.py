"""The interrupt-latency sweep as the simulator saw it: each assertion of the
board's latency timer ("assert@<address>" in the watch log) paired with the
next entry into its handler ("enter"), and placed in the workload's loop by
the last pass of the loop's top ("loop") before it. The loop's period is the
most common time between two passes of its top that no sample's interrupt
fell between.

A sample is armed at the first pass of the loop's top after the previous
sample's handler: that iteration runs the arming code, the next ones are the
workload's own. One sample per phase of the loop (`one_per_phase`) takes, for
each step of an ordinary iteration, the first sample asserted there, so the
distribution is over the loop's phases, each once, whatever the run's length
beyond a round; the tick's effect is reported on its own."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

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
    ordinary: list[bool] = field(default_factory=list)  # asserted in an iteration after the arming one

    @property
    def covered(self) -> int:
        """How many distinct steps of the loop some sample asserted at. An
        assertion just before the loop's top instruction is logged before that
        pass of the top: its phase reads a whole period, which is step 0."""
        return len({phase % self.period for phase in self.phases if self.period and 0 <= phase <= self.period})


def sweep(events: Events | None, steps_are_instructions: bool, what: str, loop_samples: int | None = None) -> Sweep:
    """The sweep's samples, in the order taken. `steps_are_instructions`:
    count the phase in instructions (QEMU counting cycles logs both; counting
    instructions its count is the instructions). The loop's period is timed on
    the first `loop_samples` samples' iterations (all: None); those after
    them (a tick round) wait for the tick in iterations of their own."""
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
    passes = 0  # passes of the loop's top since the last handler entered: the first one arms the next sample
    timing_loop = True
    for i, name in enumerate(names):
        if name == "loop":
            # an iteration of the workload's own (not the one that armed a sample) no interrupt fell into
            if loop_at is not None and not disturbed and timing_loop and passes >= 2:
                loop_gaps[steps[i] - loop_at] += 1
            loop_at, disturbed = steps[i], False
            passes += 1
        elif name.startswith(ASSERT):
            asserted, disturbed = i, True
            phase = steps[i] - loop_at if loop_at is not None else -1  # where it came, not where it was taken
            found.ordinary.append(passes >= 2 and bool(found.latency))  # the first sample's count holds the start's
        elif name == "enter" and asserted is not None:
            found.latency.append(times[i] - times[asserted])
            if least is not None:
                found.least.append(least[i] - least[asserted])
                found.most.append(most[i] - most[asserted])
            found.addresses.append(int(names[asserted][len(ASSERT):], 16))
            found.phases.append(phase)
            asserted, passes = None, 0
            timing_loop = loop_samples is None or len(found.latency) < loop_samples
    if asserted is not None and len(found.latency) == 0:
        raise FirmwareFailed(f"{what}: the interrupt was asserted but its handler never entered")
    found.period = loop_gaps.most_common(1)[0][0] if loop_gaps else 0
    del found.ordinary[len(found.latency):]  # an assertion whose handler the run ended before
    return found


def one_per_phase(found: Sweep, disturbed: list[bool], loop_samples: int) -> tuple[list[int], list[int], int]:
    """Of the first `loop_samples` (the loop's round): the samples that make the distribution, one for each
    step of the loop's period, the first sample asserted there in an ordinary iteration no tick fell into, in
    the order taken; the samples a tick fell into (the tick's, not the loop's: it comes where it comes); and
    how many steps the distribution covers. An assertion logged just before a pass of the loop's top reads
    a whole period: step 0."""
    first_at: dict[int, int] = {}
    ticked = []
    for k in range(min(loop_samples, len(found.latency))):
        if disturbed[k]:
            ticked.append(k)
            continue
        phase = 0 if found.period and found.phases[k] == found.period else found.phases[k]
        if found.ordinary[k] and 0 <= phase < found.period:
            first_at.setdefault(phase, k)
    return sorted(first_at.values()), ticked, len(first_at)


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


def held_steps(phases: list[int], latency: list[int], at: int, usual: int, period: int) -> tuple[int, int, int]:
    """The run of consecutive steps of the loop around sample `at` (one sample per step) at which the
    interrupt waited longer than its usual latency: where code held it. (first sample, last sample, steps),
    the run followed across the loop's top."""
    by_step = {phase % period: k for k, phase in enumerate(phases) if period and 0 <= phase}
    held = {step for step, k in by_step.items() if latency[k] > usual}
    start = phases[at] % period if period else 0
    if start not in held:
        return at, at, 0
    first = last = start
    count = 1
    while count < period and (first - 1) % period in held:
        first, count = (first - 1) % period, count + 1
    while count < period and (last + 1) % period in held:
        last, count = (last + 1) % period, count + 1
    return by_step[first], by_step[last], count
