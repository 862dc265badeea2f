"""One measurement: build the firmware, run it, turn its stream into a Result."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from switchscope.build.firmware import Firmware, build
from switchscope.catalog import Target, configs
from switchscope.catalog.configs import Config
from switchscope.catalog.job import Job
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.decode import scope, stats, wire
from switchscope.decode.recording import RunOutput
from switchscope.decode.wire import Stream
from switchscope.figures import latency
from switchscope.figures.result import Result, Stats
from switchscope.run import flash, serial_port
from switchscope.run.runner import Progress, check_completed, run, simulator_of

# Bounds a run: the time to boot and calibrate, and a generous allowance per
# sample (a sample takes about 0.1 ms of QEMU's or simavr's time; each
# simulator module states its own allowance, the RTL's being larger).
BASE_TIME_LIMIT_S = 20.0
TIME_LIMIT_PER_SAMPLE_S = 0.002  # a board read over its port


def run_parameters(samples: int | None, tasks: int | None, config: Config) -> list[str]:
    """What the firmware is told of a run ("name=value"): the sample count and rotate's task count
    where given (else it keeps its defaults), and what the configuration's run options set."""
    return [*([f"samples={samples}"] if samples else []), *([f"tasks={tasks}"] if tasks else []),
            *configs.run_parameters(config)]


def default_time_limit(samples: int, target: Target | None = None) -> float:
    """A run's bound when none is given: on a simulator, its own allowance per sample."""
    per_sample = simulator_of(target).TIME_LIMIT_PER_SAMPLE_S if target is not None else TIME_LIMIT_PER_SAMPLE_S
    return BASE_TIME_LIMIT_S + samples * per_sample


MAX_SAMPLES = 2**32 - 1  # the firmware counts samples in 32 bits


def check_within_longest_run(samples: int, target: Target, option: str = "--samples", timeout: bool = True) -> None:
    """Before any work, where no --timeout is given (`timeout`: whether the command takes one): a count whose run, at the simulator's allowance per sample,
    would outlast the longest run it allows (an RTL's LONGEST_RUN_S) is refused, saying how many fit: the run
    would be stopped at its time limit anyway, the time spent for nothing."""
    simulator = simulator_of(target)
    longest = getattr(simulator, "LONGEST_RUN_S", None)
    if longest is None or default_time_limit(samples, target) <= longest:
        return
    per_sample = simulator.TIME_LIMIT_PER_SAMPLE_S
    fitting = int((longest - BASE_TIME_LIMIT_S) / per_sample)
    raise SwitchscopeError(
        f"{option} {samples:,} on {target.name}: its {simulator.NAME} run is allowed {per_sample * 1000:g} ms a "
        f"sample, {default_time_limit(samples, target) / 3600:,.1f} hours for these, and switchscope bounds a "
        f"run there to {longest / 3600:g} hour{'s' if longest != 3600 else ''}: at most {fitting:,} fit",
        f"give {option} {fitting:,} or fewer" + (", or a --timeout in seconds to wait longer" if timeout else
                                                   " (switchscope run takes a --timeout to wait longer)"))


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


