"""The Verilator model of lowRISC's Ibex core: its simple_system top (RAM at
0x100000, output and halt at 0x20000, mtime at 0x30000) with our testbench
host/verilator-harness/harness.cc, built into build/ibex/<key>/ibex-sim.
simple_system ties the core's software, fast and non-maskable interrupt
lines to 0 and grants every memory request at once; the model is built from a
copy of its top, derived at build time, whose lines are top-level inputs
instead, so that the testbench can drive them, and whose RAM waits a number
of cycles the testbench sets before it takes an instruction fetch or a data
access (harness_top, host/verilator-harness/wait_states.sv).

The RTL is never part of this repository: it is read from the installed PyPI
package pythondata-cpu-ibex at build time, and so are the configurations
(its ibex_configs.yaml). The key names the package's version and core commit,
the configuration, Verilator's version and a digest of our own files, so a
model is built once per key; a lock lets parallel commands build it once."""

from __future__ import annotations

import os
import re
from pathlib import Path

from switchscope.build import rtl_model
from switchscope.build.rtl_model import harness_folder, verilator_version
from switchscope.common import paths
from switchscope.common.errors import SwitchscopeError
from switchscope.common.tools import require

PACKAGE = "pythondata_cpu_ibex"
PACKAGE_PIN = "pythondata-cpu-ibex==0.0.post2937"
INSTALL_HINT = f"pip install {PACKAGE_PIN} (into the Python that runs switchscope), or run ./setup.sh"
# Our own sources that shape the model: a change to any of them is a new cache key.
OWN_FILES = ("harness.cc", "testbench.h", "watch.vlt", "model_output.h", "wait_states.sv")
# simple_system takes these three as `defines (its VCS path), the rest as parameters.
DEFINE_PARAMETERS = ("RV32M", "RV32B", "RegFile")
# Packages must be read before the modules that import them; Verilator finds
# every module by its file name in the search folders.
PACKAGES = (
    "vendor/lowrisc_ip/ip/prim/rtl/prim_util_pkg.sv",
    "vendor/lowrisc_ip/ip/prim/rtl/prim_mubi_pkg.sv",
    "vendor/lowrisc_ip/ip/prim/rtl/prim_count_pkg.sv",
    "vendor/lowrisc_ip/ip/prim/rtl/prim_secded_pkg.sv",
    "vendor/lowrisc_ip/ip/prim/rtl/prim_cipher_pkg.sv",
    "vendor/lowrisc_ip/ip/prim/rtl/prim_ram_1p_pkg.sv",
    "vendor/lowrisc_ip/ip/prim/rtl/prim_ram_2p_pkg.sv",
    "rtl/ibex_pkg.sv",
    "rtl/ibex_tracer_pkg.sv",
)
TOP_FILE = "examples/simple_system/rtl/ibex_simple_system.sv"
# The top's interrupt lines simple_system ties off, and the input port each becomes (harness.cc drives them).
INTERRUPT_PORTS = (("irq_software_i", "IO_IRQ_SOFTWARE", ""), ("irq_fast_i", "IO_IRQ_FAST", "[14:0] "),
                   ("irq_nm_i", "IO_IRQ_NM", ""))
# The memory's wait states, apart for the two ports (harness.cc's --fetch-wait-states and --data-wait-states):
# each an input of the top, and the text of the top that each rewrite replaces, with what replaces it. The
# instruction port's grant is the request itself in simple_system; the data port's comes from its bus, and only
# accesses to the RAM wait (the output, halt and timer registers answer as before).
WAIT_STATE_PORTS = ("IO_FETCH_WAIT_STATES", "IO_DATA_WAIT_STATES")
WAIT_STATE_REWRITES = (
    (r"assign\s+instr_gnt\s*=\s*instr_req\s*;",
     "logic fetch_ready;\n  assign instr_gnt = instr_req & fetch_ready;\n"
     "  switchscope_wait_states u_fetch_wait_states (.clk_i(clk_sys), .rst_ni(rst_sys_n), .req_i(instr_req),\n"
     "    .slow_i(1'b1), .wait_states_i(IO_FETCH_WAIT_STATES), .ready_o(fetch_ready));\n"
     "  logic core_data_req, data_ready;\n"
     "  assign host_req[CoreD] = core_data_req & data_ready;\n"
     "  switchscope_wait_states u_data_wait_states (.clk_i(clk_sys), .rst_ni(rst_sys_n), .req_i(core_data_req),\n"
     "    .slow_i((host_addr[CoreD] & cfg_device_addr_mask[Ram]) == cfg_device_addr_base[Ram]),\n"
     "    .wait_states_i(IO_DATA_WAIT_STATES), .ready_o(data_ready));"),
    (r"(\.b_req_i\s*\()\s*instr_req\s*(\))", r"\g<1>instr_req & instr_gnt\g<2>"),
    (r"(\.data_req_o\s*\()\s*host_req\[CoreD\]\s*(\))", r"\g<1>core_data_req\g<2>"),
    (r"(\.data_gnt_i\s*\()\s*host_gnt\[CoreD\]\s*(\))", r"\g<1>host_gnt[CoreD] & data_ready\g<2>"),
)
SEARCH_FOLDERS = ("rtl", "shared/rtl", "shared/rtl/sim", "vendor/lowrisc_ip/ip/prim/rtl",
                  "vendor/lowrisc_ip/ip/prim_generic/rtl")
