"""The switchscope command line."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

from switchscope import (__version__, catalog, compare, configs, display, flash, html_report, intrusion, matrix,
                         outputs, report, results_files, serial_port, suite)
from switchscope.build import build
from switchscope.capture import analyze
from switchscope.errors import FirmwareFailed, Interrupted, SwitchscopeError
from switchscope.measure import MAX_SAMPLES, default_time_limit, measure, measure_on_port, run_parameters
from switchscope.measure_elf import measure_elf
from switchscope.methods import METHODS
from switchscope.plan import Plan, plan


LIST_SECTIONS = ("kernels", "targets", "boards", "scenarios", "methods", "options")


def _list_boards() -> None:
    print("real boards (switchscope run --target BOARD --port DEVICE; --simulate runs the same image simulated):")
    boards = catalog.real_boards()
    width = max((len(name) for name in boards), default=0)
    for name, target in boards.items():
        board = target.real_board
        print(f"  {name.ljust(width)}  {board.summary}")
        print(f"  {''.ljust(width)}    image of target {target.name}; stamps with {board.stamp_timer}; "
              f"{target.uart_baud} baud on {target.uart}; flashed with {board.flasher} ({board.flasher_package})")


def command_list(args) -> int:
    shown = args.section or "all"
    if shown not in (*LIST_SECTIONS, "all"):
        raise SwitchscopeError(f"switchscope list shows {', '.join(LIST_SECTIONS)} or all, not '{shown}'")
    sections = [("kernels", catalog.KERNELS), ("targets", catalog.TARGETS),
                ("scenarios", catalog.SCENARIOS), ("methods", METHODS)]
    if shown in ("boards", "all"):
        _list_boards()
    for title, table in sections:
        if shown not in (title, "all"):
            continue
        print(f"{title}:")
        width = max(len(name) for name in table)
        for name, item in table.items():
            note = " (not in 'all')" if getattr(item, "check", False) else ""
            print(f"  {name.ljust(width)}  {item.summary}{note}")
            if isinstance(item, catalog.Kernel):
                print(f"  {''.ljust(width)}    targets: {', '.join(item.targets) or 'none'}")
                for scenario, why in item.not_applicable:
                    print(f"  {''.ljust(width)}    {scenario}: n/a, {why}")
    if shown not in ("options", "all"):
        return 0
    print("configuration options (--config NAME=VALUE):")
    every_option = {}
    for kernel in catalog.KERNELS.values():
        for name, option in configs.options_of(kernel).items():
            every_option.setdefault(name, (option, []))[1].append(kernel.name)
    width = max(len(name) for name in every_option)
    for name, (option, kernels) in every_option.items():
        print(f"  {name.ljust(width)}  {option.summary} [{option.describe_values().replace(' | ', '|')}, "
              f"default {option.default}] ({', '.join(kernels)})")
    return 0


def _check_samples(count: int) -> None:
    """Before any work: the firmware counts samples in 32 bits."""
    if not 1 <= count <= MAX_SAMPLES:
        raise SwitchscopeError(f"--samples takes 1 to {MAX_SAMPLES}, got {count}")


def _say_skipped(found: Plan) -> None:
    for skipped in found.skipped:
        print(f"n/a: {skipped}")


def _check_board_options(args) -> None:
    """--port, --no-flash, --baud and --simulate: a real board is read over its port, its image simulated
    with --simulate; the simulated targets are read over a port only when asked (--port)."""
    # a kit's own name (arduino-uno) needs its port; a kit QEMU also models (stm32vldiscovery) is simulated without
    is_real_board = args.target in catalog.real_boards() and args.target not in catalog.TARGETS
    if args.port is None:
        if args.no_flash or args.baud:
            raise SwitchscopeError(f"{'--no-flash' if args.no_flash else '--baud'} applies to a board read over "
                                   "--port")
        if is_real_board and not args.simulate:
            (target,) = catalog.select_targets(args.target)
            raise SwitchscopeError(f"{args.target} is a real board: give its serial port",
                                   f"switchscope run --target {args.target} --port /dev/ttyACM0, or --simulate to "
                                   f"run its image on {target.name}'s simulator")
        return
    if args.simulate:
        raise SwitchscopeError("--simulate runs the image on a simulator; --port reads a board: give one of them")
    if args.vcd:
        raise SwitchscopeError("--vcd records the scope pin on a simulator: on a board, record the pin with a logic "
                               "analyzer and read the capture with switchscope analyze")
    if args.target == "all" or args.kernel == "all":
        raise SwitchscopeError("a board runs one kernel's image at a time: choose --kernel and --target")
    (target,) = catalog.select_targets(args.target)
    board = target.real_board
    by_hand = f"to flash it by hand: {board.by_hand}, then add --no-flash" if board and not args.no_flash else ""
    serial_port.check_port(args.port, by_hand)  # before any build: a missing board or a bad URL is said at once


def command_run(args) -> int:
    _check_board_options(args)
    if args.samples is None and args.port is None:
        args.samples = 10_000
    if args.samples is not None:
        _check_samples(args.samples)
    scenarios = catalog.select_scenarios(args.scenario)
    if args.tasks is not None:
        if args.scenario not in ("all", "rotate"):
            raise SwitchscopeError("--tasks applies to the rotate scenario only")
        scenarios = [catalog.SCENARIOS["rotate"]]  # --tasks only means something there
    found = plan(catalog.select_kernels(args.kernel), catalog.select_targets(args.target), scenarios,
                 catalog.select_methods(args.method), [configs.parse(args.config)], [args.tasks], unit=args.unit)
    jobs = found.jobs
    if args.port and args.no_flash and len(jobs) > 1:
        raise SwitchscopeError(f"--no-flash reads the one image the board runs, and {len(jobs)} were asked for",
                               "choose its --scenario (and --method probe)")
    if args.vcd and not any(job.method.name == "scope" for job in jobs):
        raise SwitchscopeError("--vcd records the scope pin: use it with --method scope (or all)")
    scope_jobs = [job for job in jobs if job.method.name == "scope"]
    vcds = {}
    if args.vcd:
        for job in scope_jobs:  # one file per job when several: trace.vcd -> trace-atmega328p-resume.vcd
            vcd = Path(args.vcd) if len(scope_jobs) == 1 else Path(args.vcd).with_name(
                f"{Path(args.vcd).stem}-{job.target.name}-{job.scenario.name}{Path(args.vcd).suffix}")
            vcds[str(job)] = outputs.check_file(vcd, "--vcd")
    json_path = outputs.check_file(args.json, "--json") if args.json else None
    results, failures = [], []
    started = time.monotonic()
    try:
        with display.Activity(args.quiet, "samples") as activity:
            for job in jobs:
                activity.begin(str(job), args.samples or 1000)
                try:
                    if args.port:
                        results.append(measure_on_port(job, args.port, args.baud or job.target.uart_baud,
                                                       args.samples, not args.no_flash, args.timeout,
                                                       activity.advance_to, activity.on_stage))
                    else:
                        results.append(measure(job, args.samples, args.timeout, activity.advance_to,
                                               activity.on_stage, vcds.get(str(job))))
                except SwitchscopeError as error:
                    activity.say(f"error: {error}")
                    failures.append({"job": str(job), "error": error.message})
    except Interrupted as interruption:
        if results:  # what was measured before the signal is shown, and written where asked
            print(report.table(results))
            interruption.kept = f"{len(results)} of {len(jobs)} measurements shown above"
            if json_path:
                report.write_json(json_path, results, failures, incomplete=f"interrupted after {len(results)} of "
                                                                           f"{len(jobs)} measurements")
                interruption.kept += f" and written to {json_path}"
        raise
    if results:
        print(report.table(results))
        comparison = report.method_comparison(results)
        if comparison:
            print("\n" + comparison)
        for result in results:
            for problem in result.stream_problems:
                print(f"warning: {result.scenario}: {problem}", file=sys.stderr)
            if result.clamped:
                print(f"warning: {result.scenario}: {result.clamped} samples were smaller than the probe "
                      "overhead and were clamped to 0", file=sys.stderr)
    _say_skipped(found)
    if not args.quiet:
        print(f"\n{len(results)} of {len(jobs)} measurements in {time.monotonic() - started:.1f} s", file=sys.stderr)
    if json_path:
        report.write_json(json_path, results, failures, [s.as_json() for s in found.skipped])
    return 1 if failures else 0


def command_flash(args) -> int:
    """Build one image and write it into a real board, without reading it: for a logic analyzer on the
    scope pin (--method scope, then switchscope analyze), or to read it later with run --no-flash."""
    (target,) = catalog.select_targets(args.target)
    if target.real_board is None:
        boards = ", ".join(catalog.real_boards())
        raise SwitchscopeError(f"{args.target} is no real board switchscope can flash", f"real boards: {boards}")
    if target.real_board.flashes_through_port:
        if not args.port:
            raise SwitchscopeError(f"{target.real_board.name} is flashed through its serial port: give it with "
                                   "--port", "an Arduino Uno is usually /dev/ttyACM0")
        serial_port.check_exists(args.port, f"to flash it by hand: {target.real_board.by_hand}")
    found = plan(catalog.select_kernels(args.kernel), [target], catalog.select_scenarios(args.scenario),
                 catalog.select_methods(args.method), [configs.parse(args.config)])
    if len(found.jobs) != 1:
        _say_skipped(found)
        raise SwitchscopeError(f"a board holds one image: {len(found.jobs)} were asked for",
                               "choose one --kernel, --scenario and --method")
    (job,) = found.jobs
    if args.samples is not None:
        _check_samples(args.samples)
    config = job.resolved_config()
    firmware = build(job.kernel, job.target, job.scenario, job.method, config)
    image = flash.with_parameters(firmware.elf, run_parameters(args.samples, job.tasks, config))
    try:
        flash.flash(target, image, args.port or "")
    except FirmwareFailed as error:  # the flasher ran and failed: not bad input, a failed step
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{job}: {image} written into {target.real_board.name}" + (f" at {args.port}" if args.port else ""))
    return 0


def command_analyze(args) -> int:
    if args.clock is not None and not 0 < args.clock < float("inf"):
        raise SwitchscopeError(f"--clock takes the CPU clock in Hz, a positive number, not {args.clock:g}")
    json_path = outputs.check_file(args.json, "--json", inputs=(Path(args.capture),)) if args.json else None
    result = analyze(Path(args.capture), args.channel, args.clock)
    print(report.capture_table(result))
    if result.clamped:
        print(f"warning: {result.clamped} patterns had tCD < tAB and were clamped to 0", file=sys.stderr)
    if json_path:
        report.write_json(json_path, [result], [])
    return 0


def command_sweep(args) -> int:
    tasks = matrix.parse_counts(args.tasks, "--tasks", 255) if args.tasks else [None]
    samples = matrix.parse_counts(args.samples, "--samples", MAX_SAMPLES)
    found = plan(catalog.select_kernels(args.kernel), catalog.select_targets(args.target),
                 catalog.select_scenarios(args.scenario), catalog.select_methods(args.method),
                 matrix.config_variants(args.config), tasks)
    points = [matrix.Point(job, count) for job in found.jobs for count in samples]
    matrix.check_fits_in_memory(points)
    if args.resume and not args.json:
        raise SwitchscopeError("--resume continues the sweep written to --json: give its path")
    json_path = outputs.check_file(args.json, "--json") if args.json else None
    kept = matrix.results_already_in(json_path, points) if args.resume else {}
    _say_skipped(found)

    def keep(_point, _outcome, completed):
        """Each result in the JSON as soon as it is measured: a crash or an interruption loses none."""
        if json_path:
            report.write_json(json_path, _results(completed), [],
                              incomplete=f"{len(completed)} of {len(points)} points measured so far")

    try:
        with display.Activity(args.quiet, "measurements") as activity:
            activity.begin("sweep", len(points))
            outcomes = matrix.run_points(points, args.jobs, activity.batch, keep, kept)
    except Interrupted as interruption:
        if json_path:
            interruption.kept = f"{len(_results(interruption.completed))} of {len(points)} points in {json_path}"
        raise
    results = _results(outcomes)
    for point, outcome in outcomes:
        if isinstance(outcome, str):
            print(f"error: {point.job}: {outcome}", file=sys.stderr)
    if results:
        print(report.sweep_table(results))
    if json_path:
        report.write_json(json_path, results,
                          [{"job": str(p.job), "samples": p.samples, "error": o} for p, o in outcomes if isinstance(o, str)])
    return 1 if len(results) < len(outcomes) else 0


def _results(outcomes: list) -> list:
    """The results among (point, outcome) pairs: the failed points' outcomes are their error messages."""
    return [outcome for _, outcome in outcomes if not isinstance(outcome, str)]


