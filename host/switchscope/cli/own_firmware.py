"""`switchscope measure`: a firmware of one's own (or the example application), between two points of it or at
every task switch."""

from __future__ import annotations

import sys
from pathlib import Path

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.build.firmware import EXAMPLE_KERNEL, build_example
from switchscope.cli.choices import check_runs_fit, check_samples
from switchscope.common import outputs, paths
from switchscope.common.errors import SwitchscopeError
from switchscope.run.runner import default_time_limit
from switchscope.figures.measure_elf import check_built_for, measure_elf
from switchscope.figures.switches import measure_switches
from switchscope.present import report, switches_view


def _check_measure_choice(args) -> None:
    """Two points, or --switches with its kernel: one of the two, whole."""
    if args.switches:
        if args.start or args.stop:
            raise SwitchscopeError("--switches finds the switches itself: it takes no --from or --to")
        if not args.kernel:
            raise SwitchscopeError("--switches needs the --kernel the firmware is built with",
                                   "e.g. --kernel freertos (see: switchscope list kernels)")
        if args.unit == "instructions":
            raise SwitchscopeError("--switches counts cycles: the switching path's exception entries and returns "
                                   "are cycles no instruction count sees", "leave out --unit")
    elif not (args.start and args.stop):
        raise SwitchscopeError("measure needs --from and --to (the two points of an interval), or --switches")
    elif args.kernel:
        raise SwitchscopeError("--kernel goes with --switches")


def command_measure(args) -> int:
    check_samples(args.count, "--count")
    _check_measure_choice(args)
    targets = catalog.select_targets(args.target)
    if len(targets) != 1:
        raise SwitchscopeError("measure runs a firmware on the one --target it was built for, not "
                               + ("all" if args.target == "all" else "several"),
                               "name the target (see: switchscope list targets)")
    (target,) = targets
    memory = configs.memory_choice(configs.parse(args.config), target)
    check_runs_fit(args, [], target)
    if catalog.real_boards_named(args.target):  # its simulated twin would run it, under another name
        raise SwitchscopeError(f"{args.target} is a real board, and measure runs a firmware on a simulator",
                               f"--target {target.name} runs it on the simulated {target.cpu}, the board's chip; "
                               f"on the board itself, switchscope run --target {args.target} --port /dev/ttyACM0 "
                               "measures the scenarios")
    kernels = catalog.select_kernels(args.kernel) if args.switches else [None]
    if len(kernels) != 1:
        raise SwitchscopeError("--switches takes the one --kernel the firmware is built with, not "
                               + ("all" if args.kernel == "all" else "several"))
    kernel = kernels[0]
    if args.build_example == bool(args.elf):
        raise SwitchscopeError("measure takes a firmware (an ELF) or --build-example, one of the two")
    json_path = outputs.check_file(args.json, "--json", inputs=(Path(args.elf),) if args.elf else ()) \
        if args.json else None
    if args.elf and not args.switches and (built_for := check_built_for(Path(args.elf), target)):
        print(f"note: {built_for}", file=sys.stderr)  # before any work; --switches checks the kernel's marks first
    # what --switches says of the user's ELF's core (not of the example, built here for the target)
    note = (lambda said: print(f"note: {said}", file=sys.stderr)) if args.elf else None
    paths.build_dir()
    if args.build_example:
        args.elf = str(build_example(kernel or catalog.KERNELS[EXAMPLE_KERNEL], target))
        print(f"the example application for {target.name}: {args.elf}")
    limit = args.timeout if args.timeout is not None else default_time_limit(args.count, target, memory)
    if args.switches:
        result = measure_switches(Path(args.elf), target, kernel, args.count, limit, note, memory)
    else:
        result = measure_elf(Path(args.elf), target, args.start, args.stop, args.count, limit, args.unit, memory)
    if json_path:  # the file first: a terminal that fails or goes away costs none of it
        report.write_json(json_path, [result], [])
    print(switches_view.text(result) if args.switches else report.marker_table(result))
    what = "switches" if args.switches else "intervals"
    if result.count < args.count:
        why = result.details.get("switches", result.details).get("stopped") or "the firmware ended"
        print(f"warning: {result.count} of {args.count} {what}: {why}", file=sys.stderr)
    return 0
