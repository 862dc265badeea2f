#!/usr/bin/env python3
"""Builds the Verilator model of Ibex's simple_system for a configuration of
the installed pythondata-cpu-ibex, as switchscope's build stage does
(switchscope.build.verilator; the testbench is host/verilator-harness/).

    PYTHONPATH=host python3 host/ibex-harness/build.py --config small      # prints the model's path
    PYTHONPATH=host python3 host/ibex-harness/build.py --list-configs

Exit statuses: 0 built (or cached), 1 the build failed, 2 bad input or a
missing tool."""

from __future__ import annotations

import argparse
import importlib.util  # noqa: F401  (the tests reach the package lookup through it)
import shutil  # noqa: F401  (the tests reach the tool lookup through it)
import sys

from switchscope.build.verilator import (PACKAGE, ensure, generic_primitives, package_root,  # noqa: F401
                                         read_configs, tracer_stub, verilator_arguments)
from switchscope.common.errors import BuildFailed
from switchscope.common.errors import SwitchscopeError as BuildError


def build(config: str, verbose: bool = False, tracer: bool = False):
    return ensure(config, verbose, tracer)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="small", help="a configuration of ibex_configs.yaml (default: small)")
    parser.add_argument("--list-configs", action="store_true", help="print the configurations and exit")
    parser.add_argument("--tracer", action="store_true",
                        help="keep Ibex's instruction tracer (ibex-sim --trace; the model runs 2.5 times slower)")
    parser.add_argument("--verbose", action="store_true", help="show Verilator's and the compiler's output")
    arguments = parser.parse_args(argv)
    try:
        if arguments.list_configs:
            for name, parameters in read_configs(package_root()[0]).items():
                print(name, " ".join(f"{key}={value}" for key, value in parameters.items()))
            return 0
        print(build(arguments.config, arguments.verbose, arguments.tracer))
        return 0
    except BuildError as error:
        print(f"ibex build: {error.message}", file=sys.stderr)
        if error.hint:
            print(f"fix: {error.hint}", file=sys.stderr)
        return 1 if isinstance(error, BuildFailed) else 2


if __name__ == "__main__":
    sys.exit(main())
