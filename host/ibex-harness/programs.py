#!/usr/bin/env python3
"""Builds the prototype's RV32 programs for Ibex's simple_system with Debian's
riscv64-unknown-elf toolchain, into build/ibex/programs/:

    timing    programs/timing.S between watched mark_* labels (no C library)
    interrupts  programs/interrupts.S: the harness's software interrupt and latency
              timer (fast and NMI lines), each vector reading mcycle (no C library)
    freertos  two FreeRTOS tasks yielding (programs/freertos/), the kernel from
              the pinned crate freertos-next as the project's FreeRTOS builds
              locate it, its RISC-V port with RISCV_MTIME_CLINT_no_extensions

    PYTHONPATH=host python3 host/ibex-harness/programs.py timing   # prints the ELF's path

Exit statuses: 0 built, 1 the compiler failed, 2 bad input or a missing tool."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
# the ibex board's freestanding string.h, stdlib.h and their functions (libc.c)
LIBC = HERE.parents[1] / "firmware" / "boards" / "ibex"
# Debian's binutils 2.40 wants the CSR extension named; its multilib libgcc is
# found for rv32imc only under the 2.2 ISA spec (where I has the CSRs): rv32im's.
BARE_FLAGS = ["-march=rv32imc_zicsr", "-mabi=ilp32"]
LIBRARY_FLAGS = ["-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32"]
COMMON_FLAGS = ["-O2", "-g", "-ffreestanding", "-fno-common", "-Wall", "-nostartfiles",
                "-T", str(PROGRAMS / "simple_system.ld"), "-Wl,--no-warn-rwx-segments"]
RISCV_PORT = "portable/GCC/RISC-V"


class ProgramError(Exception):
    def __init__(self, message: str, hint: str = "", status: int = 2):
        super().__init__(message)
        self.hint, self.status = hint, status


def output_dir() -> Path:
    return Path(os.environ.get("SWITCHSCOPE_BUILD", HERE.parents[1] / "build")) / "ibex" / "programs"


def freertos_tree() -> Path:
    """FreeRTOS-Kernel/ inside the crate the project pins, located as its own C builds do."""
    try:
        from switchscope import catalog
        from switchscope.build.kernel_source import crate_root
        from switchscope.common.errors import SwitchscopeError
    except ImportError as error:
        raise ProgramError(f"the switchscope package is not importable ({error})",
                           "run with PYTHONPATH=host and the project's virtualenv") from None
    try:
        root, _version = crate_root(catalog.KERNELS["freertos"].source)
    except SwitchscopeError as error:
        raise ProgramError(str(error), getattr(error, "hint", "") or "") from None
    return root


def sources_and_flags(name: str, compiler: str) -> tuple[list[Path], list[str]]:
    if name == "timing":
        return [PROGRAMS / "crt0.S", PROGRAMS / "timing.S", PROGRAMS / "timing_main.c"], [*BARE_FLAGS, "-nostdlib"]
    if name == "interrupts":
        return ([PROGRAMS / "crt0.S", PROGRAMS / "interrupts.S", PROGRAMS / "interrupts_main.c"],
                [*BARE_FLAGS, "-nostdlib"])
    kernel = freertos_tree()
    port = kernel / RISCV_PORT
    sources = [PROGRAMS / "crt0.S", PROGRAMS / "freertos" / "yield.c",
               *(kernel / file for file in ("tasks.c", "queue.c", "list.c", "portable/MemMang/heap_4.c")),
               port / "port.c", port / "portASM.S"]
    sources.append(LIBC / "libc.c")
    # No C library (picolibc is a 1 GB install): our string.h and stdlib.h, gcc's own
    # freestanding headers, and libgcc alone at the link.
    flags = [*LIBRARY_FLAGS, "-nostdlib", "-nostdinc", f"-isystem{LIBC}",
             f"-isystem{gcc_include(compiler)}",
             f"-I{PROGRAMS / 'freertos'}", f"-I{kernel / 'include'}", f"-I{port}",
             f"-I{port / 'chip_specific_extensions' / 'RISCV_MTIME_CLINT_no_extensions'}",
             # every vector of crt0's table enters the port's one trap handler, which reads mcause
             "-Wl,--defsym=trap_entry=freertos_risc_v_trap_handler"]
    return sources, flags


def gcc_include(compiler: str) -> Path:
    """gcc's own headers (stddef.h, stdint.h), which -nostdinc leaves out with the rest."""
    return Path(subprocess.run([compiler, "-print-file-name=include"], capture_output=True, text=True,
                               check=True).stdout.strip())


def build(name: str, defines: tuple[str, ...] = ()) -> Path:
    compiler = shutil.which("riscv64-unknown-elf-gcc")
    if compiler is None:
        raise ProgramError("riscv64-unknown-elf-gcc is not installed",
                           "apt-get install gcc-riscv64-unknown-elf (or run ./setup.sh)")
    sources, flags = sources_and_flags(name, compiler)
    flags += [f"-D{define}" for define in defines]
    output = output_dir() / (f"{name}.elf" if not defines else f"{name}-{'-'.join(defines).replace('=', '_')}.elf")
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{name}.{os.getpid()}.elf")
    # libgcc after the objects that need it (what nothing needs is left out)
    command = [compiler, *flags, *COMMON_FLAGS, "-o", str(partial), *map(str, sources), "-lgcc"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        raise ProgramError(f"building {name} failed:\n{result.stderr.strip()[-3000:]}", status=1)
    partial.replace(output)
    return output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", choices=("timing", "interrupts", "freertos"))
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="a preprocessor definition for the program's sources (also names the ELF)")
    arguments = parser.parse_args(argv)
    try:
        print(build(arguments.program, tuple(arguments.defines)))
        return 0
    except ProgramError as error:
        print(f"ibex programs: {error}", file=sys.stderr)
        if error.hint:
            print(f"fix: {error.hint}", file=sys.stderr)
        return error.status


if __name__ == "__main__":
    sys.exit(main())
