"""What an irq-latency run gives beyond its samples: the worst case with the
code it fell in, and how much of the workload's loop the sweep covered."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from switchscope.catalog.job import Job
from switchscope.common.errors import FirmwareFailed
from switchscope.decode import elf
from switchscope.decode.latency import Sweep, masked_region, sweep
from switchscope.decode.methods import Reading
from switchscope.decode.recording import RunOutput


def watches(firmware_elf: Path, job: Job) -> list[tuple[int, str]]:
    """The handler's first instruction ("enter") and the loop's top ("loop") for the simulator to log."""
    handler = job.target.latency_timer.handler
    found = elf.symbols(firmware_elf)
    if handler not in found:
        raise FirmwareFailed(f"{job}: the firmware has no latency handler {handler} (board.toml, [latency_timer])")
    loops = elf.section_words(firmware_elf, ".debug_switchscope_loop")
    if not loops:
        raise FirmwareFailed(f"{job}: the firmware marks no loop top (SS_MARK(\"loop\"))")
    return [(found[handler] & ~1, "enter"), *((address, "loop") for address in loops)]


def function_at(firmware_elf: Path, address: int) -> str:
    for start, end, name in elf.functions(firmware_elf):
        if start <= address < end:
            return name
    return "?"


def reading(job: Job, firmware_elf: Path, output: RunOutput, samples: int) -> tuple[Reading, dict]:
    """The run's latencies as a Reading (nothing to subtract), and the Result's latency fields."""
    target = job.target
    found: Sweep = sweep(output.events, target.simulator == "qemu", str(job))
    if len(found.latency) != samples:
        raise FirmwareFailed(f"{job}: the simulator saw {len(found.latency)} interrupts reach their handler for "
                             f"{samples} samples in the stream")
    bounds = None
    if found.least is not None:
        bounds = {"min": (found.least, [0] * samples), "max": (found.most, [0] * samples)}
    worst = int(np.argmax(found.latency))
    address = found.addresses[worst]
    first, last = masked_region(found.addresses, found.latency, address)
    step = "instructions" if target.simulator == "qemu" else "cycles"
    facts = {
        "worst": {job.counted_in: found.latency[worst], "address": f"0x{address:x}",
                  "function": function_at(firmware_elf, address), "sample": worst,
                  "held_from": f"0x{first:x}", "held_to": f"0x{last:x}"},
        "phases": {"covered": found.covered, "period": found.period, "steps": step},
        "sample_phases": found.phases,
        "sample_addresses": [f"0x{a:x}" for a in found.addresses],
    }
    return Reading(found.latency, [0] * samples, 0, [], bounds=bounds), facts
