"""The measurements the pages' figures come from: each a few switchscope
command lines, run as a user runs them (`python -m switchscope`, this
checkout's host package first on the path), their JSON read back.

A run states the sample count its page gives (`samples`) and, where the
figures it feeds do not depend on it (every switch figure has zero spread on
the simulators), the smaller count a check may take (`check_samples`); the
renderers mark what does depend on it (pages_text.counted).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pages_text import CHECKOUT

PLACEHOLDER = re.compile(r"\{(json|dir):([\w.-]+)\}")
CORTEX_M_TARGETS = ("mps2-an385", "mps2-an386", "lm3s6965evb", "stm32vldiscovery", "netduinoplus2")
CHIPS = ("netduinoplus2", "nucleo-l432kc", "bluepill")  # the targets with a flash model: the chips as shipped
CHIPS_WITH_CACHES = ("netduinoplus2", "nucleo-l432kc")  # cache=cold empties something
FLASH_BREAKDOWN_SCENARIOS = ("resume", "signal", "yield", "isr")
FLASH_METHOD_SCENARIOS = ("resume", "signal", "yield", "isr")
SWITCH_SCENARIOS = ("resume", "signal", "yield", "isr", "rotate", "sem-shuffle", "deadlock-raise", "deadlock-release",
                    "msg")
SLOW_RAM = "fetch_wait_states=2,data_wait_states=2"  # VexRiscv's RAM as slow as a flash at a few wait states


@dataclass(frozen=True)
class Run:
    name: str
    what: str
    commands: tuple[tuple[str, ...], ...]  # switchscope arguments; {samples}, {json:NAME}, {dir:NAME} filled in
    samples: int | None = None  # the count the page states
    check_samples: int | None = None  # a check's count, where the figures do not depend on it (None: the page's)
    statuses: tuple[int, ...] = (0,)  # exit statuses that mean it worked (compare says 1 for a slower figure)
    warm: bool = False  # its times are stated: run it once first, untimed, so that no time includes a build


@dataclass(frozen=True)
class Block:
    """A figure block: the runs its figures come from, and how it is written from them."""
    name: str
    runs: tuple[str, ...]
    render: Callable[[dict[str, "Outcome"]], str]
    slow: bool = False  # minutes of measuring for times only: rewritten with --slow or --only


@dataclass
class Outcome:
    run: Run
    samples: int | None
    files: dict[str, list[dict]] = field(default_factory=dict)  # {json:NAME} or {dir:NAME}: the results it holds
    outputs: list[str] = field(default_factory=list)  # each command's standard output
    seconds: list[float] = field(default_factory=list)  # each command's wall time
    not_applicable: list[dict] = field(default_factory=list)  # the combinations its runs said n/a, and why

    @property
    def at_page_count(self) -> bool:
        return self.samples == self.run.samples

    @property
    def results(self) -> list[dict]:
        return [result for results in self.files.values() for result in results]

    def to_json(self) -> dict:
        return {"run": self.run.name, "samples": self.samples, "files": self.files, "outputs": self.outputs,
                "seconds": self.seconds, "not_applicable": self.not_applicable}


def invoke(arguments: list[str], statuses=(0,)) -> tuple[str, float]:
    """Run `switchscope ARGUMENTS` from this checkout, or a bench script (`bench/NAME.py ARGUMENTS`): its
    standard output and wall time."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(CHECKOUT / "host"),
                                                                            os.environ.get("PYTHONPATH")]))}
    command = ([sys.executable, str(CHECKOUT / arguments[0]), *arguments[1:]] if arguments[0].endswith(".py")
               else [sys.executable, "-m", "switchscope", *arguments])
    started = time.monotonic()
    finished = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=CHECKOUT)
    seconds = time.monotonic() - started
    if finished.returncode not in statuses:
        raise RuntimeError(f"{' '.join(arguments)} exited {finished.returncode}:\n"
                           f"{finished.stderr[-3000:]}")
    return finished.stdout, seconds


def _results_in(path: Path) -> list[dict]:
    if path.is_file():
        return json.loads(path.read_text())["results"]
    found = []
    for file in sorted(path.rglob("*.json")):
        document = json.loads(file.read_text())
        if isinstance(document, dict) and "results" in document:
            found += document["results"]
    return found


