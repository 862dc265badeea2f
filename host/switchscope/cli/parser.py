"""The command line's grammar: every subcommand, its options and its handler."""

from __future__ import annotations

import argparse
import functools
import re

from switchscope import __version__, catalog
from switchscope.cli.boards import command_analyze, command_flash
from switchscope.cli.completion import SHELLS, command_completion
from switchscope.cli.choices import SwitchesFlag
from switchscope.cli.listing import LIST_SECTIONS, command_list
from switchscope.cli.project import add_parser as add_new_project
from switchscope.cli.measuring import (command_breakdown, command_intrusion, command_run, command_suite,
                                       command_sweep)
from switchscope.cli.own_firmware import command_measure
from switchscope.cli.results import command_compare, command_merge, command_report
from switchscope.cli.values import (cluster_address, clock_hz, jobs, one_name, output_path, percentiles,
                                    seconds, subset)
from switchscope.common.suggest import did_you_mean
from switchscope.present import compare

class _StoreOnce(argparse._StoreAction):
    """An option's value, given once: argparse keeps the last of `--scenario yield --scenario isr` without a
    word; several values are one comma list."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_options_given", set())
        if self.dest in given:
            parser.error(f"{option_string} given twice: give it once (several values are one comma list, "
                         f"e.g. {option_string} a,b, where the option takes several)")
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose 'invalid choice' (a misspelt command, unit, ...) also says the closest choice,
    and whose options are each given once."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def error(self, message: str):
        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if wrong:
            message += ": " + did_you_mean(wrong.group(1), re.findall(r"'([^']*)'", wrong.group(2))).strip()
        super().error(message.rstrip(": "))

    def parse_args(self, args=None, namespace=None):
        """An option the command does not take is refused by the command's own parser, with its usage and the
        closest of its options (--targt: did you mean --target?)."""
        parsed, unknown = self.parse_known_args(args, namespace)
        if unknown:
            command = next((action.choices.get(getattr(parsed, action.dest, None)) for action in self._actions
                            if isinstance(action, argparse._SubParsersAction)), None) or self
            options = [name[2:] for action in command._actions for name in action.option_strings
                       if name.startswith("--")]
            wrong = next((word.split("=")[0] for word in unknown if word.startswith("--")), "--")
            guess = did_you_mean(wrong[2:], options, prefix="--")
            command.error(f"unrecognized arguments: {' '.join(unknown)}" + (f": {guess.strip()}" if guess else ""))
        return parsed


def _add_exports(command) -> None:
    """What a table shows, for other tools (as hyperfine's options of the same names)."""
    command.add_argument("--export-csv", type=output_path, metavar="PATH", help="also write one row per result as CSV")
    command.add_argument("--export-markdown", type=output_path, metavar="PATH",
                         help="also write the results as a Markdown table")
    command.add_argument("--percentiles", type=percentiles, default=(99.0,), metavar="P,P,...",
                         help="the percentiles tables and exports show, nearest rank (default: 99); "
                              "e.g. 50,90,99,99.9")


def _add_selection(command, kernel: str, target: str, scenario: str | None = None, method: str | None = None,
                   one: bool = False) -> None:
    """The options that choose what to measure, each a name, a comma list of names or 'all' (only a name
    when `one`)."""
    kind = one_name if one else str

    def either(example: str) -> str:
        return "" if one else f", a comma list ({example}) or 'all'"

    command.add_argument("--kernel", default=kernel, type=kind,
                         help=f"kernel name{either('freertos,floor')} (default: {kernel})")
    command.add_argument("--target", default=target, type=kind,
                         help=f"target name{either('mps2-an385,atmega328p')} (default: {target})")
    if scenario:
        suites = "" if one else "; 'thread-metric': Thread-Metric's eight tests, which 'all' leaves out"
        command.add_argument("--scenario", default=scenario, type=kind,
                             help=f"scenario name{either('yield,isr')} (default: {scenario}{suites})")
    if method:  # None when not given: the irq-latency scenarios then take the simulator's view (marker)
        command.add_argument("--method", type=kind,
                             help=f"measurement method{either('probe,marker')} (default: {method}; on a simulator "
                                  "marker for the irq-latency scenarios, which the simulator times)")


@functools.cache  # built once in a process: parsing changes nothing in it, and the tests parse hundreds of lines
def parser() -> argparse.ArgumentParser:
    top = _Parser(
        prog="switchscope",
        description="Measure how long a real-time kernel takes to switch tasks, exactly and reproducibly.",
    )
    top.add_argument("--version", action="version", version=f"switchscope {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser("run", help="build, run and measure scenarios",
                              description="Build each (kernel, target, scenario), run it on the simulated "
                                          "board and print the distribution of switch times.")
    _add_selection(run, "freertos", "mps2-an385", "all", "probe")
    run.add_argument("--samples", type=int,
                     help="samples per scenario (default: 10000; on a board, what its image measures)")
    run.add_argument("--unit", choices=catalog.UNITS,
                     help="what to count: cycles by default (true cycles on simavr and on an RTL, the core's "
                          "timing model on QEMU: Cortex-M, ibex-qemu), or instructions (what QEMU itself counts)")
    run.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                     help="a kernel or build option, each once: preemption=off, priorities=off, opt=-Os, "
                          "trace=on, ... (switchscope list shows them all); NAME=V1,V2 measures each value; "
                          "NAME=V,OTHER=W (or --config again) sets two options. An "
                          "option of some scenarios (lock: sem-shuffle, msg_size: msg, ...) applies to those, the "
                          "others are measured without it. The memory options apply to the targets with a flash "
                          "model (the STM32 chips as shipped: netduinoplus2, ...; docs/flash.md), the others are "
                          "measured without them: wait_states=programmed|0..15, accelerator=programmed|on|off, "
                          "cache=warm|cold. On the RTL targets and ibex-qemu the RAM's wait states: "
                          "fetch_wait_states=0..15, data_wait_states=0..15, and cache=warm|cold on vexriscv's own "
                          "caches (docs/rtl.md)")
    run.add_argument("--tasks", type=int, metavar="N",
                     help="rotate scenario: how many tasks (default 2); with --scenario all, rotate alone")
    run.add_argument("--floor", action="store_true",
                     help="also measure the floor kernel (the least a switch can cost) on the same targets, and "
                          "show each figure as a multiple of it (the x floor column; --kernel all includes it)")
    run.add_argument("--json", type=output_path, metavar="PATH", help="also write every result, with all samples, as JSON")
    _add_exports(run)
    run.add_argument("--vcd", type=output_path, metavar="PATH",
                     help="with --method scope: write the scope pin's trace as VCD (one file per scenario "
                          "when several run: PATH-TARGET-SCENARIO.vcd)")
    run.add_argument("--timeout", type=seconds, metavar="SECONDS",
                     help="stop a firmware that has not finished after this long (default: 20 s + 2 ms per sample, 10 ms on an RTL target)")
    run.add_argument("--port", metavar="URL",
                     help="measure on a real board: its serial device (/dev/ttyACM0) or any pyserial URL "
                          "(socket://HOST:PORT, rfc2217://HOST:PORT); the image is flashed first unless --no-flash")
    run.add_argument("--no-flash", action="store_true",
                     help="with --port: the board runs the image already (flashed by other means); read it")
    run.add_argument("--baud", type=int, metavar="N", help="with --port: the line's speed (default: the board's)")
    run.add_argument("--simulate", action="store_true",
                     help="with a real board's name (arduino-uno): run its very image on the simulator instead")
    run.add_argument("--quiet", action="store_true", help="no progress display or summary line")
    run.set_defaults(handler=command_run)

    sweep = commands.add_parser(
        "sweep", help="one full distribution per point of a sweep: tasks, sample counts, configurations",
        description="Measure every combination of the given axes, on all cores, and print one line per point. "
                    "Example: switchscope sweep --scenario rotate --tasks 2-8 --samples 100,1000,10000 "
                    "--config preemption=on,off")
    _add_selection(sweep, "freertos", "mps2-an385", "rotate", "probe")
    sweep.add_argument("--tasks", metavar="LIST",
                       help="rotate: task counts, e.g. 2-8 or 2,4,8 (--scenario must include rotate)")
    sweep.add_argument("--samples", default="1000", metavar="LIST",
                       help="samples (switches) per point, e.g. 100,1000,10000 (default: 1000)")
    sweep.add_argument("--config", action="append", default=[], metavar="NAME=V1,V2",
                       help="an option and the values to sweep it over, each once; an option of some scenarios "
                            "(lock: sem-shuffle, msg_size: msg, ...) applies to those, the others are measured "
                            "without it")
    sweep.add_argument("--jobs", type=jobs, metavar="N", help="measurements at once (default: one per core)")
    sweep.add_argument("--json", type=output_path, metavar="PATH", help="also write every result as JSON, each as soon as it is measured")
    _add_exports(sweep)
    sweep.add_argument("--resume", action="store_true",
                       help="keep the results already in --json (an interrupted sweep's) and measure only the rest")
    sweep.add_argument("--cluster", type=cluster_address, metavar="ADDRESS",
                       help="measure the points on a Dask cluster: local:N (N workers here) or tcp://HOST:PORT (a scheduler whose workers have switchscope set up); the results are the local pool's")
    sweep.add_argument("--subset", type=subset, metavar="K/N",
                       help="one CI job's share of the points, K of N (e.g. 2/8): the same plan on every job, each firmware's points in one share; switchscope merge joins the shares")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")
    sweep.set_defaults(handler=command_sweep)

    whole = commands.add_parser(
        "suite", help="the whole experiment matrix, with tables and plots, into a results directory",
        description="For every kernel and target: each scenario under cooperative/preemptive x priorities "
                    "off/on (the BeRTOS table), rotate against the number of tasks and the number of "
                    "switches (the Cortex-M3 study's curves). Runs on all cores; writes one JSON per run, "
                    "summary.md, index.html (the HTML report) and SVG figures.")
    _add_selection(whole, "all", "all")
    whole.add_argument("--samples", type=int, default=1000, help="samples per measurement (default: 1000)")
    whole.add_argument("--out", type=output_path, default="switchscope-results",
                       help="the results directory (default: switchscope-results)")
    whole.add_argument("--jobs", type=jobs, metavar="N", help="measurements at once (default: one per core)")
    whole.add_argument("--resume", action="store_true",
                       help="keep the results already in --out (an interrupted suite's) and measure only the rest")
    whole.add_argument("--cluster", type=cluster_address, metavar="ADDRESS",
                       help="measure the points on a Dask cluster: local:N (N workers here) or tcp://HOST:PORT (a scheduler whose workers have switchscope set up); the results are the local pool's")
    whole.add_argument("--subset", type=subset, metavar="K/N",
                       help="one CI job's share of the points, K of N (e.g. 2/8): the same plan on every job, each firmware's points in one share; switchscope merge joins the shares")
    whole.add_argument("--quiet", action="store_true", help="no progress bar")
    whole.set_defaults(handler=command_suite)

    elf = commands.add_parser(
        "measure", help="count between two points of your own firmware, or time its every task switch",
        description="Run a firmware you built on a simulated target and count, each time it passes, the "
                    "cycles (simavr; the timing model on Cortex-M) or instructions (--unit instructions) from "
                    "reaching --from to reaching --to: the "
                    "instruction at --from counts, the one at --to does not; interrupts taken between count. "
                    "Or, with --switches and the --kernel it was built with, find every task switch it makes, "
                    "with nothing added to it: each timed from the entry of the kernel's switching code to "
                    "the first instruction of the task it switches to, with the two tasks and what caused it "
                    "(a task's call, the tick, an interrupt), by task pair and by cause.")
    elf.add_argument("elf", nargs="?", help="the firmware, an ELF built for the target")
    elf.add_argument("--build-example", action="store_true",
                     help="build the example application (examples/freertos-app: a producer, a consumer, a timer "
                          "interrupt, a background task, on FreeRTOS) for --target, say where, and measure it")
    elf.add_argument("--target", required=True, type=one_name,
                     help="the simulated target it was built for (see: switchscope list targets)")
    elf.add_argument("--from", dest="start", metavar="SYMBOL_OR_ADDR", help="where an interval starts")
    elf.add_argument("--to", dest="stop", metavar="SYMBOL_OR_ADDR", help="where it ends")
    elf.add_argument("--switches", action=SwitchesFlag)
    elf.add_argument("--kernel", type=one_name, help="--switches: the kernel the firmware is built with (freertos)")
    elf.add_argument("--count", type=int, default=1000, help="intervals, or switches, to measure (default: 1000)")
    elf.add_argument("--unit", choices=catalog.UNITS,
                     help="cycles (the default: simavr's and an RTL's own, the core's timing model on QEMU: "
                          "Cortex-M, ibex-qemu) or instructions (what QEMU itself counts)")
    elf.add_argument("--timeout", type=seconds, metavar="SECONDS", help="bound on the run")
    elf.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                     help="on a target with a flash model, what to force of it: wait_states=N, accelerator=on|off "
                          "(by default as the firmware programs the flash interface); on the RTL targets and "
                          "ibex-qemu, the RAM's fetch_wait_states=N and data_wait_states=N (default 0)")
    elf.add_argument("--json", type=output_path, metavar="PATH", help="also write the result as JSON")
    elf.set_defaults(handler=command_measure)

    traced = commands.add_parser(
        "breakdown", help="where the cycles of one window go: every function, exception and instruction",
        description="Trace one window of a scenario (marker method: nothing of switchscope's in the path) "
                    "and list the functions it passes through with their instructions and cycles; the lines "
                    "add up to the window's figure. On a QEMU target exception entries and returns "
                    "are lines of their own; on an RTL target (ibex, vexriscv) each instruction counts the "
                    "core's own cycles, a trap's entry in its ecall and the return in its mret, and on vexriscv "
                    "an icache-miss line precedes each instruction whose fetch missed (the refill is in the "
                    "cycles of the instruction before it: an instruction starts once fetched). Not on simavr "
                    "targets.")
    _add_selection(traced, "freertos", "mps2-an385", "yield", one=True)
    traced.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                        help="a kernel or build option, repeatable (switchscope list shows them all)")
    traced.add_argument("--tasks", type=int, metavar="N", help="rotate scenario: how many tasks (default 2)")
    traced.add_argument("--unit", choices=catalog.UNITS, help="cycles (the default: the RTL's, or the core's "
                                                              "timing model on QEMU) or instructions")
    traced.add_argument("--sample", type=int, default=10, metavar="K",
                        help="which window: the K-th sample of the run, from 0 (default: 10)")
    traced.add_argument("--instructions", action="store_true", help="also list every instruction")
    traced.add_argument("--against", type=one_name, metavar="TARGET", help="also trace the window on this target "
                        "of the same core (ibex-qemu --against ibex: the model against the RTL) and say where they part")
    traced.add_argument("--timeout", type=seconds, metavar="SECONDS", help="bound on each run")
    traced.set_defaults(handler=command_breakdown)

    intrude = commands.add_parser(
        "intrusion", help="what each method adds to the path it measures, against the marker figure",
        description="Measure each scenario with the marker (nothing in the path), the probe, the scope, and "
                    "a build that prints a trace line inside the window; show what each adds before its "
                    "correction and the error left after it.")
    _add_selection(intrude, "freertos", "all", "all")
    intrude.add_argument("--samples", type=int, default=1000, help="samples per measurement (default: 1000)")
    intrude.add_argument("--timeout", type=seconds, metavar="SECONDS", help="bound on each run")
    intrude.add_argument("--json", type=output_path, metavar="PATH", help="also write the report as JSON")
    intrude.add_argument("--quiet", action="store_true", help="no progress display")
    intrude.set_defaults(handler=command_intrusion)

    burn = commands.add_parser(
        "flash", help="write one scenario's image into a real board, without reading it",
        description="Build the image and flash it (avrdude, OpenOCD, as the board's board.toml says): for a logic "
                    "analyzer on the scope pin (--method scope, then switchscope analyze), or to read the board "
                    "later with switchscope run --port ... --no-flash.")
    _add_selection(burn, "freertos", "arduino-uno", "yield", "probe", one=True)
    burn.add_argument("--port", metavar="DEVICE",
                      help="the board's serial device, where its bootloader listens (the Uno's); a kit flashed "
                           "through a debug probe needs none")
    burn.add_argument("--samples", type=int, help="windows the image measures after each reset (default: 1000)")
    burn.add_argument("--config", action="append", default=[], metavar="NAME=VALUE", help="a kernel or build option")
    burn.set_defaults(handler=command_flash)

    capture = commands.add_parser(
        "analyze", help="tAB, tCD and tCS from a logic-analyzer capture (VCD, sigrok .sr, sigrok CSV)",
        description="The oscilloscope method on a capture from real hardware: the pin pulses once bare (A-B) "
                    "and once around the switch (C-D); tCS = tCD - tAB for every pattern.")
    capture.add_argument("capture", help="a VCD, a sigrok session file (.sr) or a sigrok CSV file")
    capture.add_argument("--channel", required=True, help="the channel (probe) the pin was recorded on")
    capture.add_argument("--clock", type=clock_hz, metavar="HZ",
                         help="the CPU clock: figures in cycles (and microseconds) instead of nanoseconds")
    capture.add_argument("--json", type=output_path, metavar="PATH", help="also write the result, with all patterns, as JSON")
    capture.set_defaults(handler=command_analyze)

    versus = commands.add_parser(
        "compare", help="compare two sets of results; exit 1 when one got slower (for CI)",
        description="Match the results of BASE and NEW (run, sweep or measure JSON files, or suite directories) by "
                    "kernel, target, scenario, method, configuration and unit, and compare one statistic. Exit 0 "
                    "when none got slower than the threshold, 1 when one did (see --fail-on) or a measurement of "
                    "NEW failed, 2 on bad input: a side that is empty or incomplete, or nothing compared.")
    versus.add_argument("base", help="the results before the change")
    versus.add_argument("new", help="the results after it")
    versus.add_argument("--metric", default="median", help="the statistic compared: min, median, mode, mean, max, "
                                                            "stddev or p99 (default: median)")
    versus.add_argument("--threshold", default="0",
                        help="how much slower counts as a regression: a percentage (2%%) or an amount in the "
                             "result's unit (default 0: any increase, since the simulators are deterministic)")
    versus.add_argument("--across-targets", action="store_true", help="match results whatever their targets: "
                        "rtl.json model.json --across-targets holds a timing model (ibex-qemu) against the RTL (ibex) "
                        "of the same core; results of other cores or timing models are listed as not comparable")
    versus.add_argument("--allow-different-cores", action="store_true",
                        help="with --across-targets, give verdicts between other cores or timing models too "
                             "(a Cortex-M0 against Ibex), each pair saying what differs")
    versus.add_argument("--ignore-option", action="append", default=[], metavar="NAME",
                        help="leave a configuration option out of the matching, repeatable: compare "
                             "o2.json os.json --ignore-option opt compares -O2 with -Os")
    versus.add_argument("--fail-on", choices=compare.FAIL_ON, default="any",
                        help="which regressions fail the command (exit 1): any (default), or outside-range: only "
                             "those whose TRM ranges do not overlap, so every chip the manual describes is slower "
                             "(a result without a range, such as instructions, fails as with any)")
    versus.add_argument("--junit", type=output_path, metavar="PATH", help="also write a JUnit XML file, one test per comparison")
    versus.add_argument("--json", type=output_path, metavar="PATH", help="also write the comparisons as JSON")
    versus.set_defaults(handler=command_compare)

    page = commands.add_parser(
        "report", help="one HTML page from results: runs, sweeps, suites, intrusion (opens without a network)",
        description="Read every result in the given JSON files and suite directories and write one self-contained "
                    "HTML page: kernels and configurations side by side, rotate's curves, the intrusion table, "
                    "every result in a sortable table, and each one's distribution and provenance.")
    page.add_argument("inputs", nargs="+", metavar="RESULTS",
                      help="a --json file of run, sweep, measure, analyze or intrusion, or a suite's directory")
    page.add_argument("--html", type=output_path, required=True, metavar="PATH", help="the page to write")
    page.add_argument("--title", default="switchscope report", help="the page's title")
    page.set_defaults(handler=command_report)

    joining = commands.add_parser(
        "merge", help="join the shares of a suite or sweep (--subset K/N) into one, checking none is missing",
        description="Join the results directories of one suite's shares (each a CI job's --subset K/N) into one "
                    "directory with its summary.md and index.html, as one run of the whole suite writes them; or "
                    "the --json files of one sweep's shares, or of any runs, into one file. Refused: shares of "
                    "different plans, a share missing, and a measurement two inputs hold with other samples.")
    joining.add_argument("inputs", nargs="+", metavar="RESULTS",
                         help="every share's results directory (suite) or --json file (sweep, run)")
    joining.add_argument("--out", type=output_path, required=True, metavar="PATH",
                         help="the directory (for directories) or the JSON file (for files) to write")
    joining.set_defaults(handler=command_merge)

    add_new_project(commands, one_name)
    listing = commands.add_parser("list", help="list kernels, targets, real boards, scenarios, methods and options")
    listing.add_argument("section", nargs="?", metavar="SECTION",
                         help=f"one of {', '.join(LIST_SECTIONS)}, or all (the default: every one)")
    listing.set_defaults(handler=command_list)

    completing = commands.add_parser(
        "completion", help="print a shell completion script (bash, zsh or fish)",
        description="Print a completion script for the shell, made from this command line and the catalog. "
                    "bash: switchscope completion bash > ~/.local/share/bash-completion/completions/switchscope; "
                    "zsh: switchscope completion zsh > ~/.zfunc/_switchscope.sh and source it from .zshrc; "
                    "fish: switchscope completion fish > ~/.config/fish/completions/switchscope.fish")
    completing.add_argument("shell", choices=SHELLS)
    completing.set_defaults(handler=lambda args: command_completion(args, top))
    return top