def command_suite(args) -> int:
    _check_samples(args.samples)
    out = outputs.check_directory(args.out, "--out")
    with display.Activity(args.quiet, "measurements") as activity:
        activity.label = "suite"
        outcomes, written, wall = suite.run(catalog.select_kernels(args.kernel), catalog.select_targets(args.target),
                                            args.samples, out, args.jobs, activity.batch, args.resume)
    failed = [(p, o) for p, o in outcomes if isinstance(o, str)]
    for point, outcome in failed:
        print(f"error: {point.job}: {outcome}", file=sys.stderr)
    print(f"{len(outcomes) - len(failed)} of {len(outcomes)} measurements in {wall:.1f} s; "
          f"{len(written)} files in {args.out} (open {Path(args.out) / 'index.html'} in a browser, "
          f"or read {Path(args.out) / 'summary.md'})")
    return 1 if failed else 0


def command_measure(args) -> int:
    if args.count < 1:
        raise SwitchscopeError(f"--count must be at least 1, got {args.count}")
    (target,) = catalog.select_targets(args.target)
    json_path = outputs.check_file(args.json, "--json", inputs=(Path(args.elf),)) if args.json else None
    limit = args.timeout if args.timeout is not None else default_time_limit(args.count)
    result = measure_elf(Path(args.elf), target, args.start, args.stop, args.count, limit, args.unit)
    print(report.marker_table(result))
    if result.count < args.count:
        why = result.details["stopped"] or "the firmware ended"
        print(f"warning: {result.count} of {args.count} intervals: {why}", file=sys.stderr)
    if json_path:
        report.write_json(json_path, [result], [])
    return 0


