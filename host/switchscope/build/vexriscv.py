"""The Verilator model of a VexRiscv core as LiteX generates it (VexRiscv_Full:
RV32IM, five stages, 4 KB instruction and data caches), with our testbench
host/verilator-harness/vexriscv.cc, built into build/vexriscv/<key>/vexriscv-sim.
The core is the whole design: the testbench answers its two Wishbone buses
itself (the RAM and the devices), so no top of ours wraps it.

The RTL is never part of this repository: it is read from the installed PyPI
package pythondata-cpu-vexriscv at build time, one file per variant
(verilog/VexRiscv_<variant>.v). The key names the package's version and the
variant, Verilator's version and a digest of our own files, so a model is
built once per key; a lock lets parallel commands build it once
(build/rtl_model.py, as Ibex's)."""

from __future__ import annotations

import os
from pathlib import Path

from switchscope.build import rtl_model
from switchscope.common import paths
from switchscope.common.errors import SwitchscopeError
from switchscope.common.tools import require

PACKAGE = "pythondata_cpu_vexriscv"
PACKAGE_PIN = "pythondata-cpu-vexriscv==1.0.1.post407"
INSTALL_HINT = f"pip install {PACKAGE_PIN} (into the Python that runs switchscope), or run ./setup.sh"
OWN_FILES = ("vexriscv.cc", "testbench.h", "vexriscv.vlt", "model_output.h")
BINARY = "vexriscv-sim"


def package_root() -> tuple[Path, str]:
    """The installed package's Verilog folder and a version naming the generated core's commit."""
    return rtl_model.package_root(PACKAGE, "verilog", INSTALL_HINT)


def variant_file(root: Path, variant: str) -> Path:
    path = root / f"{variant}.v"
    if not path.is_file():
        names = sorted(found.stem for found in root.glob("VexRiscv*.v"))
        raise SwitchscopeError(f"no VexRiscv variant {variant!r} in {root}", f"choose one of: {', '.join(names)}")
    return path


def verilator_arguments(verilog: Path, model: Path) -> list[str]:
    """Flags both Debian 12's Verilator 5.006 and Debian 13's 5.032 accept."""
    harness = rtl_model.harness_folder()
    return ["--cc", "--exe", "--build", "-O3", "--x-assign", "fast", "--x-initial", "fast",
            "--top-module", "VexRiscv", "--Mdir", str(model / "obj"), "-o", str(model / BINARY),
            "-Wno-fatal", "-Wno-lint", "-Wno-style",
            "-CFLAGS", f"-include {harness / 'model_output.h'}", "-j", str(os.cpu_count() or 1),
            *rtl_model.MAKE_FLAGS,
            str(harness / "vexriscv.vlt"), str(verilog), str(harness / "vexriscv.cc")]


def cache_root() -> Path:
    return paths.build_dir() / "vexriscv"


def model_key(variant: str) -> tuple[str, str, str]:
    """(cache key, the core's version, Verilator's version): what a model's results name as provenance."""
    _root, core_version = package_root()
    version = rtl_model.verilator_version(require("verilator", "verilator"))
    own = rtl_model.own_digest(OWN_FILES, Path(__file__))
    return f"vexriscv-{core_version}-{variant}-verilator-{version}-{own}", core_version, version


def ensure(variant: str, verbose: bool = False) -> Path:
    """The model's binary for a variant (VexRiscv_Full), built first if this key has none."""
    root, _core_version = package_root()
    verilog = variant_file(root, variant)
    verilator = rtl_model.build_tools()
    key, _core, _version = model_key(variant)

    def build(partial: Path, model: Path) -> None:
        partial.mkdir(parents=True)
        rtl_model.run_verilator(verilator, verilator_arguments(verilog, partial), partial, model, variant,
                                cache_root(), verbose)

    return rtl_model.build_once(cache_root(), key, BINARY, variant, build)
