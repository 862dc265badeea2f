#!/usr/bin/env python3
"""Runs an RV32 ELF on the Ibex model of a configuration (built first if need
be), watching the ELF's symbols that start with a prefix: prints the
program's output, then each watched retirement as "<cycle> <name>" and the
cycles since the previous one.

    PYTHONPATH=host python3 host/ibex-harness/run.py --config small --watch mark_ ELF

Exit statuses: those of the harness (0 halted, 1 the cycle bound came first),
2 bad input."""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def sibling(name: str):
    """This folder's NAME.py as a module, loaded by its path under the name ibex_harness_NAME:
    the folder is not a package, and plain names such as `build` or `run` must not
    shadow other modules on sys.path."""
    qualified = f"ibex_harness_{name}"
    if qualified not in sys.modules:
        spec = importlib.util.spec_from_file_location(qualified, HERE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module
        spec.loader.exec_module(module)
    return sys.modules[qualified]


build = sibling("build")


def symbols(elf: Path, prefix: str) -> dict[str, int]:
    """The ELF's global symbols whose names start with `prefix`, by name."""
    from elftools.elf.elffile import ELFFile

    with elf.open("rb") as file:
        table = ELFFile(file).get_section_by_name(".symtab")
        if table is None:
            raise build.BuildError(f"{elf} has no symbol table", "link it without -s")
        return {symbol.name: symbol["st_value"] for symbol in table.iter_symbols()
                if symbol.name.startswith(prefix) and symbol["st_info"]["type"] in ("STT_FUNC", "STT_NOTYPE")
                and symbol["st_shndx"] != "SHN_UNDEF"}


def run(config: str, elf: Path, prefix: str, max_cycles: int) -> tuple[int, str, list[tuple[int, str]]]:
    """The harness's exit status, the program's output and the watch log."""
    model = build.build(config)
    watches = symbols(elf, prefix) if prefix else {}
    if prefix and not watches:
        raise build.BuildError(f"{elf} has no symbol starting with {prefix!r}", "check the prefix")
    with tempfile.NamedTemporaryFile("r", suffix=".log") as log:
        command = [str(model), "--max-cycles", str(max_cycles), "--log", log.name]
        for name, address in watches.items():
            command += ["--watch", f"{name}={address:#x}"]
        result = subprocess.run([*command, str(elf)], capture_output=True, text=True)
        entries = [(int(cycle), name) for cycle, name in (line.split(" ", 1) for line in log.read().split("\n") if line)]
    sys.stderr.write(result.stderr)
    return result.returncode, result.stdout, entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("elf", type=Path)
    parser.add_argument("--config", default="small", help="an Ibex configuration (build.py --list-configs)")
    parser.add_argument("--watch", default="", metavar="PREFIX", help="watch the symbols starting with PREFIX")
    parser.add_argument("--max-cycles", type=int, default=10_000_000)
    arguments = parser.parse_args(argv)
    if not arguments.elf.is_file():
        print(f"ibex run: no file {arguments.elf}", file=sys.stderr)
        return 2
    try:
        status, output, entries = run(arguments.config, arguments.elf, arguments.watch, arguments.max_cycles)
    except build.BuildError as error:
        print(f"ibex run: {error.message}", file=sys.stderr)
        if error.hint:
            print(f"fix: {error.hint}", file=sys.stderr)
        return 1 if isinstance(error, build.BuildFailed) else 2
    sys.stdout.write(output)
    previous = None
    for cycle, name in entries:
        since = "" if previous is None else f" +{cycle - previous}"
        print(f"{cycle} {name}{since}")
        previous = cycle
    return status


if __name__ == "__main__":
    sys.exit(main())