def command_intrusion(args) -> int:
    _check_samples(args.samples)
    json_path = outputs.check_file(args.json, "--json") if args.json else None
    rows, failed = [], 0
    # a combination is reported only where every method can measure it (the printing build may be n/a)
    found = plan(catalog.select_kernels(args.kernel), catalog.select_targets(args.target),
                 catalog.select_scenarios(args.scenario), list(METHODS.values()))
    skipped = {(s.kernel, s.target, what.split("/")[0]) for s in found.skipped for what in s.what}
    _say_skipped(found)
    cases = dict.fromkeys((job.kernel, job.target, job.scenario) for job in found.jobs
                          if (job.kernel.name, job.target.name, job.scenario.name) not in skipped)
    with display.Activity(args.quiet, "measurements") as activity:
        for kernel, target, scenario in cases:
            activity.begin(f"{kernel.name}/{target.name}", 4)
            try:
                rows.append(intrusion.report(kernel, target, scenario, args.samples, args.timeout, activity.on_stage))
            except SwitchscopeError as error:
                activity.say(f"error: {error}")
                failed += 1
    if rows:
        print(intrusion.table(rows))
    if json_path:
        report.write_json(json_path, rows, [])
    return 1 if failed else 0


def command_compare(args) -> int:
    threshold = compare.Threshold.parse(args.threshold)
    inputs = (Path(args.base), Path(args.new))
    junit = outputs.check_file(args.junit, "--junit", inputs) if args.junit else None
    json_path = outputs.check_file(args.json, "--json", inputs) if args.json else None
    found = compare.compare(compare.load(inputs[0], "base"), compare.load(inputs[1], "new"), args.metric, threshold,
                            tuple(args.ignore_option))
    print("\n".join(display.table(compare.table_rows(found, args.fail_on), markup=True)) if found
          else "  nothing to compare")
    print(compare.summary(found, threshold, tuple(args.ignore_option), args.fail_on))
    if junit:
        compare.write_junit(junit, found, threshold, args.fail_on)
    if json_path:
        outputs.write_text(json_path, json.dumps({"metric": args.metric, "threshold": str(threshold),
                                                  "fail_on": args.fail_on,
                                                  "comparisons": [c.as_json() for c in found]}, indent=1) + "\n")
    return 1 if compare.regressions(found, args.fail_on) else 0


