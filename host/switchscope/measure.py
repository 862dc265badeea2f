"""One measurement: build the firmware, run it, turn its stream into a result."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from switchscope import __version__, analysis, configs, scope
from switchscope.build import METHOD_DEFINES, Firmware, build
from switchscope.configs import Config
from switchscope.catalog import Kernel, Method, Scenario, Target
from switchscope.errors import FirmwareFailed, SwitchscopeError
from switchscope.runner import Edge, Event, Progress, RunOutput, check_completed, run, section_words
from switchscope.wire import Stream

# Bounds a run: the time to boot and calibrate, and a generous allowance per
# sample (a simulated sample takes about 0.1 ms of host time).
BASE_TIME_LIMIT_S = 20.0
TIME_LIMIT_PER_SAMPLE_S = 0.002


@dataclass(frozen=True)
class Job:
    kernel: Kernel
    target: Target
    scenario: Scenario
    method: Method
    config: Config | None = None  # None: the default configuration
    tasks: int | None = None  # rotate only: how many tasks

    def resolved_config(self) -> Config:
        return self.config or configs.resolve({}, self.kernel, self.target, self.scenario, self.tasks)

    def __str__(self) -> str:
        name = f"{self.kernel.name}/{self.target.name}/{self.scenario.name}/{self.method.name}"
        if self.tasks:
            name += f"/{self.tasks} tasks"
        if self.config:
            defaults = configs.resolve({}, self.kernel, self.target, self.scenario, self.tasks)
            if self.config != defaults:
                name += f" [{self.config.label(defaults)}]"
        return name


def default_time_limit(samples: int) -> float:
    return BASE_TIME_LIMIT_S + samples * TIME_LIMIT_PER_SAMPLE_S


def _meta_int(stream: Stream, key: str, job: Job) -> int:
    try:
        return int(stream.meta[key])
    except (KeyError, ValueError):
        raise FirmwareFailed(f"{job}: the firmware did not report a valid {key} ({stream.meta.get(key)!r})") from None


def _probe_values(stream: Stream, job: Job) -> tuple[list[int], int, list[int], dict]:
    """From the timer stamps: the raw reading of each sample in units, the
    probe's overhead, the calibration readings, and the timer's facts."""
    target = job.target
    modulus = _meta_int(stream, "stamp_modulus", job)
    clock_hz = _meta_int(stream, "stamp_clock_hz", job)
    counts_down = stream.meta.get("stamp_direction") == "down"
    per_unit = target.counts_per_unit(clock_hz)

    def units(start: int, end: int) -> int:
        try:
            return analysis.counts_to_units(analysis.elapsed_counts(start, end, modulus, counts_down), per_unit)
        except ValueError as error:
            raise FirmwareFailed(f"{job}: corrupt stamp in the stream: {error}") from None

    calibration = [units(start, end) for start, end in stream.calibration]
    if not calibration:
        raise FirmwareFailed(f"{job}: the firmware sent no calibration of the probe")
    raw = [units(sample.start, sample.end) for sample in stream.samples]
    timer = {"modulus": modulus, "direction": "down" if counts_down else "up",
             "clock_hz": clock_hz, "counts_per_unit": str(per_unit)}
    return raw, analysis.overhead(calibration), calibration, timer


def _scope_values(stream: Stream, edges: list[Edge] | None, job: Job) -> tuple[list[int], list[int], dict]:
    """tCD and tAB per sample from the simulator's record of the scope pin."""
    if edges is None:
        raise FirmwareFailed(f"{job}: the simulator recorded no scope pin changes")
    try:
        found = scope.measurements([(e.time, e.level) for e in edges])[_warmup_windows(stream):]
    except scope.ScopeError as error:
        raise FirmwareFailed(f"{job}: {error}") from None
    if len(found) != len(stream.samples):
        raise FirmwareFailed(f"{job}: the scope pin shows {len(found)} measurements for "
                             f"{len(stream.samples)} samples in the stream")
    t_cd = [int(m.t_cd) for m in found]
    t_ab = [int(m.t_ab) for m in found]
    return t_cd, t_ab, {"pin": stream.meta.get("scope_pin"), "edges": len(edges)}


