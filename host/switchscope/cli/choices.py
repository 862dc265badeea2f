"""The checks of what a measuring command was asked for, made before any work: the selection (names,
comma lists, what a real board needs), --tasks, --samples, the export files, and what to say of what the
plan leaves out; measure --switches, whose help names its targets when shown."""

from __future__ import annotations

import argparse

from switchscope import catalog
from switchscope.catalog.plan import Plan
from switchscope.common import outputs
from switchscope.common.errors import SwitchscopeError
from switchscope.catalog.job import Job
from switchscope.figures.measure import MAX_SAMPLES
from switchscope.run.runner import check_within_longest_run
from switchscope.run import flash, serial_port

TASKS_ONLY_ROTATE = "--tasks applies to the rotate scenario only"


def check_exports(args) -> tuple:
    """--export-csv and --export-markdown, checked before any work like every output."""
    return tuple(outputs.check_file(path, option) if path else None
                 for path, option in ((args.export_csv, "--export-csv"), (args.export_markdown, "--export-markdown")))


def check_samples(count: int, option: str = "--samples") -> None:
    """Before any work: the firmware counts samples in 32 bits, and so may a firmware measure runs."""
    if not 1 <= count <= MAX_SAMPLES:
        raise SwitchscopeError(f"{option} takes 1 to {MAX_SAMPLES}, got {count}")


def scenarios_with_tasks(requested: str, tasks_given: bool, only_rotate_for_all: bool) -> list[catalog.Scenario]:
    """The scenarios of a --scenario value, refused with --tasks when rotate is not among them (no other scenario
    has tasks). With `only_rotate_for_all` (run), 'all' with --tasks means rotate alone."""
    scenarios = catalog.select_scenarios(requested)
    if not tasks_given:
        return scenarios
    if requested == "all" and only_rotate_for_all:
        return [catalog.SCENARIOS["rotate"]]  # --tasks only means something there
    if catalog.SCENARIOS["rotate"] not in scenarios:
        raise SwitchscopeError(TASKS_ONLY_ROTATE, f"--scenario {requested} has no tasks to count: leave out --tasks, "
                                                  "or add rotate to --scenario")
    return scenarios


def say_skipped(found: Plan) -> None:
    """What the selection left out, once per kernel and reason, with every target it applies to; and the
    options measured only where they apply, once each."""
    grouped: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for skipped in found.skipped:
        targets, what = grouped.setdefault((skipped.kernel, skipped.reason), ([], []))
        targets.append(skipped.target)
        what.extend(item for item in skipped.what if item not in what)
    for (kernel, reason), (targets, what) in grouped.items():
        combinations = ", ".join(what) if len(what) <= 4 else f"{len(what)} scenario/method combinations"
        print(f"n/a: {kernel} on {', '.join(targets)} ({combinations}): {reason}")
    for note in found.notes:
        print(f"note: {note}")


def nothing_measurable(skipped) -> SwitchscopeError:
    """A selection with nothing measurable in it is bad input, said with why, not '0 of 0 measurements'."""
    reasons = sorted({f"{s.kernel} on {s.target}: {s.reason}" for s in skipped})
    shown = "; ".join(reasons[:4]) + (f"; and {len(reasons) - 4} more" if len(reasons) > 4 else "")
    # a reason that names the option to change already says what to do
    says_what_to_do = reasons and all("--unit" in r or "--method" in r for r in reasons)
    return SwitchscopeError(f"nothing to measure: {shown}" if reasons else "nothing to measure",
                            None if says_what_to_do else "choose a --target the kernel is ported to, another "
                            "--kernel, or a --scenario it has (see: switchscope list)")


def require_jobs(found: Plan) -> None:
    if not found.jobs:
        raise nothing_measurable(found.skipped)


def check_board_options(args) -> None:
    """--port, --no-flash, --baud and --simulate: a real board is read over its port, its image simulated
    with --simulate; the simulated targets are read over a port only when asked (--port)."""
    # a kit's own name (arduino-uno) needs its port; a kit QEMU also models (stm32vldiscovery) is simulated without
    real_boards = catalog.real_boards_named(args.target)
    if args.port is None:
        if args.no_flash or args.baud:
            raise SwitchscopeError(f"{'--no-flash' if args.no_flash else '--baud'} applies to a board read over "
                                   "--port")
        if real_boards and not args.simulate:
            board = real_boards[0]
            (target,) = catalog.select_targets(board)
            raise SwitchscopeError(f"{board} is a real board: give its serial port",
                                   f"switchscope run --target {board} --port /dev/ttyACM0, or --simulate to "
                                   f"run its image on {target.name}'s simulator")
        return
    if args.simulate:
        raise SwitchscopeError("--simulate runs the image on a simulator; --port reads a board: give one of them")
    if args.vcd:
        raise SwitchscopeError("--vcd records the scope pin on a simulator: on a board, record the pin with a logic "
                               "analyzer and read the capture with switchscope analyze")
    if len(catalog.select_targets(args.target)) > 1 or len(catalog.select_kernels(args.kernel)) > 1:
        raise SwitchscopeError("a board runs one kernel's image at a time: choose one --kernel and one --target")
    (target,) = catalog.select_targets(args.target)
    board = target.real_board
    by_hand = f"to flash it by hand: {board.by_hand}, then add --no-flash" if board and not args.no_flash else ""
    serial_port.check_port(args.port, by_hand)  # before any build: a missing board or a bad URL is said at once
    if board is None and not args.no_flash:
        raise flash.not_flashable(target)  # before any build, not as the measurement's failure


def check_runs_fit(args, jobs_or_points: list, target=None) -> None:
    """Before any work: each simulated run's count within the longest run its simulator allows without a
    --timeout (figures/measure.py): run's jobs at --samples, sweep's points at each of theirs, or measure's
    one `target` at --count."""
    if getattr(args, "timeout", None) is not None or getattr(args, "port", None):
        return
    if target is not None:
        check_within_longest_run(args.count, target, "--count")
    for item in jobs_or_points:
        if isinstance(item, Job):
            check_within_longest_run(args.samples, item.target)
        else:  # a sweep's point: sweep takes no --timeout
            check_within_longest_run(item.samples, item.job.target, timeout=False)


class SwitchesFlag(argparse._StoreTrueAction):
    """measure --switches, whose help names the targets from the catalog when it is shown, not when the
    command line is parsed: a broken catalog file is then said as the command's error, not a traceback."""

    @property
    def help(self) -> str:
        return f"time every task switch instead (in cycles; needs --kernel), on {', '.join(catalog.switches_targets())}"

    @help.setter
    def help(self, _given) -> None:
        pass