INCLUDE_FOLDERS = ("rtl", "vendor/lowrisc_ip/ip/prim/rtl", "vendor/lowrisc_ip/dv/sv/dv_utils")
GENERIC_FOLDER = "vendor/lowrisc_ip/ip/prim_generic/rtl"


def package_root() -> tuple[Path, str]:
    """The installed package's RTL tree and a version naming the core's commit."""
    return rtl_model.package_root(PACKAGE, "system_verilog", INSTALL_HINT)


def read_configs(root: Path) -> dict[str, dict[str, str]]:
    """ibex_configs.yaml: a mapping of configuration names to flat `Parameter : value`
    mappings. Read by hand: the file is that flat, and PyYAML is not a dependency."""
    configs: dict[str, dict[str, str]] = {}
    current = None
    path = root / "ibex_configs.yaml"
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.split("#", 1)[0].rstrip()
        if not text.strip():
            continue
        key, colon, value = text.strip().partition(":")
        if not colon:
            raise SwitchscopeError(f"{path}:{number}: not a `key: value` line: {line!r}",
                                   "reinstall pythondata-cpu-ibex, or update read_configs for its new layout")
        if not text.startswith((" ", "\t")):
            current = configs.setdefault(key.strip(), {})
        elif current is None:
            raise SwitchscopeError(f"{path}:{number}: a parameter before any configuration name")
        else:
            current[key.strip()] = value.strip().strip('"')
    return configs


def generic_primitives(root: Path, destination: Path) -> None:
    """Ibex instantiates technology-independent primitives (prim_ram_2p,
    prim_clock_gating, ...) that lowRISC's FuseSoC fork generates as wrappers
    of an implementation. Upstream FuseSoC cannot run that generator, so each
    generic implementation is taken as the primitive itself: prim_generic_X
    renamed prim_X, written into the cache (never into the repository)."""
    destination.mkdir(parents=True, exist_ok=True)
    for source in sorted((root / GENERIC_FOLDER).glob("prim_generic_*.sv")):
        generic = source.stem
        plain = "prim_" + generic.removeprefix("prim_generic_")
        text = re.sub(rf"\b{generic}\b", plain, source.read_text())
        (destination / f"{plain}.sv").write_text(text)


def tracer_stub(root: Path, destination: Path) -> Path:
    """ibex_top_tracing always instantiates the tracer, whose decoding runs
    every cycle even when its log is off: it makes the model 2.5 times
    slower. The stub is the tracer's own port list with no body, taken from
    the package's ibex_tracer.sv at build time."""
    source = (root / "rtl" / "ibex_tracer.sv").read_text()
    header = re.search(r"^module ibex_tracer\b.*?^\);", source, re.M | re.S)
    if header is None:
        raise SwitchscopeError(f"no port list found in {root / 'rtl' / 'ibex_tracer.sv'}",
                               "build with the tracer, or update tracer_stub for the package's layout")
    destination.mkdir(parents=True, exist_ok=True)
    stub = destination / "ibex_tracer.sv"
    stub.write_text(header.group(0) + "\nendmodule\n")
    return stub