def marker_watches(job: Job, firmware: Firmware) -> list[tuple[int, str]]:
    """The addresses of the firmware's markers, from the ELF sections
    .debug_switchscope_open and .debug_switchscope_close (the C and the Rust
    probe headers put them there), opening ones first: an empty window has both
    on one instruction, and must read open, then close."""
    watches = [(address, name) for name in ("open", "close")
               for address in section_words(job.target, firmware.elf, f".debug_switchscope_{name}")]
    if not any(name == "open" for _, name in watches) or not any(name == "close" for _, name in watches):
        raise FirmwareFailed(f"{job}: the firmware lists no markers "
                             "(sections .debug_switchscope_open and .debug_switchscope_close)")
    return watches


def _warmup_windows(stream: Stream) -> int:
    """Windows the firmware opened before its first sample (rotate's warm-up)."""
    return int(stream.meta.get("warmup_windows", "0"))


def _marker_values(stream: Stream, events: list[Event] | None, job: Job) -> list[int]:
    found, unpaired = analysis.intervals([(e.time, e.name) for e in events or []], "open", "close")
    found = found[_warmup_windows(stream):]
    if len(found) != len(stream.samples) or unpaired:
        raise FirmwareFailed(f"{job}: the markers give {len(found)} windows ({unpaired} openings without a "
                             f"closing) for {len(stream.samples)} samples in the stream")
    return found


def analyse(stream: Stream, firmware: Firmware, job: Job, edges: list[Edge] | None = None,
            events: list[Event] | None = None) -> dict:
    """The result of a completed run, in the JSON layout of `switchscope run --json`."""
    target = job.target
    if stream.meta.get("scenario") != job.scenario.name or stream.meta.get("kernel") != job.kernel.name:
        raise FirmwareFailed(f"{job}: the firmware says it is {stream.meta.get('kernel')}/{stream.meta.get('scenario')}")
    if stream.meta.get("method", "probe") != job.method.name:
        raise FirmwareFailed(f"{job}: the firmware was built for the {stream.meta.get('method')} method")

    unclosed = [sample.seq for sample in stream.samples if sample.not_closed]
    if unclosed:
        raise FirmwareFailed(
            f"{job}: {len(unclosed)} samples (the first: {unclosed[0]}) were recorded before their window "
            "was closed: the task that closes it had not run yet, so the scenario does not switch where it "
            "says it does", "this is a bug in the scenario or its mapping onto the kernel")

    extra: dict = {}
    if job.method.name in ("marker", "print"):
        raw = _marker_values(stream, events, job)
        overhead, calibration, overheads = 0, [], [0] * len(raw)
    elif job.method.name == "scope":
        raw, overheads, extra["scope"] = _scope_values(stream, edges, job)
        calibration = overheads
        overhead = Counter(overheads).most_common(1)[0][0]
    else:
        raw, overhead, calibration, extra["timer"] = _probe_values(stream, job)
        overheads = [overhead] * len(raw)

    # A window the tick fell into is left out, except when printing inside the
    # window is what is being shown: catching ticks is part of what it costs.
    exclude_ticks = job.method.name != "print"
    values, tags, excluded, clamped, ticks = [], [], [], 0, 0
    for sample, raw_value, sample_overhead in zip(stream.samples, raw, overheads):
        value, was_clamped = analysis.corrected(raw_value, sample_overhead)
        clamped += was_clamped
        ticks += sample.tick_in_window
        if sample.tick_in_window and exclude_ticks:
            excluded.append({"seq": sample.seq, "value": value, "reason": "tick_in_window"})
            continue
        values.append(value)
        tags.append(sample.tag)
    if not values:
        raise FirmwareFailed(f"{job}: every sample was excluded (the kernel tick fell into each window)")

    # what the firmware reports of itself, then the options it was built with
    config = {key[len("config."):]: value for key, value in stream.meta.items() if key.startswith("config.")}
    config["optimisation"] = firmware.config.as_dict().get("opt", "release profile (opt-level 2, LTO)")
    options = firmware.config.as_dict()
    result = {
        "kernel": job.kernel.name,
        "kernel_version": stream.meta.get("kernel_version"),
        "kernel_source": firmware.kernel_source,
        "target": target.name,
        "cpu": stream.meta.get("cpu", target.cpu),
        "f_cpu_hz": int(stream.meta.get("f_cpu_hz", target.f_cpu_hz)),
        "scenario": job.scenario.name,
        "method": job.method.name,
        "unit": target.unit,
        "count": len(values),
        "stats": analysis.statistics(values),
        "first": analysis.corrected(raw[0], overheads[0])[0],
        "overhead": overhead,
        "calibration": calibration if job.method.name == "probe" else sorted(set(calibration)),
        "excluded": len(excluded),
        "excluded_samples": excluded,
        "ticks_in_window": ticks,
        "clamped": clamped,
        "samples": values,
        "config": config,
        "options": options,
        "toolchain": {"compiler": firmware.compiler, "cflags": list(firmware.cflags)},
        "simulator": {},
        **extra,
        "firmware": {"flash_bytes": firmware.flash_bytes, "ram_bytes": firmware.ram_bytes,
                     "flash_limit": target.flash_bytes, "ram_limit": target.ram_bytes},
        "stream_problems": [str(p) for p in stream.problems],
        "switchscope_version": __version__,
    }
    ns_per_unit = target.ns_per_unit
    if ns_per_unit is not None:
        result["ns_per_unit"] = float(ns_per_unit)
        result["stats_ns"] = {key: value * float(ns_per_unit) for key, value in result["stats"].items()}
    if job.scenario.name == "rotate":
        result["tasks"] = job.tasks or 2  # the firmware's default
        result["pairs"] = [[tag >> 8, tag & 0xFF] for tag in tags]
    elif any(tags):
        result["sample_tags"] = tags
    return result