def command_report(args) -> int:
    files = [file for given in args.inputs for file in results_files.files_in(Path(given), "input")]
    page = outputs.check_file(args.html, "--html", tuple(files))
    found = [results_files.read_file(file, "input") for file in files]
    results = sum(len(f.results) + len(f.intrusion) for f in found)
    if not results:
        raise SwitchscopeError(f"no results in {', '.join(args.inputs)}: nothing to report",
                               results_files.HINT)
    html_report.write(page, found, args.title)
    print(f"{page}: {results} results from {len(found)} file(s)")
    return 0


def _add_selection(command, kernel: str, target: str, scenario: str | None = None, method: str | None = None) -> None:
    """The options that choose what to measure, each a name or 'all'."""
    command.add_argument("--kernel", default=kernel, help=f"kernel name or 'all' (default: {kernel})")
    command.add_argument("--target", default=target, help=f"target name or 'all' (default: {target})")
    if scenario:
        command.add_argument("--scenario", default=scenario, help=f"scenario name or 'all' (default: {scenario})")
    if method:
        command.add_argument("--method", default=method, help=f"measurement method or 'all' (default: {method})")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
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
                     help="what to count: cycles by default (true cycles on simavr, the core's timing model on "
                          "the Cortex-M boards), or instructions (what QEMU itself counts)")
    run.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                     help="a kernel or build option, repeatable: preemption=off, priorities=off, opt=-Os, "
                          "trace=on, ... (switchscope list shows them all)")
    run.add_argument("--tasks", type=int, metavar="N", help="rotate scenario: how many tasks (default 2)")
    run.add_argument("--json", metavar="PATH", help="also write every result, with all samples, as JSON")
    run.add_argument("--vcd", metavar="PATH",
                     help="with --method scope: write the scope pin's trace as VCD (one file per scenario "
                          "when several run: PATH-TARGET-SCENARIO.vcd)")
    run.add_argument("--timeout", type=float, metavar="SECONDS",
                     help="stop a firmware that has not finished after this long (default: 20 s + 2 ms per sample)")
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
    sweep.add_argument("--tasks", metavar="LIST", help="rotate: task counts, e.g. 2-8 or 2,4,8")
    sweep.add_argument("--samples", default="1000", metavar="LIST",
                       help="samples (switches) per point, e.g. 100,1000,10000 (default: 1000)")
    sweep.add_argument("--config", action="append", default=[], metavar="NAME=V1,V2",
                       help="an option and the values to sweep it over, repeatable")
    sweep.add_argument("--jobs", type=int, metavar="N", help="measurements at once (default: one per core)")
    sweep.add_argument("--json", metavar="PATH", help="also write every result as JSON, each as soon as it is measured")
    sweep.add_argument("--resume", action="store_true",
                       help="keep the results already in --json (an interrupted sweep's) and measure only the rest")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")
    sweep.set_defaults(handler=command_sweep)

    whole = commands.add_parser(
        "suite", help="the whole experiment matrix, with tables and plots, into a results directory",
        description="For every kernel and target: each scenario under cooperative/preemptive x priorities "
                    "off/on (the BeRTOS table), rotate against the number of tasks and the number of "
                    "switches (the Cortex-M3 study's curves). Runs on all cores; writes one JSON per run, "
                    "summary.md, index.html (the HTML report) and PNG/SVG plots.")
    _add_selection(whole, "all", "all")
    whole.add_argument("--samples", type=int, default=1000, help="samples per measurement (default: 1000)")
    whole.add_argument("--out", default="switchscope-results", help="the results directory")
    whole.add_argument("--jobs", type=int, metavar="N", help="measurements at once (default: one per core)")
    whole.add_argument("--resume", action="store_true",
                       help="keep the results already in --out (an interrupted suite's) and measure only the rest")
    whole.add_argument("--quiet", action="store_true", help="no progress bar")
    whole.set_defaults(handler=command_suite)

    elf = commands.add_parser(
        "measure", help="count between two points of your own firmware (marker method)",
        description="Run a firmware you built on a simulated target and count, each time it passes, the "
                    "cycles (simavr; the timing model on Cortex-M) or instructions (--unit instructions) from "
                    "reaching --from to reaching --to: the "
                    "instruction at --from counts, the one at --to does not; interrupts taken between count.")
    elf.add_argument("elf", help="the firmware, an ELF built for the target")
    elf.add_argument("--target", required=True, help="the target it was built for (see: switchscope list)")
    elf.add_argument("--from", dest="start", required=True, metavar="SYMBOL_OR_ADDR", help="where an interval starts")
    elf.add_argument("--to", dest="stop", required=True, metavar="SYMBOL_OR_ADDR", help="where it ends")
    elf.add_argument("--count", type=int, default=1000, help="intervals to measure (default: 1000)")
    elf.add_argument("--unit", choices=catalog.UNITS,
                     help="cycles (the default: on Cortex-M through the core's timing model) or instructions "
                          "(what QEMU itself counts)")
    elf.add_argument("--timeout", type=float, metavar="SECONDS", help="bound on the run")
    elf.add_argument("--json", metavar="PATH", help="also write the result as JSON")
    elf.set_defaults(handler=command_measure)

    intrude = commands.add_parser(
        "intrusion", help="what each method adds to the path it measures, against the marker figure",
        description="Measure each scenario with the marker (nothing in the path), the probe, the scope, and "
                    "a build that prints a trace line inside the window; show what each adds before its "
                    "correction and the error left after it.")
    _add_selection(intrude, "freertos", "all", "all")
    intrude.add_argument("--samples", type=int, default=1000, help="samples per measurement (default: 1000)")
    intrude.add_argument("--timeout", type=float, metavar="SECONDS", help="bound on each run")
    intrude.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    intrude.add_argument("--quiet", action="store_true", help="no progress display")
    intrude.set_defaults(handler=command_intrusion)

    burn = commands.add_parser(
        "flash", help="write one scenario's image into a real board, without reading it",
        description="Build the image and flash it (avrdude, OpenOCD, as the board's board.toml says): for a logic "
                    "analyzer on the scope pin (--method scope, then switchscope analyze), or to read the board "
                    "later with switchscope run --port ... --no-flash.")
    _add_selection(burn, "freertos", "arduino-uno", "yield", "probe")
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
    capture.add_argument("--clock", type=float, metavar="HZ",
                         help="the CPU clock: figures in cycles (and microseconds) instead of nanoseconds")
    capture.add_argument("--json", metavar="PATH", help="also write the result, with all patterns, as JSON")
    capture.set_defaults(handler=command_analyze)

    versus = commands.add_parser(
        "compare", help="compare two sets of results; exit 1 when one got slower (for CI)",
        description="Match the results of BASE and NEW (run, sweep or measure JSON files, or suite directories) by "
                    "kernel, target, scenario, method, configuration and unit, and compare one statistic. Exit 0 "
                    "when none got slower than the threshold, 1 when one did (see --fail-on), 2 on bad input.")
    versus.add_argument("base", help="the results before the change")
    versus.add_argument("new", help="the results after it")
    versus.add_argument("--metric", default="median", help="the statistic compared: min, median, mode, mean, max, "
                                                            "stddev or p99 (default: median)")
    versus.add_argument("--threshold", default="0",
                        help="how much slower counts as a regression: a percentage (2%%) or an amount in the "
                             "result's unit (default 0: any increase, since the simulators are deterministic)")
    versus.add_argument("--ignore-option", action="append", default=[], metavar="NAME",
                        help="leave a configuration option out of the matching, repeatable: compare "
                             "o2.json os.json --ignore-option opt compares -O2 with -Os")
    versus.add_argument("--fail-on", choices=compare.FAIL_ON, default="any",
                        help="which regressions fail the command (exit 1): any (default), or outside-range: only "
                             "those whose TRM ranges do not overlap, so every chip the manual describes is slower "
                             "(a result without a range, such as instructions, fails as with any)")
    versus.add_argument("--junit", metavar="PATH", help="also write a JUnit XML file, one test per comparison")
    versus.add_argument("--json", metavar="PATH", help="also write the comparisons as JSON")
    versus.set_defaults(handler=command_compare)

    page = commands.add_parser(
        "report", help="one HTML page from results: runs, sweeps, suites, intrusion (opens without a network)",
        description="Read every result in the given JSON files and suite directories and write one self-contained "
                    "HTML page: kernels and configurations side by side, rotate's curves, the intrusion table, "
                    "every result in a sortable table, and each one's distribution and provenance.")
    page.add_argument("inputs", nargs="+", metavar="RESULTS",
                      help="a --json file of run, sweep, measure, analyze or intrusion, or a suite's directory")
    page.add_argument("--html", required=True, metavar="PATH", help="the page to write")
    page.add_argument("--title", default="switchscope report", help="the page's title")
    page.set_defaults(handler=command_report)

    listing = commands.add_parser("list", help="list kernels, targets, real boards, scenarios, methods and options")
    listing.add_argument("section", nargs="?", metavar="SECTION", help=f"one of {', '.join(LIST_SECTIONS)}")
    listing.set_defaults(handler=command_list)
    return top


def _interrupt(signal_number, _frame):
    raise Interrupted(signal_number)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not getattr(args, "handler", None):
        parser().print_help()
        return 2
    for number in (signal.SIGINT, signal.SIGTERM):  # unwind, so that every simulator is ended on the way out
        signal.signal(number, _interrupt)
    try:
        return args.handler(args)
    except SwitchscopeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Interrupted as interruption:
        print(f"interrupted: {getattr(interruption, 'kept', 'nothing was complete')}", file=sys.stderr)
        return interruption.exit_status
    except BrokenPipeError:  # the reader went away (switchscope list | head): nothing more to say
        sys.stderr.close()
        return 0
