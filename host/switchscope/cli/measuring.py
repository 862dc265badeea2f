"""The commands that measure the scenarios: run, sweep, suite, intrusion and breakdown (measure, of a firmware
of one's own, is own_firmware.py)."""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.catalog.plan import plan
from switchscope.common import outputs, paths
from switchscope.common.errors import FirmwareFailed, Interrupted, SwitchscopeError
from switchscope.decode.methods import METHODS
from switchscope.figures import breakdown, floor, intrusion, matrix, shards, suite
from switchscope.figures.measure import MAX_SAMPLES, measure, measure_on_port
from switchscope.figures.result import Result
from switchscope.figures.message_cost import message_costs
from switchscope.cli.choices import (check_board_options, check_exports, check_runs_fit, check_samples,
                                     nothing_measurable, require_jobs, say_skipped, scenarios_with_tasks)
from switchscope.present import (breakdown_text, display, exports, mechanism, message_cost, report,
                                 ruler_view, side_by_side, suite_page, thread_metric_view)

def command_run(args) -> int:
    check_board_options(args)
    if args.samples is None and args.port is None:
        args.samples = 10_000
    if args.samples is not None:
        check_samples(args.samples)
    scenarios = scenarios_with_tasks(args.scenario, args.tasks is not None, only_rotate_for_all=True)
    kernels = catalog.select_kernels(args.kernel)
    found = plan(kernels, catalog.select_targets(args.target), scenarios,
                 catalog.select_methods(args.method or "probe"), matrix.config_variants(args.config), [args.tasks],
                 unit=args.unit, method_chosen=args.method is not None or args.port is not None)
    require_jobs(found)
    jobs = found.jobs
    if args.floor:
        jobs = _floor_jobs(jobs, kernels) + jobs
    check_runs_fit(args, jobs)
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
    csv_path, markdown_path = check_exports(args)
    outputs.distinct((json_path, "--json"), (csv_path, "--export-csv"), (markdown_path, "--export-markdown"),
                     *((vcd, "--vcd") for vcd in vcds.values()))
    paths.build_dir()  # a build directory nothing can be made in is refused here, not once per job
    started = time.monotonic()
    try:
        if not args.port and not vcds and args.timeout is None and len(jobs) > 1:
            results, failures = _measure_side_by_side(jobs, args)
        else:
            results, failures = _measure_one_by_one(jobs, args, vcds)
    except Interrupted as interruption:
        _keep_complete(interruption, [outcome for _, outcome in interruption.completed if isinstance(outcome, Result)],
                       len(jobs), json_path, report.table)
        raise
    floor.attach(results)
    if json_path and results:  # the files first: a terminal that fails or goes away costs none of them
        report.write_json(json_path, results, failures, [s.as_json() for s in found.skipped])
    elif json_path:
        _say_not_written(json_path, len(failures))
    exports.write(csv_path, markdown_path, results, args.percentiles)
    if results:
        print(report.table(results, args.percentiles))
        for comparison in (side_by_side.method_comparison(results), side_by_side.kernel_comparison(results),
                           side_by_side.target_comparison(results)):
            if comparison:
                print("\n" + comparison)
        suite_table = thread_metric_view.text(results)
        if suite_table:
            print("\n" + suite_table)
        for result in results:
            for problem in result.stream_problems:
                print(f"warning: {result.scenario}: {problem}", file=sys.stderr)
            if result.clamped:
                print(f"warning: {result.scenario}: {result.clamped} samples were smaller than the probe "
                      "overhead and were clamped to 0", file=sys.stderr)
    say_skipped(found)
    if not args.quiet:
        print(f"\n{len(results)} of {len(jobs)} measurements in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 1 if failures or ruler_view.failed(results) else 0  # a ruler that reads wrong is a failed self-test


def _keep_complete(interruption: Interrupted, complete: list, asked: int, json_path: Path | None, table) -> None:
    """What was measured before the signal is written where asked, then shown (`table` draws it), and the
    interruption's line says so."""
    if not complete:
        return
    interruption.kept = f"{len(complete)} of {asked} measurements shown above"
    if json_path:
        report.write_json(json_path, complete, [], incomplete=f"interrupted after {len(complete)} of {asked} "
                                                              "measurements")
        interruption.kept += f" and written to {json_path}"
    print(table(complete))


def _measure_one_by_one(jobs: list[Job], args, vcds: dict) -> tuple[list[Result], list[dict]]:
    """Each job in turn, with its progress drawn sample by sample: a board over its port, a scope's VCD, a
    time limit. On an interruption, what was measured goes with it (`completed`)."""
    results, failures, completed = [], [], []
    try:
        with display.Activity(args.quiet, "samples") as activity:
            for number, job in enumerate(jobs, 1):
                activity.begin(str(job), args.samples or 1000)
                job_started = time.monotonic()
                try:
                    if args.port:
                        results.append(measure_on_port(job, args.port, args.baud or job.target.uart_baud,
                                                       args.samples, not args.no_flash, args.timeout,
                                                       activity.advance_to, activity.on_stage))
                    else:
                        results.append(measure(job, args.samples, args.timeout, activity.advance_to,
                                               activity.on_stage, vcds.get(str(job))))
                    completed.append((job, results[-1]))
                    said = display.outcome_text(results[-1])
                except SwitchscopeError as error:
                    activity.say(f"error: {error}")
                    failures.append({"job": str(job), "error": error.message})
                    said = "failed, as said above"
                activity.finished(number, len(jobs), display.measurement_name(job), said,
                                  time.monotonic() - job_started)
    except Interrupted as interruption:
        interruption.completed = completed
        raise
    return results, failures


def _measure_side_by_side(jobs: list[Job], args) -> tuple[list[Result], list[dict]]:
    """Simulated jobs on every core at once, the longest first (an interrupt latency's sweep), each said as
    it finishes; the results in the jobs' order."""
    order = sorted(range(len(jobs)), key=lambda i: not jobs[i].scenario.latency)
    points = [matrix.Point(jobs[i], args.samples) for i in order]
    failures = []
    with display.Activity(args.quiet, "measurements") as activity:
        activity.begin("measuring", len(points))

        def progress(done: int, total: int, point: matrix.Point, outcome) -> None:
            measured = isinstance(outcome, Result)
            if not measured:
                activity.say(f"error: {outcome}")
            activity.advance_to(done, every_time=True)
            activity.finished(done, total, display.measurement_name(point.job),
                              display.outcome_text(outcome) if measured else "failed, as said above",
                              outcome.wall_seconds if measured else None)

        outcomes = dict(zip(order, (outcome for _, outcome in matrix.run_points(points, progress=progress))))
    results = [outcomes[i] for i in range(len(jobs)) if isinstance(outcomes[i], Result)]
    failures = [{"job": str(jobs[i]), "error": outcomes[i]} for i in range(len(jobs)) if isinstance(outcomes[i], str)]
    return results, failures


def _floor_jobs(jobs: list[Job], kernels: list[catalog.Kernel]) -> list[Job]:
    """--floor: the floor kernel's job for each (target, scenario, method, unit, tasks, configuration)
    measured, with the job's values of the options the floor has (the same work: the lock, the message's
    size, the optimisation), where it runs on that target and is not measured already. A configuration the
    floor refuses gets no floor job; its result then says why it has no multiple."""
    kernel = catalog.KERNELS.get(floor.FLOOR)
    if kernel is None or kernel in kernels:
        return []
    wanted = {}
    for job in jobs:
        if job.target.name not in kernel.targets:
            continue
        chosen = floor.matching_options(job.resolved_config().as_dict(), kernel, job.scenario)
        try:
            config = configs.resolve(chosen, kernel, job.target, job.scenario, job.tasks)
        except SwitchscopeError:
            continue
        wanted.setdefault((job.target.name, job.scenario.name, job.method.name, job.unit, job.tasks, config),
                          Job(kernel, job.target, job.scenario, job.method, unit=job.unit, tasks=job.tasks,
                              config=config))
    return list(wanted.values())


def command_sweep(args) -> int:
    tasks = matrix.parse_counts(args.tasks, "--tasks", 255) if args.tasks else [None]
    samples = matrix.parse_counts(args.samples, "--samples", MAX_SAMPLES)
    found = plan(catalog.select_kernels(args.kernel), catalog.select_targets(args.target),
                 scenarios_with_tasks(args.scenario, args.tasks is not None, only_rotate_for_all=False),
                 catalog.select_methods(args.method or "probe"), matrix.config_variants(args.config), tasks,
                 method_chosen=args.method is not None)
    require_jobs(found)
    points = [matrix.Point(job, count) for job in found.jobs for count in samples]
    sweep_plan = {"digest": shards.plan_digest(points), "points": len(points)}  # the whole plan's, for --resume
    share = None
    if args.subset:  # the whole plan's digest goes with the share, for merge
        share = shards.manifest(points, args.subset)
        points = shards.share_of(points, args.subset)
        if not points:
            print(f"share {args.subset} holds no points: the plan's {share['points']} points need fewer shares "
                  "(each firmware's points go to one share)")
    matrix.check_fits_in_memory(points)
    check_runs_fit(args, points)
    if args.resume and not args.json:
        raise SwitchscopeError("--resume continues the sweep written to --json: give its path")
    json_path = outputs.check_file(args.json, "--json") if args.json else None
    csv_path, markdown_path = check_exports(args)
    outputs.distinct((json_path, "--json"), (csv_path, "--export-csv"), (markdown_path, "--export-markdown"))
    paths.build_dir()
    kept = matrix.results_already_in(json_path, points, share, sweep_plan) if args.resume else {}
    say_skipped(found)

    def write_so_far(results: list) -> None:
        report.write_json(json_path, results, [], incomplete=f"{len(results)} of {len(points)} points measured so far",
                          subset=share, plan=sweep_plan)

    def keep(_point, _outcome, completed):
        """Each result in the JSON as soon as it is measured: a crash or an interruption loses none."""
        if json_path:
            write_so_far(_results(completed))

    try:
        with display.Activity(args.quiet, "measurements") as activity:
            activity.begin("sweep", len(points))
            outcomes = matrix.run_points(points, args.jobs, activity.batch, keep, kept, args.cluster)
    except Interrupted as interruption:
        kept_now = _results(getattr(interruption, "completed", []))
        if json_path and kept_now:  # written again: the signal may have cut the last write short
            write_so_far(kept_now)
            interruption.kept = f"{len(kept_now)} of {len(points)} points in {json_path}"
        raise
    results = _results(outcomes)
    if json_path and not results:
        _say_not_written(json_path, len(outcomes))
    elif json_path:  # the files first: a terminal that fails or goes away costs none of them
        report.write_json(json_path, results,
                          [{"job": str(p.job), "samples": p.samples, "error": o} for p, o in outcomes if isinstance(o, str)],
                          subset=share, plan=sweep_plan)
    exports.write(csv_path, markdown_path, results, args.percentiles)
    for point, outcome in outcomes:
        if isinstance(outcome, str):
            print(f"error: {point.job}: {outcome}", file=sys.stderr)
    if results:
        print(report.sweep_table(results, args.percentiles))
        if comparison := mechanism.terminal_tables(results):
            print("\n" + comparison)
        if per_byte := message_cost.terminal_table(message_costs(results)):
            print("\n" + per_byte)
    return 1 if len(results) < len(outcomes) else 0


def _say_not_written(json_path: Path, failed: int) -> None:
    """A run that measured nothing writes no --json: an empty list in place of an earlier file would lose its
    results, and a gate reading it would compare nothing."""
    kept = "the file there is kept as it was" if json_path.is_file() else "no file was made"
    print(f"note: --json {json_path} not written: nothing was measured ({failed} failed, as said above); {kept}",
          file=sys.stderr)


def _results(outcomes: list) -> list:
    """The results among (point, outcome) pairs: the failed points' outcomes are their error messages."""
    return [outcome for _, outcome in outcomes if not isinstance(outcome, str)]


def command_suite(args) -> int:
    check_samples(args.samples)
    kernels, targets = catalog.select_kernels(args.kernel), catalog.select_targets(args.target)
    out = outputs.check_directory(args.out, "--out")
    if not args.resume:
        suite.check_out(out, resumable=True)
    if not suite.points(kernels, targets, args.samples):  # said with why, before a directory is made for nothing
        scenarios = [catalog.SCENARIOS[name] for name in (*suite.BERTOS_SCENARIOS, *suite.RHEALSTONE_SCENARIOS,
                                                          "rotate")]
        raise nothing_measurable(plan(kernels, targets, scenarios, [METHODS["probe"]]).skipped)
    paths.build_dir()
    with display.Activity(args.quiet, "measurements") as activity:
        activity.label = "suite"
        outcomes, written, wall = suite.run(kernels, targets, args.samples, out, args.jobs, suite_page.write,
                                            activity.batch, args.resume, args.subset, args.cluster)
    failed = [(p, o) for p, o in outcomes if isinstance(o, str)]
    for point, outcome in failed:
        print(f"error: {point.job}: {outcome}", file=sys.stderr)
    if args.subset and not outcomes:
        print(f"share {args.subset} holds no measurements: the suite needs fewer shares (each firmware's "
              "measurements go to one share)")
    print(f"{len(outcomes) - len(failed)} of {len(outcomes)} measurements in {wall:.1f} s; "
          f"{len(written)} files in {args.out} (open {Path(args.out) / 'index.html'} in a browser, "
          f"or read {Path(args.out) / 'summary.md'})")
    return 1 if failed else 0


def command_intrusion(args) -> int:
    check_samples(args.samples)
    json_path = outputs.check_file(args.json, "--json") if args.json else None
    rows, failed = [], 0
    # a combination is reported only where every method can measure it (the printing build may be n/a)
    found = plan(catalog.select_kernels(args.kernel), catalog.select_targets(args.target),
                 catalog.select_scenarios(args.scenario), list(METHODS.values()))
    skipped = {(s.kernel, s.target, what.split("/")[0]) for s in found.skipped for what in s.what}
    cases = dict.fromkeys((job.kernel, job.target, job.scenario) for job in found.jobs
                          if (job.kernel.name, job.target.name, job.scenario.name) not in skipped)
    if not cases:
        raise nothing_measurable(found.skipped)
    paths.build_dir()
    say_skipped(found)
    try:
        with display.Activity(args.quiet, "measurements") as activity:
            for number, (kernel, target, scenario) in enumerate(cases, 1):
                activity.begin(f"{kernel.name}/{target.name}", 4)
                case_started = time.monotonic()
                try:
                    rows.append(intrusion.report(kernel, target, scenario, args.samples, args.timeout,
                                                 activity.on_stage))
                    said = display.intrusion_text(rows[-1])
                except SwitchscopeError as error:
                    activity.say(f"error: {error}")
                    failed += 1
                    said = "failed, as said above"
                activity.finished(number, len(cases), f"{kernel.name} {scenario.name} on {target.name}, every "
                                  "method", said, time.monotonic() - case_started)
    except Interrupted as interruption:
        _keep_complete(interruption, rows, len(cases), json_path, report.intrusion_table)
        raise
    if json_path:  # the file first: a terminal that fails or goes away costs none of it
        report.write_json(json_path, rows, [])
    if rows:
        print(report.intrusion_table(rows))
    return 1 if failed else 0


def command_breakdown(args) -> int:
    for option in ("kernel", "target", "scenario"):
        if getattr(args, option) == "all":
            raise SwitchscopeError(f"breakdown --{option} all: it traces one window", f"name one {option}")
    if args.tasks is not None and args.scenario != "rotate":
        raise SwitchscopeError("--tasks applies to the rotate scenario only")
    if args.scenario in catalog.SCENARIOS and catalog.SCENARIOS[args.scenario].latency:
        raise SwitchscopeError(f"breakdown traces a switch's window; {args.scenario} times interrupts, and has none",
                               "switchscope run --scenario irq-latency names its worst case's code")
    check_samples(args.sample + 1)
    found = plan(catalog.select_kernels(args.kernel), catalog.select_targets(args.target),
                 catalog.select_scenarios(args.scenario), [METHODS["marker"]], [configs.parse(args.config)],
                 [args.tasks], unit=args.unit)
    require_jobs(found)
    paths.build_dir()
    job = breakdown.only_window(found.jobs, args.scenario)
    other = breakdown.against(job.target, args.against, args.unit) if args.against is not None else None
    try:
        traced = breakdown.breakdown(job, args.sample, args.timeout)
        print(breakdown_text.text(traced, args.instructions))
        if other is not None:
            against = breakdown.breakdown(dataclasses.replace(job, target=other), args.sample, args.timeout)
            print()
            print(breakdown_text.text(against, args.instructions))
            print()
            print(breakdown_text.side_by_side(traced, against))
    except FirmwareFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0
