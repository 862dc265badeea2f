"""What an irq-latency run gives: its latencies, by the simulator (marker:
assertion to the handler's first instruction) or by the probe (the board's
entry code reads the timer; the counts since it expired, less the entry's
instructions before the read), and beyond them the worst case with the code
it fell in, and how much of the workload's loop the sweep covered. On a
simulator a probe run carries the simulator's view too, and how far the two
agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from switchscope.catalog.job import Job
from switchscope.common.errors import FirmwareFailed
from switchscope.decode import elf, stats
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


def probe_latencies(job: Job, stream) -> list[int]:
    """The probe's latency of each sample, in the simulator's unit, less the entry's instructions before its
    read of the timer. The counts from the expiry to the read, k, and the delay armed, d (the sample's tag),
    give it: the read comes ceil((d + k) / u) units after the store that armed the timer, the interrupt
    ceil(d / u) after (u: counts per unit). On a cycle-counting simulator u is 1 and that is k; under QEMU
    u is the counts of an instruction's virtual time, and the instructions are placed exactly."""
    timer = job.target.latency_timer
    samples = stream.samples
    try:
        counts = stats.elapsed_counts_array(samples.column("start"), samples.column("end"), 2 ** timer.bits,
                                            timer.counts_down)
    except ValueError as error:
        raise FirmwareFailed(f"{job}: corrupt latency stamp in the stream: {error}") from None
    per_unit = job.target.counts_per_unit(timer.clock_hz)

    def units_after(count: int) -> int:
        return -(-count * per_unit.denominator // per_unit.numerator)

    return [units_after(d + k) - units_after(d) - timer.read_offset
            for d, k in zip(samples.column("tag").tolist(), counts.tolist())]


def reading(job: Job, firmware_elf: Path, output: RunOutput, samples: int) -> tuple[Reading, dict]:
    """The run's latencies as a Reading (nothing to subtract: the probe's offset is taken off each), and
    the Result's latency fields. A board read over its port logs no simulator's view: its probe's worst
    case then has no address, and no phases are known."""
    target = job.target
    if output.events is None and job.method.name == "probe":
        latencies = probe_latencies(job, output.stream)
        worst = int(np.argmax(latencies))
        return (Reading(latencies, [0] * samples, 0, []),
                {"worst": {job.counted_in: latencies[worst], "sample": worst,
                           "samples": latencies.count(latencies[worst])}})
    found: Sweep = sweep(output.events, target.simulator == "qemu", str(job))
    if len(found.latency) != samples:
        raise FirmwareFailed(f"{job}: the simulator saw {len(found.latency)} interrupts reach their handler for "
                             f"{samples} samples in the stream")
    bounds, agreement, latencies = None, None, found.latency
    if job.method.name == "probe":
        latencies = probe_latencies(job, output.stream)
        apart = [p - s for p, s in zip(latencies, found.latency)]
        agreement = {"samples": samples, "equal": sum(1 for d in apart if d == 0),
                     "least_difference": min(apart), "largest_difference": max(apart), "unit": job.counted_in}
    elif found.least is not None:
        bounds = {"min": (found.least, [0] * samples), "max": (found.most, [0] * samples)}
    worst = int(np.argmax(latencies))
    address = found.addresses[worst]
    first, last = masked_region(found.addresses, latencies, address)
    step = "instructions" if target.simulator == "qemu" else "cycles"
    facts = {
        "worst": {job.counted_in: latencies[worst], "address": f"0x{address:x}",
                  "function": function_at(firmware_elf, address), "sample": worst,
                  "samples": latencies.count(latencies[worst]),
                  "held_from": f"0x{first:x}", "held_to": f"0x{last:x}"},
        "phases": {"covered": found.covered, "period": found.period, "steps": step},
        "sample_phases": found.phases,
        "sample_addresses": [f"0x{a:x}" for a in found.addresses],
    }
    if agreement:  # the probe against the simulator's own view of the same interrupts
        facts["details"] = {"agreement": agreement}
    return Reading(latencies, [0] * samples, 0, [], bounds=bounds), facts
