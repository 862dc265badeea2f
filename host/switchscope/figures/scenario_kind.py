"""A kind of scenario: what a measurement asks of a scenario beyond its build.
The measure path (figures/measure.py) asks the job's kind, and nothing else,
how many samples to take, how long the run may take beyond the usual bound,
what to tell the firmware, what the simulator must watch and log, and how
the run becomes one reading per sample. A switch window is the kind every
scenario is unless it says otherwise (catalog Scenario.kind); an interrupt's
latency swept over a loop is another (figures/latency.py). A new kind is one
module: a subclass of ScenarioKind, registered in figures/kinds.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from switchscope.catalog import configs
from switchscope.catalog.configs import Config
from switchscope.catalog.job import Job
from switchscope.decode.methods import Reading
from switchscope.decode.recording import RunOutput
from switchscope.run.runner import default_time_limit


@dataclass
class PlannedRun:
    """A run as the kind plans it: the samples the firmware takes, the run's bound in seconds, what the firmware
    is told ("name=value"), and what the simulator watches and logs (run/runner.run's keywords)."""
    samples: int
    time_limit: float
    parameters: list[str]
    options: dict


@dataclass
class KindReading:
    """What a kind makes of a completed run: the method's Reading, whether a sample the kernel tick fell into is
    left out of the distribution, the samples of the stream it is made of (None: all of them, in order), and
    the fields the kind adds to the Result."""
    reading: Reading
    leaves_out_ticks: bool
    kept: list[int] | None = None
    facts: dict = field(default_factory=dict)


class ScenarioKind:
    """A window a task switch falls in, opened and closed by the scenario's tasks and read by the job's method.
    Every answer is the switch window's; a kind overrides what differs."""

    def __init__(self, job: Job):
        self.job = job

    def samples(self, asked: int | None) -> int | None:
        """The samples the firmware takes when `asked` for that many (None: what the image measures)."""
        return asked

    def time_allowance(self) -> float:
        """Seconds the run may take beyond the simulator's usual bound for its samples."""
        return 0.0

    def parameters(self, samples: int | None, config: Config) -> list[str]:
        """What the firmware is told of a run ("name=value"): the sample count (as samples() decided it) and
        rotate's task count where given (else it keeps its defaults), and what the configuration's run options
        set."""
        tasks = self.job.tasks
        return [*([f"samples={samples}"] if samples else []), *([f"tasks={tasks}"] if tasks else []),
                *configs.run_parameters(config)]

    def watches(self, firmware_elf: Path) -> list[tuple[int, str]]:
        """The (code address, name) pairs the simulator logs each time execution reaches one."""
        job = self.job
        return job.method.watches(job.target, firmware_elf, str(job), job.counted_in)

    def run_options(self, firmware_elf: Path) -> dict:
        """What the simulator watches and logs (run/runner.run's keywords)."""
        job = self.job
        return {"watches": self.watches(firmware_elf), "watch_scope_pin": job.method.watches_scope_pin,
                "unit": job.counted_in, "stamps": job.method.stamps_in_cycles}

    def planned_run(self, samples: int, config: Config, time_limit: float | None, firmware_elf: Path) -> PlannedRun:
        """The simulated run of `samples` asked for, bounded by `time_limit` seconds (None: the simulator's
        allowance for the samples, and the kind's)."""
        samples, memory = self.samples(samples), configs.memory_settings(config)
        if time_limit is None:
            time_limit = default_time_limit(samples, self.job.target, memory) + self.time_allowance()
        return PlannedRun(samples, time_limit, self.parameters(samples, config),
                          {**self.run_options(firmware_elf), "memory": memory})

    def reading(self, output: RunOutput, firmware_elf: Path) -> KindReading:
        """The run's readings, one per kept sample."""
        job = self.job
        return KindReading(job.method.reading(output.stream, output, job.target, str(job), job.counted_in),
                           leaves_out_ticks=job.method.excludes_ticks)
