"""The host-side native helpers: the simavr runner and the QEMU plugin. Each is
built from its C source in host/ into the build directory on first use, and
again whenever the source is newer than the binary."""

from __future__ import annotations

import subprocess
from pathlib import Path

from switchscope import paths
from switchscope.errors import SwitchscopeError, ToolMissing
from switchscope.tools import require

SIMAVR_HEADER = Path("/usr/include/simavr/sim_avr.h")


def _build(source: Path, output: Path, flags: list[str]) -> Path:
    if output.is_file() and output.stat().st_mtime >= source.stat().st_mtime:
        return output
    cc = require("gcc", "gcc")
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".tmp")
    result = subprocess.run([cc, "-O2", "-Wall", "-o", str(partial), str(source), *flags],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SwitchscopeError(f"building {output.name} from {source} failed:\n{result.stderr.strip()[-2000:]}")
    partial.replace(output)
    return output


def simavr_runner() -> Path:
    """The switchscope-simavr executable (host/simavr-runner/)."""
    if not SIMAVR_HEADER.is_file():
        raise ToolMissing("the simavr library headers are not installed",
                          "install the Debian packages libsimavr-dev and libelf-dev "
                          "(apt-get install libsimavr-dev libelf-dev), or run ./setup.sh")
    return _build(paths.checkout() / "host" / "simavr-runner" / "switchscope_simavr.c",
                  paths.build_dir() / "tools" / "switchscope-simavr", ["-lsimavr", "-lelf"])


def qemu_plugin() -> Path:
    """The switchscope QEMU plugin (host/qemu-plugin/)."""
    return _build(paths.checkout() / "host" / "qemu-plugin" / "switchscope_plugin.c",
                  paths.build_dir() / "tools" / "libswitchscope-qemu.so", ["-shared", "-fPIC"])
