"""`switchscope new-project`: a starting project for the user's own FreeRTOS application on a simulated
target: a main.c (examples/starter/), a Makefile that builds it as switchscope builds its example
application (the target's compiler and flags, the board's start-up code, linker script and UART from
firmware/boards/, FreeRTOS from the pinned crate, where cargo keeps it: referenced, never copied) and a
README.md saying what the simulated machine has and lacks. The project is written beside its directory
and renamed into place, whole or not at all."""

from __future__ import annotations

import shlex
import shutil
import tempfile
from pathlib import Path

from switchscope import catalog
from switchscope.build import kernel_source
from switchscope.build.firmware import EXAMPLE_KERNEL, Application, application
from switchscope.catalog import Kernel, Target
from switchscope.common import outputs, paths
from switchscope.common.errors import SwitchscopeError

STARTER = "starter"  # examples/<STARTER>/main.c: what the project starts from
ELF = "app.elf"


def project_unavailable(target: Target) -> str | None:
    """Why no project can be written for the target, or None where it can."""
    if target.gcc is None or not target.has_c_board:
        return f"{target.name} has no C board code (firmware/boards/{target.name}/board.c): only Rust kernels run there"
    return None


def project_targets() -> list[str]:
    return [name for name, target in catalog.current().targets.items() if project_unavailable(target) is None]


def check_directory(directory: Path) -> None:
    """The project's directory: new, or an empty one."""
    if directory.is_symlink() or directory.exists() and not directory.is_dir():
        raise SwitchscopeError(f"{directory}: is a file, not a directory", "give a new directory's name")
    if directory.is_dir() and any(directory.iterdir()):
        raise SwitchscopeError(f"{directory}: the directory exists and is not empty, and new-project writes a "
                               "project of its own", "give a new directory, or an empty one")
    parent = directory.absolute().parent
    if not parent.is_dir():
        raise SwitchscopeError(f"{directory}: {parent} is no directory", "create it first, or give another place")


def _make_text(value: str, roots: dict[str, Path]) -> str:
    """A flag or path as the Makefile writes it: quoted for the shell, $ doubled for make, and the folders
    of `roots` by the make variable that names them."""
    text = shlex.quote(value).replace("$", "$$")
    for variable, root in roots.items():
        text = text.replace(str(root), f"$({variable})")
    return text


def _in_checkout(path: str) -> str:
    """A path of the checkout's, as the checkout names it (firmware/boards/...)."""
    return str(Path(path).resolve().relative_to(paths.checkout().resolve()))


def _linker_script(made: Application) -> str:
    """The linker script the build names (-T), or the compiler's own for the chip."""
    if "-T" not in made.ldflags:
        return "the compiler's own linker script for the chip"
    return f"`{_in_checkout(made.ldflags[made.ldflags.index('-T') + 1])}`"


def makefile(made: Application, kernel: Kernel, target: Target) -> str:
    roots = {"SWITCHSCOPE_FIRMWARE": paths.firmware_dir().resolve(),
             "FREERTOS": kernel_source.crate_root(kernel.source)[0].resolve()}

    def listed(values) -> str:
        return " \\\n\t".join(_make_text(str(value), roots) for value in values)

    own, others = [s for s in made.sources if not s.is_absolute()], [s for s in made.sources if s.is_absolute()]
    return "\n".join([
        f"# Your FreeRTOS application for {target.name} ({target.summary}),",
        "# built as switchscope builds its example application. `make` writes app.elf; then",
        f"#   switchscope measure app.elf --target {target.name} --switches --kernel {kernel.name}",
        "# times its every task switch. Add your sources to APP_SOURCES; this folder comes first on the",
        "# include path, so a FreeRTOSConfig.h copied here replaces switchscope's.",
        "",
        f"SWITCHSCOPE_FIRMWARE ?= {roots['SWITCHSCOPE_FIRMWARE']}",
        f"FREERTOS ?= {roots['FREERTOS']}",
        f"CC = {target.gcc}",
        "",
        f"APP_SOURCES = {listed(own)}",
        "",
        f"CFLAGS = {listed(made.cflags)}",
        "",
        f"INCLUDES = -I. \\\n\t{listed(f'-I{folder}' for folder in made.includes)}",
        "",
        "# the board's start-up code, UART and timers, and the kernel",
        f"SYSTEM_SOURCES = {listed(others)}",
        "",
        f"LDFLAGS = {listed(made.ldflags)}",
        "",
        f"{ELF}: $(APP_SOURCES) $(SYSTEM_SOURCES) Makefile",
        f"\t$(CC) $(CFLAGS) $(INCLUDES) $(APP_SOURCES) $(SYSTEM_SOURCES) $(LDFLAGS) -Wl,-Map=app.map -o $@",
        "",
        "clean:",
        f"\trm -f {ELF} app.map",
        "",
        ".PHONY: clean",
        ""])