def measure(run: Run, quick: bool, scratch: Path, timing: bool = True) -> Outcome:
    """Run every command of `run`, at the page's sample count or (quick) at the check's; `timing`: its times
    will be written, so a run whose times a page states first builds what it needs, untimed."""
    samples = run.check_samples if quick and run.check_samples else run.samples
    outcome = Outcome(run, samples)

    def commands(folder: Path):
        places: dict[str, Path] = {}

        def fill(argument: str) -> str:
            def place(match: re.Match) -> str:
                kind, name = match.groups()
                if name not in places:
                    places[name] = folder / (f"{name}.json" if kind == "json" else name)
                    places[name].parent.mkdir(parents=True, exist_ok=True)
                return str(places[name])
            return PLACEHOLDER.sub(place, argument.replace("{samples}", str(samples)))
        return [[fill(argument) for argument in command] for command in run.commands], places

    if run.warm and timing:  # builds whatever is missing, so that the times below are of measuring only
        for command in commands(scratch / f"{run.name}-warm")[0]:
            invoke(command, run.statuses)
    filled, places = commands(scratch / run.name)
    for command in filled:
        output, seconds = invoke(command, run.statuses)
        outcome.outputs.append(output)
        outcome.seconds.append(seconds)
    outcome.files = {name: _results_in(path) for name, path in places.items() if path.exists()}
    outcome.not_applicable = [entry for path in places.values() if path.is_file()
                              for entry in json.loads(path.read_text()).get("not_applicable", [])]
    return outcome


def _each(targets, *arguments: str, name: str = "{target}") -> tuple[tuple[str, ...], ...]:
    """One command per target, each writing its own JSON."""
    return tuple(tuple(a.replace("{target}", t) for a in (*arguments, "--target", t, "--json",
                                                         "{json:" + name + "}")) for t in targets)


