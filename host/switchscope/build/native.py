"""The host-side native helpers: the simavr runner and the QEMU plugin, built
from their C sources in host/ into the build directory. Set-up builds them,
and so does the build stage of a measurement when a source is newer than its
binary; running a simulator only looks them up."""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from switchscope.build import rtl_cores
from switchscope.common import paths
from switchscope.common.errors import SwitchscopeError, ToolMissing
from switchscope.common.tools import require, run_owned

SIMAVR_HEADER = Path("/usr/include/simavr/sim_avr.h")


@dataclass(frozen=True)
class NativeTool:
    name: str  # the binary's file name in build/tools
    folder: str  # its sources, under host/
    sources: tuple[str, ...]  # the files compiled
    flags: tuple[str, ...]

    @property
    def output(self) -> Path:
        return paths.build_dir() / "tools" / self.name

    def _newest_source(self) -> float:
        return max(path.stat().st_mtime for path in (paths.checkout() / "host" / self.folder).iterdir())

    def is_current(self) -> bool:
        return self.output.is_file() and self.output.stat().st_mtime >= self._newest_source()


TOOLS = {
    "simavr": NativeTool("switchscope-simavr", "simavr-runner", ("switchscope_simavr.c",), ("-lsimavr", "-lelf")),
    # one concern a file: switchscope_plugin.c's opening comment names each
    "qemu": NativeTool("libswitchscope-qemu.so", "qemu-plugin",
                       ("switchscope_plugin.c", "counters.c", "event_log.c", "trace.c", "watches.c", "guest.c",
                        "stamps.c", "latency.c", "switches.c",
                        "cortex_m_flow.c", "cortex_m_lazy_fp.c", "cortex_m_timing.c", "cortex_m_fpu_timing.c",
                        "cortex_m_run_time_costs.c", "flash_memory.c", "ibex_flow.c", "ibex_timing.c", "ibex_fetch.c"),
                       ("-shared", "-fPIC", "-fvisibility=hidden")),
}


def ensure(simulator: str, core_config: str | None = None) -> Path:
    """The helper the simulator needs, built first if missing or older than its sources.
    Under a lock, into a private name renamed into place: parallel commands build it once.
    On Verilator the helper is the core's model itself, one per configuration."""
    if simulator == "verilator":
        return rtl_cores.ensure(core_config)
    tool = TOOLS[simulator]
    if tool.is_current():
        return tool.output
    if simulator == "simavr" and not SIMAVR_HEADER.is_file():
        raise ToolMissing("the simavr library headers are not installed",
                          "install the Debian packages libsimavr-dev and libelf-dev "
                          "(apt-get install libsimavr-dev libelf-dev), or run ./setup.sh")
    cc = require("gcc", "gcc")
    tool.output.parent.mkdir(parents=True, exist_ok=True)
    with (tool.output.parent / f".{tool.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if tool.is_current():  # another command built it while this one waited
            return tool.output
        partial = tool.output.with_name(f".{tool.name}.{os.getpid()}.tmp")
        folder = paths.checkout() / "host" / tool.folder
        result = run_owned([cc, "-O2", "-Wall", "-o", str(partial), *(str(folder / s) for s in tool.sources),
                            *tool.flags], capture_output=True, text=True)
        if result.returncode != 0:
            partial.unlink(missing_ok=True)
            raise SwitchscopeError(f"building {tool.name} in {folder} failed:\n{result.stderr.strip()[-2000:]}")
        partial.replace(tool.output)
    return tool.output


def built(simulator: str) -> Path:
    """The helper the simulator needs, as built by set-up or the build stage."""
    tool = TOOLS[simulator]
    if not tool.is_current():
        raise ToolMissing(f"{tool.output} is missing or older than host/{tool.folder}",
                          "run ./setup.sh (or any switchscope run, whose build stage builds it)")
    return tool.output
