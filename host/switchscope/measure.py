"""One measurement: build the firmware, run it, turn its stream into a result."""

from __future__ import annotations

from dataclasses import dataclass

from switchscope import __version__, analysis
from switchscope.build import OPTIMISATION, Firmware, build
from switchscope.catalog import Kernel, Method, Scenario, Target
from switchscope.errors import FirmwareFailed
from switchscope.runner import Progress, RunOutput, check_completed, run
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

    def __str__(self) -> str:
        return f"{self.kernel.name}/{self.target.name}/{self.scenario.name}/{self.method.name}"


def default_time_limit(samples: int) -> float:
    return BASE_TIME_LIMIT_S + samples * TIME_LIMIT_PER_SAMPLE_S


def _meta_int(stream: Stream, key: str, job: Job) -> int:
    try:
        return int(stream.meta[key])
    except (KeyError, ValueError):
        raise FirmwareFailed(f"{job}: the firmware did not report a valid {key} ({stream.meta.get(key)!r})") from None


def analyse(stream: Stream, firmware: Firmware, job: Job) -> dict:
    """The result of a completed run, in the JSON layout of `switchscope run --json`."""
    target = job.target
    if stream.meta.get("scenario") != job.scenario.name or stream.meta.get("kernel") != job.kernel.name:
        raise FirmwareFailed(f"{job}: the firmware says it is {stream.meta.get('kernel')}/{stream.meta.get('scenario')}")
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
    overhead = analysis.overhead(calibration)

    values, tags, excluded, clamped = [], [], [], 0
    for sample in stream.samples:
        value, was_clamped = analysis.corrected(units(sample.start, sample.end), overhead)
        clamped += was_clamped
        if sample.tick_in_window:
            excluded.append({"seq": sample.seq, "value": value, "reason": "tick_in_window"})
            continue
        values.append(value)
        tags.append(sample.tag)
    if not values:
        raise FirmwareFailed(f"{job}: every sample was excluded (the kernel tick fell into each window)")

    config = {key[len("config."):]: value for key, value in stream.meta.items() if key.startswith("config.")}
    config["optimisation"] = OPTIMISATION
    config.update(firmware.defines)
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
        "first": analysis.corrected(units(stream.samples[0].start, stream.samples[0].end), overhead)[0],
        "overhead": overhead,
        "calibration": calibration,
        "excluded": len(excluded),
        "excluded_samples": excluded,
        "clamped": clamped,
        "samples": values,
        "config": config,
        "toolchain": {"compiler": firmware.compiler, "cflags": list(firmware.cflags)},
        "simulator": {},
        "timer": {"modulus": modulus, "direction": "down" if counts_down else "up",
                  "clock_hz": clock_hz, "counts_per_unit": str(per_unit)},
        "firmware": {"flash_bytes": firmware.flash_bytes, "ram_bytes": firmware.ram_bytes,
                     "flash_limit": target.flash_bytes, "ram_limit": target.ram_bytes},
        "stream_problems": [str(p) for p in stream.problems],
        "switchscope_version": __version__,
    }
    ns_per_unit = target.ns_per_unit
    if ns_per_unit is not None:
        result["ns_per_unit"] = float(ns_per_unit)
        result["stats_ns"] = {key: value * float(ns_per_unit) for key, value in result["stats"].items()}
    if any(tags):
        result["sample_tags"] = tags
    return result


def measure(job: Job, samples: int, time_limit: float | None = None,
            progress: Progress | None = None, on_stage=None) -> dict:
    """Build, run and analyse one job; raises a SwitchscopeError subclass on failure."""
    if on_stage:
        on_stage("building")
    firmware = build(job.kernel, job.target, job.scenario)
    limit = time_limit if time_limit is not None else default_time_limit(samples)
    if on_stage:
        on_stage("running")
    output: RunOutput = run(job.target, firmware.elf, [f"samples={samples}"], samples, limit, progress)
    check_completed(output, str(job))
    result = analyse(output.stream, firmware, job)
    result["simulator"] = {"name": output.simulator, "options": output.options}
    result["wall_seconds"] = round(output.wall_seconds, 3)
    return result