RUNS = {run.name: run for run in (
    Run("default", "the default run (the quick start's command), then the same on the AVR and the Cortex-M4",
        (("run", "--samples", "{samples}", "--quiet", "--json", "{json:mps2-an385}"),
         ("run", "--target", "atmega328p", "--samples", "{samples}", "--quiet", "--json", "{json:atmega328p}"),
         ("run", "--target", "mps2-an386", "--samples", "{samples}", "--quiet", "--json", "{json:mps2-an386}")),
        samples=10000, warm=True),
    Run("instructions", "every kernel in instructions (QEMU's own count) on the Cortex-M targets whose counts the "
        "pages give",
        _each(CORTEX_M_TARGETS, "run", "--kernel", "all", "--unit", "instructions", "--samples", "{samples}",
              "--quiet"),
        samples=1000, check_samples=200),
    Run("suite", "the suite: every kernel and target, side by side, BeRTOS's table, rotate's curves, "
        "software against PendSV",
        (("suite", "--samples", "{samples}", "--quiet", "--out", "{dir:suite}"),), samples=1000, check_samples=200,
        warm=True),
    Run("mutex", "sem-shuffle with lock=mutex, every kernel that has the option",
        _each(("mps2-an385", "mps2-an386", "atmega328p"), "run", "--kernel", "all", "--scenario", "sem-shuffle",
              "--config", "lock=mutex", "--samples", "{samples}", "--quiet"),
        samples=1000, check_samples=200),
    Run("msg-size", "msg against its size, every kernel (the cost per byte)",
        _each(("mps2-an385", "lm3s6965evb", "atmega328p"), "sweep", "--kernel", "all", "--scenario", "msg",
              "--config", "msg_size=1,4,16,64", "--samples", "{samples}", "--quiet"),
        samples=1000, check_samples=200),
    Run("mechanism", "software against PendSV switching on mps2-an385, and rotate with rotation=priority",
        (("run", "--config", "switch=software,pendsv", "--samples", "{samples}", "--quiet", "--json",
          "{json:scenarios}"),
         ("sweep", "--scenario", "rotate", "--tasks", "2-8", "--config", "rotation=priority", "--config",
          "switch=software,pendsv", "--samples", "{samples}", "--quiet", "--json", "{json:priority}")),
        samples=1000, check_samples=200),
    Run("breakdown", "one yield window, function by function, with each switch mechanism, on the M3 and the M4",
        (("breakdown", "--scenario", "yield"), ("breakdown", "--scenario", "yield", "--config", "switch=software"),
         ("breakdown", "--scenario", "yield", "--target", "mps2-an386"))),
    Run("load", "rotate with 4 tasks under load=voip, each switch mechanism, two load periods",
        (("run", "--scenario", "rotate", "--tasks", "4", "--config", "load=voip", "--config",
          "switch=software,pendsv", "--config", "load_period_us=125,1000", "--samples", "{samples}", "--quiet",
          "--json", "{json:load}"),),
        samples=10000),
    # FreeRTOS's default (irq_priority=low) is the default run's: not measured twice
    Run("irq-latency", "irq-latency at the tool's sample count: FreeRTOS with irq_priority=high, the floor with both",
        (*_each(("mps2-an385", "mps2-an386"), "run", "--scenario", "irq-latency", "--config", "irq_priority=high",
                "--quiet", name="freertos-{target}"),
         *_each(("mps2-an385", "mps2-an386"), "run", "--kernel", "floor", "--scenario", "irq-latency", "--config",
                "irq_priority=high,low", "--quiet", name="floor-{target}"),
         ("run", "--kernel", "floor", "--scenario", "irq-latency", "--target", "atmega328p", "--quiet", "--json",
          "{json:floor-atmega328p}"))),
    Run("thread-metric", "Thread-Metric's eight tests, every kernel, on the targets its pages show",
        (("run", "--scenario", "thread-metric", "--kernel", "all", "--target",
          "mps2-an385,mps2-an386-fpu,microbit-m0plus,ibex,nucleo-l432kc,atmega328p,lm3s6965evb",
          "--samples", "{samples}", "--quiet", "--json", "{json:thread-metric}"),),
        samples=200, check_samples=50),
    Run("armv6m", "every scenario, FreeRTOS and the floor, on the Cortex-M0 and the Cortex-M0+ (irq-latency's "
        "sweep does not depend on --samples)",
        (("run", "--target", "microbit,microbit-m0plus", "--kernel", "freertos", "--floor", "--samples", "{samples}",
          "--quiet", "--json", "{json:armv6m}"),),
        samples=1000, check_samples=200),
    Run("fpu", "every switch scenario on the Cortex-M4F, FreeRTOS and the floor, with 0, 1 and 2 tasks using the FPU",
        (("run", "--target", "mps2-an386-fpu", "--kernel", "freertos", "--floor", "--config", "fp_tasks=0,1,2",
          "--scenario", "resume,signal,yield,isr,rotate,sem-shuffle,deadlock-break,msg", "--samples", "{samples}",
          "--quiet", "--json", "{json:fpu}"),),
        samples=1000, check_samples=200),
    Run("fpu-breakdown", "one FreeRTOS yield window on the Cortex-M4F, instruction by instruction, for 0, 1 and 2 "
        "tasks using the FPU",
        tuple(("breakdown", "--target", "mps2-an386-fpu", "--config", f"fp_tasks={n}", "--scenario", "yield",
               "--instructions") for n in (0, 1, 2))),
    Run("switches", "every switch of examples/freertos-app",
        _each(("mps2-an385", "atmega328p"), "measure", "--build-example", "--switches", "--kernel", "freertos",
              "--count", "{samples}"),
        samples=10000),
    Run("intrusion", "what each method adds, and printing from inside the window",
        tuple(("intrusion", "--target", target, "--scenario", scenario, "--samples", "{samples}", "--quiet",
               "--json", "{json:" + f"{target}-{scenario}" + "}")
              for target in ("mps2-an385", "atmega328p") for scenario in ("resume", "signal", "yield", "isr")),
        samples=200),  # what printing costs depends on the count: its trace line prints the sample's number
    # at a page count a check can afford: the comparison holds irq-latency, whose figures depend on the count
    Run("optimisation", "-O2 against -Os, compared as CI compares them",
        (("run", "--samples", "{samples}", "--quiet", "--json", "{json:o2}"),
         ("run", "--config", "opt=-Os", "--samples", "{samples}", "--quiet", "--json", "{json:os}"),
         ("compare", "{json:o2}", "{json:os}", "--ignore-option", "opt"),
         ("run", "--target", "atmega328p", "--samples", "{samples}", "--quiet", "--json", "{json:avr-o2}"),
         ("run", "--target", "atmega328p", "--config", "opt=-Os", "--samples", "{samples}", "--quiet", "--json",
          "{json:avr-os}")),
        samples=200, statuses=(0, 1)),
    Run("silicon", "resume by the scope method (embOS's), on the AVR and the Cortex-M4",
        _each(("atmega328p", "mps2-an386", "mps2-an385"), "run", "--scenario", "resume", "--method", "scope",
              "--samples", "{samples}", "--quiet"),
        samples=1000, check_samples=200),
    Run("flash", "every switch scenario, FreeRTOS and the floor, by the marker, on the STM32 chips as shipped: the "
        "core alone (0 wait states), the chip's wait states with the accelerator off, and with it on, warm and cold",
        (*_each(CHIPS, "run", "--kernel", "freertos", "--floor", "--method", "marker", "--config", "wait_states=0",
                "--samples", "{samples}", "--quiet", name="{target}-zero"),
         *_each(CHIPS, "run", "--kernel", "freertos", "--floor", "--method", "marker", "--config", "accelerator=off",
                "--samples", "{samples}", "--quiet", name="{target}-off"),
         *_each(CHIPS_WITH_CACHES, "run", "--kernel", "freertos", "--floor", "--method", "marker", "--config",
                "cache=warm,cold",
                "--samples", "{samples}", "--quiet", name="{target}-on"),
         *_each(tuple(c for c in CHIPS if c not in CHIPS_WITH_CACHES), "run", "--kernel", "freertos", "--floor",
                "--method", "marker", "--samples", "{samples}", "--quiet", name="{target}-on")),
        samples=1000, check_samples=200),
    Run("flash-methods", "FreeRTOS's switches by the probe, the scope and the marker on the STM32 chips as shipped, "
        "the accelerator off and on, warm and cold",
        (*_each(CHIPS, "run", "--method", "all", "--scenario", ",".join(FLASH_METHOD_SCENARIOS), "--config",
                "accelerator=off", "--samples", "{samples}", "--quiet", name="{target}-off"),
         *_each(CHIPS_WITH_CACHES, "run", "--method", "all", "--scenario", ",".join(FLASH_METHOD_SCENARIOS),
                "--config", "cache=warm,cold", "--samples", "{samples}", "--quiet", name="{target}-on"),
         *_each(tuple(c for c in CHIPS if c not in CHIPS_WITH_CACHES), "run", "--method", "all", "--scenario",
                ",".join(FLASH_METHOD_SCENARIOS), "--samples", "{samples}", "--quiet", name="{target}-on")),
        samples=200),  # every sample of a window alike: the simulator is deterministic and no tick falls in them
    Run("flash-latency", "FreeRTOS's interrupt latency on netduinoplus2 at 0 wait states, at its wait states with the "
        "accelerator off, and with it on, warm and cold",
        (("run", "--scenario", "irq-latency", "--target", "netduinoplus2", "--config", "wait_states=0", "--quiet",
          "--json", "{json:zero}"),
         ("run", "--scenario", "irq-latency", "--target", "netduinoplus2", "--config", "accelerator=off", "--quiet",
          "--json", "{json:off}"),
         ("run", "--scenario", "irq-latency", "--target", "netduinoplus2", "--config", "cache=warm,cold", "--quiet",
          "--json", "{json:on}"))),
    Run("flash-breakdown", "one window of each switch scenario on netduinoplus2, its flash stall apart, the "
        "accelerator off and on",
        tuple(("breakdown", "--target", "netduinoplus2", "--scenario", scenario, "--config", f"accelerator={part}")
              for scenario in FLASH_BREAKDOWN_SCENARIOS for part in ("off", "programmed"))),
    Run("options", "the configuration options every kernel.toml declares",
        (("list", "options"),)),
    Run("methods", "the Rust kernels by the probe, the scope and the marker",
        tuple(("run", "--kernel", kernel, "--target", target, "--method", "all", "--samples", "{samples}", "--quiet",
               "--json", "{json:" + f"{kernel}-{target}" + "}")
              for kernel, target in (("embassy", "mps2-an385"), ("lilos", "mps2-an385"), ("rtic", "lm3s6965evb"),
                                     ("embassy", "atmega328p"))),
        samples=1000, check_samples=200),
    Run("suite-cost", "the suite's wall time against its measurements' own (bench/suite_time.py)",
        (("bench/suite_time.py", "--jobs", "1,2"),)),
    Run("cycles-cost", "what counting cycles costs against counting instructions (bench/cycles.py)",
        (("bench/cycles.py",),)),
    Run("throughput", "a million samples end to end, the simulator alone, the decoder alone (bench/throughput.py)",
        (("bench/throughput.py", "--no-suite"),)),
    Run("stream", "a million yield samples against a gauge of 200 M instructions (bench/stream.py)",
        (("bench/stream.py",),)),
    Run("ibex-model", "the Ibex model against the RTL, every switch scenario (bench/ibex_model.py)",
        (("bench/ibex_model.py",),)),
    Run("ibex-speed", "10,000 yield samples on the Ibex model and on the RTL (bench/ibex_model.py --speed)",
        (("bench/ibex_model.py", "--speed"),)),
    Run("vexriscv-caches", "every switch scenario of FreeRTOS and the floor on VexRiscv's RTL, its caches warm and "
        "cold, its RAM at 0 and 2 wait states",
        tuple(("run", "--target", "vexriscv", "--kernel", "freertos", "--floor", "--method", "marker", "--scenario",
               ",".join(SWITCH_SCENARIOS), "--config", "cache=warm,cold", *extra, "--samples", "{samples}",
               "--quiet", "--json", "{json:" + name + "}")
              for name, extra in (("zero", ()), ("slow", ("--config", SLOW_RAM)))),
        samples=100),  # warm windows differ by the refills the harness's code between them leaves: the page's count
    Run("ibex-slow-memory", "four switches of each kernel on the Ibex RTL, its model and the documentation-only "
        "model at 0, 1, 2 and 5 fetch wait states (bench/ibex_model.py --slow-memory)",
        (("bench/ibex_model.py", "--slow-memory", "--samples", "{samples}"),),
        samples=1000, check_samples=20),  # every sample of a window alike: no tick falls in them
    Run("matrix", "260 points on the local pool, a local Dask cluster and two merged shares (bench/matrix.py)",
        (("bench/matrix.py", "--cold"),)),
)}