def analyse(stream: Stream, firmware: Firmware, job: Job, output: RunOutput, samples: int) -> Result:
    """The Result of a completed run of `samples` samples."""
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
    latency_facts = {}
    seqs, tags = samples.column("seq"), samples.column("tag")
    if job.scenario.latency:
        reading, latency_facts = latency.reading(job, firmware.elf, output, len(samples))
        kept = np.asarray(latency_facts.pop("kept"), dtype=np.int64)  # irq-latency: one sample per phase
        flags, seqs, tags = flags[kept], seqs[kept], tags[kept]
    else:
        reading = job.method.reading(stream, output, target, str(job), job.counted_in)
    corrected = _less(reading.raw, reading.overheads)
    clamped = int(np.count_nonzero(corrected < 0))  # a raw reading below the method's cost: set to 0
    corrected = np.maximum(corrected, 0)
    in_window = (flags & wire.TICK_IN_WINDOW) != 0
    wrapped = (flags & wire.STAMP_WRAPPED) != 0  # the probe's stamps cannot say how long such a window was
    # an interrupt's latency is kept whatever ran in its window: the tick is part of the workload
    left_out = wrapped | (in_window if job.method.excludes_ticks and not job.scenario.latency else False)
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
        first=stats.corrected(int(reading.raw[0]), int(reading.overheads[0]))[0],
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
        scope=reading.extra.get("scope"),
        tasks=(job.tasks or 2) if rotate else None,  # 2: the firmware's default
        pairs=[[tag >> 8, tag & 0xFF] for tag in tags] if rotate else None,
        sample_tags=tags if not rotate and any(tags) else None,
        ticks_in_window=int(np.count_nonzero(in_window)),
        interfered=interfered,
        stream_problems=[str(p) for p in stream.problems],
        simulator={"name": output.simulator, "options": output.options},
        wall_seconds=round(output.wall_seconds, 3),
        **latency_facts,
    )


def measure(job: Job, samples: int, time_limit: float | None = None,
            progress: Progress | None = None, on_stage=None, vcd: Path | None = None) -> Result:
    """Build, run and analyse one job; raises a SwitchscopeError subclass on failure.
    With the scope method, `vcd` receives the pin's trace."""
    why = job.kernel.not_measured(job.target, job.scenario, job.method, job.counted_in)
    if why:
        raise SwitchscopeError(f"{job}: not applicable: {why}")
    if not 1 <= samples <= MAX_SAMPLES:
        raise SwitchscopeError(f"{job}: {samples} samples: the firmware takes 1 to {MAX_SAMPLES}")
    samples = latency.sweep_samples(job) or samples
    if on_stage:
        on_stage("building")
    config = job.resolved_config()
    firmware = build(job.kernel, job.target, job.scenario, job.method, config)
    limit = (time_limit if time_limit is not None
             else default_time_limit(samples, job.target) + latency.time_allowance(job))
    if on_stage:
        on_stage("running")
    parameters = run_parameters(samples, job.tasks, config) + latency.parameters(job)
    if job.scenario.latency:
        watches = latency.watches(firmware.elf, job)
    else:
        watches = job.method.watches(job.target, firmware.elf, str(job), job.counted_in)
    output: RunOutput = run(job.target, firmware.elf, parameters, samples, limit, progress,
                            watch_scope_pin=job.method.watches_scope_pin, watches=watches,
                            unit=job.counted_in, stamps=job.method.stamps_in_cycles,
                            latency=job.scenario.latency, more_events=latency.TICK_ROUND_EVENTS_PER_SAMPLE
                            * latency.tick_round_samples(job))
    check_completed(output, str(job))
    result = analyse(output.stream, firmware, job, output, samples)
    if vcd is not None and output.edges is not None:
        timescale, ticks = job.target.vcd_scale(result.unit)
        steps = " (time steps are cycles: the clock's period is no whole number of ps)" \
            if job.target.vcd_steps_are_cycles(result.unit) else ""
        scope.write_vcd(vcd, [(e.time, e.level) for e in output.edges], result.scope["pin"] or "pin",
                        timescale, ticks,
                        f"switchscope {job}: scope pin{steps}, 1 {result.unit} = {ticks} x {timescale}")
        result.scope["vcd"] = str(vcd)
    return result


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
    firmware = build(job.kernel, job.target, job.scenario, job.method, config)
    limit = time_limit if time_limit is not None else default_time_limit(samples or 100_000)
    flashing = None
    samples = latency.sweep_samples(job) or samples
    if flash_first:  # the image carries the run's parameters: a chip has no simulator to pass them
        parameters = run_parameters(samples, job.tasks, config) + latency.parameters(job)
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
    check_completed(output, str(job))
    return analyse(output.stream, firmware, job, output, samples or board_samples(output.stream))


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
