"""`switchscope new-project`: its grammar and its handler."""

from __future__ import annotations

from pathlib import Path

from switchscope import catalog
from switchscope.build.firmware import EXAMPLE_KERNEL
from switchscope.build.project import ELF, project_targets, write_project
from switchscope.common.errors import SwitchscopeError


def add_parser(commands, one_name) -> None:
    new = commands.add_parser(
        "new-project", help="write a starting project for your own FreeRTOS application on a simulated target",
        description="Write DIRECTORY (new, or empty): a main.c to put your FreeRTOS application into, a Makefile "
                    "that builds it as switchscope builds its example (the target's compiler and flags, the "
                    "board's start-up code, linker script and UART, FreeRTOS from the pinned crate) and a "
                    "README.md saying what the simulated machine has and lacks. Then `make` and "
                    f"`switchscope measure {ELF} --target TARGET --switches --kernel {EXAMPLE_KERNEL}`. "
                    "On every simulated target with C board code (docs/own-firmware.md).")
    new.add_argument("directory", metavar="DIRECTORY", help="where to write the project: a new or empty directory")
    new.add_argument("--target", required=True, type=one_name,
                     help="the simulated target it is built for (see: switchscope list targets)")
    new.add_argument("--kernel", type=one_name, default=EXAMPLE_KERNEL,
                     help=f"the kernel it is built on ({EXAMPLE_KERNEL}, the default and the one there is)")
    new.set_defaults(handler=command_new_project)


def command_new_project(args) -> int:
    targets = catalog.select_targets(args.target)
    if len(targets) != 1 or catalog.real_boards_named(args.target):
        raise SwitchscopeError(f"new-project writes a project for one simulated --target, not {args.target}",
                               f"name one of {', '.join(project_targets())}")
    (kernel,) = catalog.select_kernels(args.kernel)
    write_project(Path(args.directory), kernel, targets[0])
    print(f"wrote {args.directory}: main.c, Makefile, README.md for {targets[0].name}; build it with "
          f"make -C {args.directory}, then: switchscope measure {Path(args.directory) / ELF} --target "
          f"{targets[0].name} --switches --kernel {kernel.name}")
    return 0