def measure(job: Job, samples: int, time_limit: float | None = None,
            progress: Progress | None = None, on_stage=None, vcd: Path | None = None) -> dict:
    """Build, run and analyse one job; raises a SwitchscopeError subclass on failure.
    With the scope method, `vcd` receives the pin's trace."""
    why = job.kernel.not_measured(job.target, job.scenario, job.method)
    if why:
        raise SwitchscopeError(f"{job}: not applicable: {why}")
    if on_stage:
        on_stage("building")
    firmware = build(job.kernel, job.target, job.scenario, job.method.name, job.resolved_config())
    limit = time_limit if time_limit is not None else default_time_limit(samples)
    if on_stage:
        on_stage("running")
    watches = marker_watches(job, firmware) if job.method.name in ("marker", "print") else []
    parameters = [f"samples={samples}"] + ([f"tasks={job.tasks}"] if job.tasks else [])
    output: RunOutput = run(job.target, firmware.elf, parameters, samples, limit, progress,
                            watch_scope_pin=job.method.name == "scope", watches=watches)
    check_completed(output, str(job))
    result = analyse(output.stream, firmware, job, output.edges, output.events)
    if vcd is not None and output.edges is not None:
        timescale, ticks = job.target.vcd_scale()
        scope.write_vcd(vcd, [(e.time, e.level) for e in output.edges], result["scope"]["pin"] or "pin",
                        timescale, ticks, f"switchscope {job}: scope pin, 1 {job.target.unit} = {ticks} x {timescale}")
        result["scope"]["vcd"] = str(vcd)
    result["simulator"] = {"name": output.simulator, "options": output.options}
    result["wall_seconds"] = round(output.wall_seconds, 3)
    return result