def harness_top(root: Path, destination: Path) -> Path:
    """simple_system's top with the interrupt lines it ties to 0 (irq_software_i,
    irq_fast_i, irq_nm_i) driven by new top-level inputs of the same widths, and
    its RAM behind the wait states of two more (WAIT_STATE_PORTS), taken from the
    package's ibex_simple_system.sv at build time and written into the cache
    (never into the repository). The module keeps its name, so the rest of the
    design and the harness see the same hierarchy."""
    path = root / TOP_FILE
    text = path.read_text()
    fix = ("update INTERRUPT_PORTS, WAIT_STATE_REWRITES and harness_top in switchscope/build/verilator.py for the "
           "package's new top")
    header = re.search(r"(module\s+ibex_simple_system\s*\(.*?input\s+IO_RST_N)(\s*\);)", text, re.S)
    if header is None:
        raise SwitchscopeError(f"{path}: no port list `module ibex_simple_system (... input IO_RST_N);` found", fix)
    ports = "".join(f",\n  input {width}{port}" for _line, port, width in INTERRUPT_PORTS)
    ports += "".join(f",\n  input [7:0] {port}" for port in WAIT_STATE_PORTS)
    text = text[:header.end(1)] + ports + text[header.end(1):]
    for line, port, _width in INTERRUPT_PORTS:
        text, count = re.subn(rf"(\.{line}\s*\()\s*\d*'[bdh]?0\s*(\))", rf"\g<1>{port}\g<2>", text)
        if count != 1:
            raise SwitchscopeError(f"{path}: the core's {line} is not tied to 0 exactly once "
                                   f"(found {count} times)", fix)
    for pattern, replacement in WAIT_STATE_REWRITES:
        text, count = re.subn(pattern, replacement, text)
        if count != 1:
            raise SwitchscopeError(f"{path}: the memory port's text `{pattern}` is not there exactly once "
                                   f"(found {count} times)", fix)
    destination.mkdir(parents=True, exist_ok=True)
    top = destination / path.name
    top.write_text(text)
    return top


def verilator_arguments(root: Path, parameters: dict[str, str], primitives: Path, model: Path,
                        tracer: bool) -> list[str]:
    """Flags both Debian 12's Verilator 5.006 and Debian 13's 5.032 accept."""
    harness = harness_folder()
    arguments = ["--cc", "--exe", "--build", "-O3", "--x-assign", "fast", "--x-initial", "fast",
                 "--top-module", "ibex_simple_system", "--Mdir", str(model / "obj"), "-o", str(model / "ibex-sim"),
                 "-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-MULTIDRIVEN",
                 "+define+RVFI=1",  # ibex_top_tracing refuses to elaborate without it; its rvfi_* are what we watch
                 "-CFLAGS", f"-include {harness / 'model_output.h'}", "-j", str(os.cpu_count() or 1),
                 *rtl_model.MAKE_FLAGS]
    if tracer:
        arguments += ["-CFLAGS", "-DIBEX_SIM_TRACER=1"]  # the harness offers --trace only then
    for name, value in parameters.items():
        arguments.append(f"+define+{name}={value}" if name in DEFINE_PARAMETERS else f"-G{name}={value}")
    arguments += [f"+incdir+{root / folder}" for folder in INCLUDE_FOLDERS]
    arguments += ["-y", str(primitives)] + [item for folder in SEARCH_FOLDERS for item in ("-y", str(root / folder))]
    arguments += [str(harness / "watch.vlt"), *(str(root / path) for path in PACKAGES),
                  str(harness / "wait_states.sv"), str(harness_top(root, model / "top"))]
    if not tracer:  # named on the command line, it is taken before the search folders' ibex_tracer.sv
        arguments.append(str(tracer_stub(root, model)))
    arguments.append(str(harness / "harness.cc"))
    return arguments


def cache_root() -> Path:
    return paths.build_dir() / "ibex"


def model_key(config: str, tracer: bool = False) -> tuple[str, str, str]:
    """(cache key, the core's version, Verilator's version): what a model's results name as provenance."""
    _root, core_version = package_root()
    verilator = require("verilator", "verilator")
    own = rtl_model.own_digest(OWN_FILES, Path(__file__))
    version = verilator_version(verilator)
    return (f"ibex-{core_version}-{config}{'-tracer' if tracer else ''}-verilator-{version}-{own}",
            core_version, version)


def ensure(config: str, verbose: bool = False, tracer: bool = False) -> Path:
    """The model's binary for an Ibex configuration, built first if this key has none."""
    root, _core_version = package_root()
    configs = read_configs(root)
    if config not in configs:
        raise SwitchscopeError(f"no Ibex configuration {config!r} in {root / 'ibex_configs.yaml'}",
                               f"choose one of: {', '.join(configs)}")
    verilator = rtl_model.build_tools()
    key, _core, _version = model_key(config, tracer)
    what = f"Ibex {config}"

    def build(partial: Path, model: Path) -> None:
        generic_primitives(root, partial / "primitives")
        arguments = verilator_arguments(root, configs[config], partial / "primitives", partial, tracer)
        rtl_model.run_verilator(verilator, arguments, partial, model, what, cache_root(), verbose)

    return rtl_model.build_once(cache_root(), key, "ibex-sim", what, build)
