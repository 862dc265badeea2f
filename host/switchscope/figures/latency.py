"""The latency kind of scenario: an interrupt asserted at every step of a
loop, timed to its handler's first instruction, by the simulator (marker:
assertion to the handler's first instruction) or by the probe (the board's
entry code reads the timer; the counts since it expired, less the entry's
instructions before the read), and beyond them the worst case with the code
it fell in, and how much of the workload's loop the sweep covered. On a
simulator a probe run carries the simulator's view too, and how far the two
agree."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from switchscope.catalog.configs import Config, memory_settings
from switchscope.catalog.job import Job
from switchscope.common.errors import FirmwareFailed
from switchscope.decode import elf, stats
from switchscope.decode.latency import Sweep, held_steps, masked_region, one_per_phase, sweep
from switchscope.decode.wire import TICK_IN_WINDOW
from switchscope.decode.methods import Reading
from switchscope.decode.recording import RunOutput
from switchscope.figures.scenario_kind import KindReading, ScenarioKind


# The steps an irq-latency sweep takes before it starts again (its round): more than the arming iteration and
# two of any kernel's loop here, so that each step of the loop is met in an ordinary iteration at least once
# where a tick falls into the other. Under QEMU a step is half an instruction: 2,048 instructions, 3.5 of
# FreeRTOS's signal loop (588); on simavr a cycle: 8,192, 4.6 of FreeRTOS's loop on the ATmega328P (1,780).
# On Ibex's RTL (Verilator) a cycle too: 8,192, 6.6 of FreeRTOS's loop on ibex (1,243 cycles; fewer on
# ibex-maxperf). 4,096 there (3.3 loops) left steps unmet: the 1 ms tick, every 50,000 cycles, fell into one
# sample in 30 and took the only ordinary iteration some steps had.
# irq-latency takes one round, then its tick round: one sample per step, whatever --samples says.
LATENCY_ROUND_STEPS = {"qemu": 4096, "simavr": 8192, "verilator": 8192}
# irq-ruler's loop is a dozen instructions (firmware/scenarios/irq-ruler.c): 256 steps meet each of its steps many
# times a round, and keep each sample's wait short. A round as long as irq-latency's would have each sample wait
# through a hundred of its loops on average, each a "loop" mark logged: past the run's allowance of watch events
# (run/runner.py) before 10,000 samples.
RULER_ROUND_STEPS = 256
# Seconds an irq-latency run may take beyond the usual limit (run/runner.py, default_time_limit), by
# simulator: on Ibex's RTL a sweep is about 110 M cycles (the round's 8,192 samples, each waiting up to the round
# and a loop, then the tick round's 1,088, each waiting up to a 50,000-cycle tick period), and the model runs
# about 1.5 M cycles a second alone on a core, half that on a busy machine; VexRiscv's tick period is 100,000
# cycles (1 ms at 100 MHz): its tick round alone is as long, and a loaded machine gave it a third of a core.
SWEEP_TIME_ALLOWANCE_S = {"verilator": 480.0}
# The tick round, where the board can aim at the tick: from this many steps before the tick's interrupt to
# TICK_ROUND_STEPS after it (under QEMU 32 and 512 instructions: FreeRTOS's tick handler and the switch it
# pends take about 300), one sample a tick.
TICK_ROUND_BEFORE_STEPS = 64
TICK_ROUND_STEPS = 1088
# watch events a tick round's sample may log: it waits up to a tick period, 39,062 instructions under QEMU
# (10 ms at 256 ns each), with a pass of the loop's top logged at each of its iterations (about 100 at least)
TICK_ROUND_EVENTS_PER_SAMPLE = 512


class InterruptLatency(ScenarioKind):
    """irq-latency and its ruler: the board's latency timer asserted at each step of a loop, one sample an
    assertion; every sample kept whatever ran in its window (the tick is part of the workload)."""

    def samples(self, asked: int | None) -> int | None:
        return sweep_samples(self.job) or asked

    def time_allowance(self) -> float:
        """irq-latency's sweep on its simulator (SWEEP_TIME_ALLOWANCE_S), as many times as a slow RAM lengthens
        its round; nothing for the ruler."""
        if not sweeps_every_phase(self.job):
            return 0.0
        return SWEEP_TIME_ALLOWANCE_S.get(self.job.target.simulator, 0.0) * slow_memory_rounds(self.job)

    def parameters(self, samples: int | None, config: Config) -> list[str]:
        """Beyond the switch window's, the sweep's step, as a fraction of latency-timer counts (half an
        instruction of QEMU's virtual time, or a cycle), its first delay (a step, or the least the board's code
        can arm), its round, and its tick round where the board can aim at the tick."""
        job = self.job
        step = job.target.latency_counts_per_step()
        first = max(job.target.latency_timer.least_counts, -(-step.numerator // step.denominator))
        found = [f"step_num={step.numerator}", f"step_den={step.denominator}", f"first={first}",
                 f"round={round_steps(job)}"]
        if tick_round_samples(job):
            before = -(-TICK_ROUND_BEFORE_STEPS * step.numerator // step.denominator)
            found += [f"tick_samples={tick_round_samples(job)}", f"tick_before={before}"]
        return super().parameters(samples, config) + found

    def watches(self, firmware_elf: Path) -> list[tuple[int, str]]:
        return watches(firmware_elf, self.job)

    def run_options(self, firmware_elf: Path) -> dict:
        return {**super().run_options(firmware_elf), "latency": True,
                "more_events": TICK_ROUND_EVENTS_PER_SAMPLE * tick_round_samples(self.job)}

    def reading(self, output: RunOutput, firmware_elf: Path) -> KindReading:
        found, facts = reading(self.job, firmware_elf, output, len(output.stream.samples))
        return KindReading(found, leaves_out_ticks=False, kept=facts.pop("kept"), facts=facts)


def sweeps_every_phase(job: Job) -> bool:
    """irq-latency's sweep decides its own samples: a round of the loop's steps, then the tick round."""
    return job.scenario.name == "irq-latency"


def slow_memory_rounds(job: Job) -> int:
    """How many rounds of a single-cycle RAM's length the sweep takes behind a slow RAM: its loop lengthens
    with the wait states (FreeRTOS's on ibex: 1,243 cycles at 0, 3,294 at 5 fetch wait states, where a single
    round of 8,192 steps left phases unmet), one more for every two of them."""
    memory = memory_settings(job.resolved_config())
    return 1 + max(memory.fetch_wait_states, memory.data_wait_states) // 2


def round_steps(job: Job) -> int:
    if not sweeps_every_phase(job):
        return RULER_ROUND_STEPS
    return LATENCY_ROUND_STEPS.get(job.target.simulator, LATENCY_ROUND_STEPS["simavr"]) * slow_memory_rounds(job)


def sweep_samples(job: Job) -> int | None:
    """The samples irq-latency takes, whatever --samples says (None for the ruler): one per step of
    a round, then the tick round's."""
    return round_steps(job) + tick_round_samples(job) if sweeps_every_phase(job) else None


