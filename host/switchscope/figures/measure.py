"""One measurement: build the firmware, run it, turn its stream into a Result."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from switchscope.build.firmware import Firmware, build
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.decode import scope, wire
from switchscope.decode.recording import RunOutput
from switchscope.decode.wire import Stream
from switchscope.figures import kinds, memory_used, thread_metric
from switchscope.figures.scenario_kind import KindReading
from switchscope.figures.result import Result, Stats
from switchscope.run import flash, serial_port
from switchscope.run.runner import Progress, default_time_limit, run

MAX_SAMPLES = 2**32 - 1  # the firmware counts samples in 32 bits


def _check_identity(stream: Stream, job: Job, samples: int) -> None:
    """The firmware must be what was asked for, on the board its board.toml
    describes, measuring as many samples as were asked for."""
    meta = stream.meta
    if meta.get("samples") != str(samples) or len(stream.samples) != samples:
        raise FirmwareFailed(f"{job}: {samples} samples were asked for; the firmware says it measures "
                             f"{meta.get('samples')} and sent {len(stream.samples)}")
    if meta.get("scenario") != job.scenario.name or meta.get("kernel") != job.kernel.name:
        raise FirmwareFailed(f"{job}: the firmware says it is {meta.get('kernel')}/{meta.get('scenario')}")
    if meta.get("method", "probe") != job.method.name:
        raise FirmwareFailed(f"{job}: the firmware was built for the {meta.get('method')} method")
    for key, expected in job.target.expected_meta().items():
        if key in meta and meta[key] != expected:
            raise FirmwareFailed(
                f"{job}: the firmware says {key}={meta[key]}, {job.target.directory / 'board.toml'} says {expected}",
                "the board's C or Rust code and its board.toml must state the same facts: correct one of them")


def _named_timer(timer: dict | None, name: str) -> dict | None:
    """The probe's timer facts with the timer's name (SysTick, Timer1, DWT), as the firmware gave it."""
    return {"name": name, **timer} if timer is not None else None


def _less(raw, overheads) -> np.ndarray:
    """Each raw reading less its method's cost, sample by sample."""
    return np.asarray(raw, dtype=np.int64) - np.asarray(overheads, dtype=np.int64)


