"""The commands for real boards and their captures: flash, and analyze (a logic analyzer's capture)."""

from __future__ import annotations

import sys
from pathlib import Path

from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.catalog import configs
from switchscope.catalog.plan import plan
from switchscope.cli.measuring import check_samples, say_skipped
from switchscope.common import outputs
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.figures.capture import analyze
from switchscope.figures import kinds
from switchscope.present import report
from switchscope.run import flash, serial_port

def command_flash(args) -> int:
    """Build one image and write it into a real board, without reading it: for a logic analyzer on the
    scope pin (--method scope, then switchscope analyze), or to read it later with run --no-flash."""
    for option in ("kernel", "target", "scenario", "method"):
        if getattr(args, option) == "all":
            raise SwitchscopeError(f"flash --{option} all: a board holds one image", f"name one {option}")
    (target,) = catalog.select_targets(args.target)
    if target.real_board is None:
        boards = ", ".join(catalog.real_boards())
        raise SwitchscopeError(f"{args.target} is no real board switchscope can flash", f"real boards: {boards}")
    found = plan(catalog.select_kernels(args.kernel), [target], catalog.select_scenarios(args.scenario),
                 catalog.select_methods(args.method or "probe"), [configs.parse(args.config)])
    if len(found.jobs) != 1:
        say_skipped(found)
        raise SwitchscopeError(f"a board holds one image: {len(found.jobs)} were asked for",
                               "choose one --kernel, --scenario and --method")
    if target.real_board.flashes_through_port:  # names are checked first: a typo is said before a missing port
        if not args.port:
            raise SwitchscopeError(f"{target.real_board.name} is flashed through its serial port: give it with "
                                   "--port", "an Arduino Uno is usually /dev/ttyACM0")
        serial_port.check_exists(args.port, f"to flash it by hand: {target.real_board.by_hand}")
    (job,) = found.jobs
    if args.samples is not None:
        check_samples(args.samples)
    config = job.resolved_config()
    firmware = build(job.kernel, job.target, job.scenario, job.method, config)
    kind = kinds.of(job)
    image = flash.with_parameters(firmware.elf, kind.parameters(kind.samples(args.samples), config))
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
    if json_path:  # the file first: a terminal that fails or goes away costs none of it
        report.write_json(json_path, [result], [])
    print(report.capture_table(result))
    return 0