def tick_round_samples(job: Job) -> int:
    """How many samples the tick round takes: where the board can aim at the tick, in irq-latency."""
    if not (job.target.latency_timer and job.target.latency_timer.tick_handler) or not sweeps_every_phase(job):
        return 0
    return TICK_ROUND_STEPS


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
    """The function, or the labelled code of an assembly routine, that holds the address; "?" where none."""
    for start, end, name in elf.code_regions(firmware_elf):
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


def _worst_of(groups: dict[str, list]) -> dict[str, dict]:
    """Groups of samples beside the distribution, each that has any: how many, their worst and their median."""
    return {name: {"samples": len(latencies), "worst": max(latencies),
                   "median": stats.statistics(latencies)["median"], "latencies": latencies}
            for name, latencies in groups.items() if latencies}


def tick_round_facts(job: Job, stream, summary: dict | None) -> dict | None:
    """The tick round (`summary`: its samples' _worst_of; each sample aimed at the tick: sample j asserted j
    steps after a point the sweep's tick_before counts ahead of the tick's interrupt, both timers counting
    the same clock): how many samples, the span they swept around the tick's interrupt, in the unit of a step's
    whole (instructions under QEMU, cycles on simavr), and the worst among them with its place."""
    count = int(stream.meta.get("latency_tick_samples", "0") or 0)
    if not count or not summary:
        return None
    latencies = summary["latencies"]
    per_step = job.target.latency_counts_per_step() / job.target.counts_per_unit(job.target.latency_timer.clock_hz)
    before = TICK_ROUND_BEFORE_STEPS

    def place(j: int):
        value = (j - before) * per_step
        return int(value) if value.denominator == 1 else float(value)

    worst = max(range(count), key=lambda j: latencies[j])
    return {**summary, "handler": job.target.latency_timer.tick_handler, "from": place(0),
            "to": place(count - 1), "unit": job.target.unit, "worst_at": place(worst)}