def readme(made: Application, kernel: Kernel, target: Target) -> str:
    machine = {"qemu": f"QEMU's `{target.simulated_machine}` machine", "simavr": "simavr",
               "verilator": "Ibex's RTL on Verilator"}[target.simulator]
    memory = "the simulated machine's" if target.memory == "machine" else "the chip's"
    lines = [
        f"# A {kernel.title} application for {target.name}",
        "",
        f"{target.summary}. Written by `switchscope new-project`; put your application into `main.c` (and more",
        "files into `APP_SOURCES` in the Makefile), then:",
        "",
        "```sh",
        "make",
        *([] if target.switches_unavailable else
          [f"switchscope measure {ELF} --target {target.name} --switches --kernel {kernel.name}   # every switch"]),
        f"switchscope measure {ELF} --target {target.name} --from FUNCTION --to FUNCTION   # any interval",
        "```",
        "",
        *([f"`--switches` is not available on {target.name}: {target.switches_unavailable}.", ""]
          if target.switches_unavailable else []),
        "## What the build uses",
        "",
        f"- **Compiler**: `{target.gcc}` (Debian: {target.gcc_package}), with the flags in the Makefile: "
        f"`{' '.join(target.cflags)}`, and {kernel.title}'s configuration as switchscope builds it.",
        f"- **Start-up code and linker script**: switchscope's board code, `firmware/boards/{target.board_code.name}/"
        f"board.c`, and {_linker_script(made)} (`LDFLAGS` in the Makefile).",
        f"- **{kernel.title}**: the pinned crate's sources, where cargo keeps them (`FREERTOS` in the Makefile), "
        f"and switchscope's `FreeRTOSConfig.h` (`firmware/kernels/{kernel.name}/`).",
        f"- **Output**: {target.uart}; `board_write()` and `board_flush()` (`switchscope/board.h`) send bytes "
        "through it, and the simulator prints them.",
        f"- **Memory**: {target.flash_bytes // 1024} KiB of flash and {target.ram_bytes // 1024} KiB of RAM, "
        f"{memory}.",
        f"- **Clock**: {target.f_cpu_hz / 1e6:g} MHz" + (f"; {target.caveat}" if target.caveat else "") + ".",
        "",
        "## What the simulated machine has, and lacks",
        "",
        f"It runs on {machine}. {target.devices or ''}".rstrip() + ".",
        "",
        "An application written for the real chip's vendor library (its HAL) runs as far as the peripherals it "
        "touches are modelled: a register of a device that is not modelled reads 0 and ignores writes, so code "
        "that waits for a clock to lock or a flag to rise waits for ever there. Set the clock up and drive the "
        "peripherals through the board code instead, or leave them out of what you measure.",
        ""]
    return "\n".join(lines)


def write_project(directory: Path, kernel: Kernel, target: Target) -> None:
    """Write the project into `directory` (new or empty): built in a folder beside it, then renamed into place."""
    if kernel.name != EXAMPLE_KERNEL:
        raise SwitchscopeError(f"new-project writes a {catalog.KERNELS[EXAMPLE_KERNEL].title} application, not "
                               f"{kernel.title}", f"give --kernel {EXAMPLE_KERNEL}, or leave --kernel out")
    if why := project_unavailable(target):
        raise SwitchscopeError(why, f"use one of {', '.join(project_targets())}")
    check_directory(directory)
    made = application(kernel, target, [Path("main.c")])
    files = {"main.c": (paths.checkout() / "examples" / STARTER / "main.c").read_text(),
             "Makefile": makefile(made, kernel, target), "README.md": readme(made, kernel, target)}
    parent = directory.absolute().parent
    try:
        scratch = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", suffix=".partial", dir=parent))
    except OSError as error:
        raise SwitchscopeError(f"cannot write {directory}: {error.strerror}") from None
    try:
        for name, text in files.items():
            (scratch / name).write_text(text)
        scratch.chmod(0o777 & ~outputs._umask())  # mkdtemp's folder is private; a project is not
        scratch.replace(directory)  # onto an empty directory, or none
    except OSError as error:
        raise SwitchscopeError(f"cannot write {directory}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