def analyse(firmware: Firmware, job: Job, output: RunOutput, samples: int, read: KindReading) -> Result:
    """The Result of a completed run of `samples` samples, read by the job's kind of scenario (`read`)."""
    stream = output.stream
    _check_identity(stream, job, samples)
    samples = stream.samples
    flags = samples.column("flags")
    unclosed = np.flatnonzero(flags & wire.NOT_CLOSED)
    if len(unclosed):
        raise FirmwareFailed(
            f"{job}: {len(unclosed)} samples (the first: {samples[int(unclosed[0])].seq}) were recorded before their "
            "window was closed: the task that closes it had not run yet, so the scenario does not switch where it "
            "says it does", "this is a bug in the scenario or its mapping onto the kernel")

    target = job.target
    seqs, tags = samples.column("seq"), samples.column("tag")
    reading = read.reading
    if read.kept is not None:  # e.g. irq-latency: one sample per step of the loop
        kept = np.asarray(read.kept, dtype=np.int64)
        flags, seqs, tags = flags[kept], seqs[kept], tags[kept]
    corrected = _less(reading.raw, reading.overheads)
    clamped = int(np.count_nonzero(corrected < 0))  # a raw reading below the method's cost: set to 0
    corrected = np.maximum(corrected, 0)
    in_window = (flags & wire.TICK_IN_WINDOW) != 0
    wrapped = (flags & wire.STAMP_WRAPPED) != 0  # the probe's stamps cannot say how long such a window was
    left_out = wrapped | (in_window if read.leaves_out_ticks else False)
    reasons = np.where(wrapped, "stamp_wrapped", "tick_in_window")[left_out].tolist()
    excluded = [{"seq": seq, "value": value, "reason": reason} for seq, value, reason in
                zip(seqs[left_out].tolist(), corrected[left_out].tolist(), reasons)]
    values = corrected[~left_out].tolist()
    tags = tags[~left_out].tolist()
    loaded = (flags[~left_out] & wire.LOAD_IN_WINDOW) != 0  # kept: what the load does is the point
    loaded_run = stream.meta.get("config.load", "none") != "none"
    interfered = np.flatnonzero(loaded).tolist() if loaded_run else None
    if not values:
        why = "the stamp timer wrapped inside" if wrapped.all() else "the kernel tick fell into"
        raise FirmwareFailed(f"{job}: every sample was excluded ({why} each window)")
    bounds = None
    if reading.bounds:  # over the same kept windows: the least and the most the core's manual allows
        bounds = {side: Stats.of(np.maximum(_less(raw, overheads), 0)[~left_out]).as_dict()
                  for side, (raw, overheads) in reading.bounds.items()}

    suite_test = thread_metric.facts(stream.meta, target, job.counted_in)
    if suite_test and suite_test["loops_per_round"] != job.scenario.loops_per_round:
        raise FirmwareFailed(f"{job}: the firmware counts {suite_test['loops_per_round']} loops a round, and "
                             f"{job.scenario.name} counts {job.scenario.loops_per_round} (catalog/scenarios.py)")

    # what the firmware reports of itself, then what the code was optimised for
    config = {key[len("config."):]: value for key, value in stream.meta.items() if key.startswith("config.")}
    config["optimisation"] = firmware.optimisation
    rotate = job.scenario.name == "rotate"
    unit = job.counted_in
    return Result(
        kind="scenario",
        scenario=job.scenario.name,
        method=job.method.name,
        unit=unit,
        timing_model=target.timing_model_for(unit),
        bounds=bounds,
        samples=values,
        overhead=reading.overhead,
        first=int(corrected[0]),
        excluded_samples=excluded,
        clamped=clamped,
        kernel=job.kernel.name,
        kernel_version=stream.meta.get("kernel_version"),
        kernel_source=firmware.kernel_source,
        target=target.name,
        cpu=target.cpu,
        f_cpu_hz=target.f_cpu_hz,
        calibration=reading.calibration,
        config=config,
        options=firmware.config.as_dict(),
        toolchain={"compiler": firmware.compiler, "cflags": list(firmware.cflags)},
        firmware={"flash_bytes": firmware.flash_bytes, "ram_bytes": firmware.ram_bytes,
                  "flash_limit": target.flash_bytes, "ram_limit": target.ram_bytes},
        timer=_named_timer(reading.extra.get("timer"), stream.meta.get("stamp_timer", target.stamp_timer)),
        memory=memory_used.record(target, unit, configs.memory_settings(firmware.config)),
        scope=reading.extra.get("scope"),
        tasks=(job.tasks or 2) if rotate else None,  # 2: the firmware's default
        pairs=[[tag >> 8, tag & 0xFF] for tag in tags] if rotate else None,
        sample_tags=tags if not rotate and any(tags) else None,
        thread_metric=suite_test,
        ticks_in_window=int(np.count_nonzero(in_window)),
        interfered=interfered,
        stream_problems=[str(p) for p in stream.problems],
        simulator={"name": output.simulator, "options": output.options},
        wall_seconds=round(output.wall_seconds, 3),
        **read.facts,
    )


def measure(job: Job, samples: int, time_limit: float | None = None,
            progress: Progress | None = None, on_stage=None, vcd: Path | None = None) -> Result:
    """Build, run and analyse one job; raises a SwitchscopeError subclass on failure.
    With the scope method, `vcd` receives the pin's trace."""
    samples, kind = _measurable(job, samples), kinds.of(job)
    if on_stage:
        on_stage("building")
    config = job.resolved_config()
    firmware = build(job.kernel, job.target, job.scenario, job.method, config)
    if on_stage:
        on_stage("running")
    planned = kind.planned_run(samples, config, time_limit, firmware.elf)
    output: RunOutput = run(job.target, firmware.elf, planned.parameters, planned.samples, planned.time_limit,
                            progress, **planned.options)
    output.check_completed(str(job))
    result = analyse(firmware, job, output, planned.samples, kind.reading(output, firmware.elf))
    if vcd is not None and output.edges is not None:  # the scope pin's trace, its time steps in the result's unit
        timescale, ticks = job.target.vcd_scale(result.unit)
        steps = " (time steps are cycles: the clock's period is no whole number of ps)" \
            if job.target.vcd_steps_are_cycles(result.unit) else ""
        scope.write_vcd(vcd, [(e.time, e.level) for e in output.edges], result.scope["pin"] or "pin", timescale,
                        ticks, f"switchscope {job}: scope pin{steps}, 1 {result.unit} = {ticks} x {timescale}")
        result.scope["vcd"] = str(vcd)
    return result


def _measurable(job: Job, samples: int) -> int:
    """The sample count asked for, once the job is known to be measurable and the count one the firmware takes."""
    why = job.kernel.not_measured(job.target, job.scenario, job.method, job.counted_in)
    if why:
        raise SwitchscopeError(f"{job}: not applicable: {why}")
    if not 1 <= samples <= MAX_SAMPLES:
        raise SwitchscopeError(f"{job}: {samples} samples: the firmware takes 1 to {MAX_SAMPLES}")
    return samples