def reading(job: Job, firmware_elf: Path, output: RunOutput, samples: int) -> tuple[Reading, dict]:
    """The run's latencies as a Reading (nothing to subtract: the probe's offset is taken off each), and
    the Result's latency fields, with "kept": the samples the distribution is made of (irq-latency: one per
    step of the loop, see decode/latency.one_per_phase; other sweeps: all). A board read over its port logs
    no simulator's view: its probe's worst case then has no address, and no phases are known."""
    target = job.target
    loop_samples = samples - tick_round_samples(job) if sweeps_every_phase(job) else None
    probed = probe_latencies(job, output.stream) if job.method.name == "probe" else None
    if output.events is None and probed is not None:
        worst = int(np.argmax(probed))
        return (Reading(probed, [0] * samples, 0, []),
                {"kept": list(range(samples)),
                 "worst": {job.counted_in: probed[worst], "sample": worst, "samples": probed.count(probed[worst])}})
    # the simulator's view: what it saw, one sample per step of the loop, and the code the worst case fell in
    found: Sweep = sweep(output.events, target.simulator == "qemu", str(job), loop_samples)
    if len(found.latency) != samples:
        raise FirmwareFailed(f"{job}: the simulator saw {len(found.latency)} interrupts reach their handler for "
                             f"{samples} samples in the stream")
    latencies = found.latency if probed is None else probed
    covered, kept, ticked = found.covered, list(range(samples)), []
    if loop_samples is not None:  # the tick round and the samples a tick fell into: beside the distribution
        disturbed = ((output.stream.samples.column("flags") & TICK_IN_WINDOW) != 0).tolist()
        kept, ticked, covered = one_per_phase(found, disturbed, loop_samples)
        if not kept:
            raise FirmwareFailed(f"{job}: the sweep met no step of the loop in an iteration of the workload's own: "
                                 f"the loop is longer than the sweep's round of {round_steps(job):,} steps")
    kept_latencies = [latencies[k] for k in kept]
    addresses = [found.addresses[k] for k in kept]
    phases = [found.phases[k] for k in kept]
    worst = int(np.argmax(kept_latencies))
    # the latency most steps see is the core's own, with nothing in the way: a worst case no longer than that
    # was held by no code, wherever it was asserted
    usual = Counter(kept_latencies).most_common(1)[0][0]
    if loop_samples is not None:  # one sample per step: the held region is the run of steps that waited longer
        first_k, last_k, held_count = held_steps(phases, kept_latencies, worst, usual, found.period)
        first, last = addresses[first_k], addresses[last_k]
    else:
        first, last = masked_region(addresses, kept_latencies, addresses[worst])
    address = addresses[worst]
    facts = {
        "kept": kept,
        "worst": {job.counted_in: kept_latencies[worst], "address": f"0x{address:x}",
                  "function": function_at(firmware_elf, address), "sample": worst,
                  "samples": kept_latencies.count(kept_latencies[worst]),
                  "held_from": f"0x{first:x}", "held_to": f"0x{last:x}", "held": kept_latencies[worst] > usual},
        "phases": {"covered": covered, "period": found.period,
                   "steps": "instructions" if target.simulator == "qemu" else "cycles"},
        "sample_phases": phases,
        "sample_addresses": [f"0x{a:x}" for a in addresses],
    }
    if loop_samples is not None:
        facts["worst"].update({"step": phases[worst] % found.period if found.period else phases[worst],
                               "held_steps": held_count, "held_from_function": function_at(firmware_elf, first),
                               "held_to_function": function_at(firmware_elf, last)})
        facts["phases"]["one_per_phase"] = True
        beside = _worst_of({"tick": latencies[loop_samples:], "ticked": [latencies[k] for k in ticked]})
        tick = tick_round_facts(job, output.stream, beside.get("tick"))
        if tick:
            tick["addresses"] = [f"0x{a:x}" for a in found.addresses[loop_samples:]]
            facts["phases"]["tick"] = tick
        if "ticked" in beside:
            facts["phases"]["ticked"] = beside["ticked"]
    if probed is not None:  # the probe against the simulator's own view of the same interrupts
        apart = [p - s for p, s in zip(probed, found.latency)]
        facts["details"] = {"agreement": {"samples": samples, "equal": sum(1 for d in apart if d == 0),
                                          "least_difference": min(apart), "largest_difference": max(apart),
                                          "unit": job.counted_in}}
    bounds = None
    if found.least is not None and probed is None:
        bounds = {"min": ([found.least[k] for k in kept], [0] * len(kept)),
                  "max": ([found.most[k] for k in kept], [0] * len(kept))}
    return Reading(kept_latencies, [0] * len(kept), 0, [], bounds=bounds), facts