def board_samples(stream: Stream) -> int:
    """How many samples a board's image measures, as its stream says."""
    try:
        return int(stream.meta.get("samples", ""))
    except ValueError:
        raise FirmwareFailed(f"the board's stream does not say how many samples it measures "
                             f"(samples={stream.meta.get('samples')!r})") from None


def measure_on_port(job: Job, port: str, baud: int, samples: int | None, flash_first: bool,
                    time_limit: float | None = None, progress: Progress | None = None, on_stage=None) -> Result:
    """Build the job's image, flash it into the board at `port` (unless not `flash_first`: the board
    runs it already), and read one run from the port. `samples`: None takes what the image measures."""
    why = job.kernel.not_measured(job.target, job.scenario, job.method, job.counted_in)
    if why:
        raise SwitchscopeError(f"{job}: not applicable: {why}")
    if job.method.name != "probe":
        raise SwitchscopeError(f"{job}: over a serial line only the probe method measures",
                               "the scope method needs the pin recorded by a logic analyzer (then switchscope "
                               "analyze), the marker method a simulator")
    if flash_first and job.target.real_board is None:
        raise SwitchscopeError(f"{job.target.name} is no real board switchscope can flash",
                               "flash its image by other means, then read the board with --no-flash")
    config = job.resolved_config()
    forced = configs.memory_settings(config)
    if forced.wait_states is not None or forced.accelerator is not None:
        raise SwitchscopeError(f"{job}: wait_states and accelerator force the timing model's flash, and a board's "
                               "own flash runs as its firmware programs it",
                               "measure the what-if on the simulator (leave out --port), or the chip as shipped "
                               "(leave out wait_states and accelerator)")
    firmware = build(job.kernel, job.target, job.scenario, job.method, config)
    limit = time_limit if time_limit is not None else default_time_limit(samples or 100_000)
    flashing = None
    samples = kinds.of(job).samples(samples)
    if flash_first:  # the image carries the run's parameters: a chip has no simulator to pass them
        parameters = kinds.of(job).parameters(samples, config)
        image = flash.with_parameters(firmware.elf, parameters)
        if job.target.real_board.flashes_through_port:  # the bootloader has the port: flash, then read
            if on_stage:
                on_stage("flashing")
            flash.flash(job.target, image, port)
        else:  # through a debug probe, once the port is open: the run that follows its reset is read whole
            flashing = flash.Flashing(job.target, image, port)
    if on_stage:
        on_stage("reading")
    try:
        reading = serial_port.read_run(port, baud, limit + (flash.FLASH_TIME_LIMIT_S if flashing else 0), progress,
                                       alongside=flashing)
    finally:
        if flashing:
            flashing.close()
    job, stamps = counted_over_port(job, reading.stream)
    board = job.target.real_board.name if job.target.real_board else job.target.name
    skipped = f"; {reading.skipped} bytes before the run skipped" if reading.skipped else ""
    output = RunOutput(stream=reading.stream, exit_code=0, stopped=None, stderr="", wall_seconds=reading.seconds,
                       simulator=f"{board} at {port}", options=f"{baud} baud{skipped}; {stamps}")
    output.check_completed(str(job))
    return analyse(firmware, job, output, samples or board_samples(output.stream), kinds.of(job).reading(output, firmware.elf))


def counted_over_port(job: Job, stream: Stream) -> tuple[Job, str]:
    """The job as what was at the port's far end counts, and how it stamped. The stream names its stamp
    timer: the DWT cycle counter counts only on a chip (true cycles); SysTick on a board QEMU models is
    QEMU's (instructions, under -icount: the timing model's cycles need the simulator's own log)."""
    target = job.target
    timer = stream.meta.get("stamp_timer", target.stamp_timer)
    if timer == "DWT":
        chip = dataclasses.replace(target, simulator="silicon", unit="cycles", default_unit=None, timing_model=None)
        return dataclasses.replace(job, target=chip, unit="cycles"), "stamps: DWT cycle counter (silicon)"
    if target.simulator == "qemu":
        if job.unit == "cycles":
            raise FirmwareFailed(f"{job}: the board stamped with {timer}, which on QEMU's model counts instructions",
                                 "read it with --unit instructions, or measure it simulated (without --port) for "
                                 "the timing model's cycles")
        return dataclasses.replace(job, unit="instructions"), f"stamps: {timer} (QEMU's model: instructions)"
    return job, f"stamps: {timer}"
