"""Building scenario firmware for a (kernel, target, scenario).

A build compiles the harness, the board, the kernel port, the scenario and the
kernel's own sources, each on its own, and links them. Its output directory is
named by a hash of everything that goes into it, so an unchanged firmware is
never rebuilt and two configurations never overwrite each other. An object is
kept in build/objects/ under a hash of its source as the preprocessor gives it
and of the compiler, its flags and the working directory: two firmwares that
differ only in what some sources never read (a method's stamps, a scenario's
option) share the objects of the rest, and link to the ELF one invocation over
all the sources gives.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from switchscope.build import kernel_source, native
from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog import Kernel, Scenario, Target
from switchscope.catalog.configs import Config
from switchscope.common import paths
from switchscope.common.errors import BuildFailed, SwitchscopeError
from switchscope.common.tools import require, run_owned, rust_tool, version_line
from switchscope.decode import elf
from switchscope.decode.methods import METHODS, Method


# DWARF, which measure --switches reads a task's name by, on every target: avr-gcc 5.4's -g writes stabs
DEBUG_INFO = "-gdwarf-4"


@dataclass(frozen=True)
class Firmware:
    elf: Path
    kernel: Kernel
    target: Target
    scenario: Scenario
    method: str
    kernel_source: str
    compiler: str
    cflags: tuple[str, ...]
    optimisation: str  # what the code was optimised for: -O2, or a Rust profile's opt-level
    flash_bytes: int
    ram_bytes: int
    config: Config
    defines: dict[str, str] = field(default_factory=dict)


def _tree_digest(parts: list[Path]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        for path in sorted(part.rglob("*") if part.is_dir() else [part]):
            if path.is_file() and (path.suffix in (".c", ".h", ".ld", ".S", ".rs", ".toml", ".x")
                                   or path.name == "Cargo.lock") and "target" not in path.parts:
                digest.update(str(path).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _fitting_sizes(kernel: Kernel, target: Target, scenario: Scenario, firmware_elf: Path) -> tuple[int, int]:
    """(flash, RAM) bytes of the firmware; a BuildFailed if it does not fit the target."""
    found = elf.sizes(firmware_elf)
    flash, ram = found.flash, found.ram
    if flash > target.flash_bytes or ram > target.ram_bytes:
        raise BuildFailed(
            f"{scenario.name} for {kernel.name} does not fit {target.name}: flash {flash} of {target.flash_bytes} "
            f"bytes, RAM {ram} of {target.ram_bytes} bytes (static data only; stacks come out of the kernel heap)",
            "shrink the kernel heap or the scenario, or pick a larger target",
        )
    return flash, ram


def _failed(result: subprocess.CompletedProcess, out_dir: Path, kernel: Kernel, target: Target,
            scenario: Scenario) -> BuildFailed:
    hint = f"the full log is in {out_dir / 'build.log'}"
    if "nano.specs" in result.stderr:
        hint = "install the Debian package libnewlib-arm-none-eabi (the C library for arm-none-eabi-gcc)"
    return BuildFailed(
        f"building {scenario.name} for {kernel.name} on {target.name} failed:\n{result.stderr.strip()[-3000:]}",
        hint,
    )


def _object(gcc: str, flags: list[str], includes: list[str], source: Path,
            log: list[str]) -> Path | subprocess.CompletedProcess:
    """The object of one source (gcc -c): from build/objects/ if the same compile made it before, else compiled
    there; the failed compile's result if it fails. `flags` are every option of the one-invocation build but its
    libraries, so that what the link's options add to compiling (a specs file's include folders) applies alike;
    -D and -I reach the object only through the preprocessor, whose output is in the key. `log` gets each step
    and what the compiler said (kept beside the object, so that a later build's log has its warnings too)."""
    preprocessed = run_owned([gcc, *flags, *includes, "-E", str(source)], capture_output=True)
    if preprocessed.returncode != 0:  # the compile says why, as the one-invocation build did
        return _compiled([gcc, *flags, *includes, "-c", str(source)], None, log)
    digest = hashlib.sha256(json.dumps([version_line(gcc), gcc, [f for f in flags if not f.startswith(("-D", "-I"))],
                                        os.getcwd(), str(source)]).encode())
    digest.update(preprocessed.stdout)
    key = digest.hexdigest()[:24]
    found = paths.build_dir() / "objects" / key[:2] / f"{key}.o"
    if found.is_file():
        said = found.with_suffix(".log")
        log.append(f"{source}: {found}\n" + (said.read_text() if said.is_file() else ""))
        return found
    return _compiled([gcc, *flags, *includes, "-c", str(source)], found, log)


def _compiled(command: list[str], found: Path | None, log: list[str]) -> Path | subprocess.CompletedProcess:
    """Run the compile `command` into `found` (None: for its errors only). The object is made under its own
    name, in a folder of this process's, and renamed into place: the assembler names a FILE symbol after it."""
    if found is not None:
        found.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".compiling-", dir=found.parent if found else None))
    try:
        output = scratch / (found.name if found else "object.o")
        result = run_owned([*command, "-o", str(output)], capture_output=True, text=True)
        log.append(" ".join(command) + "\n" + result.stdout + result.stderr)
        if result.returncode == 0 and not output.is_file():  # a file gcc takes for the link's, not a source
            result.returncode, result.stderr = 1, (f"{result.stderr}{command[-1]}: the compiler made no object of "
                                                   "it: it is no C or assembler source (.c, .S, .s)\n")
        if result.returncode != 0 or found is None:
            return result
        found.with_suffix(".log").write_text(result.stdout + result.stderr)
        os.replace(output, found)
        return found
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _compile(gcc: str, cflags: tuple[str, ...], includes: list[Path], sources: list[Path],
             ldflags: tuple[str, ...], out_dir: Path, output: Path, kernel: Kernel, target: Target,
             scenario: Scenario) -> None:
    """Each source's object (_object), then the link of them all in the sources' order: the ELF the one
    invocation `gcc CFLAGS SOURCES LDFLAGS` makes."""
    include_flags = [f"-I{d}" for d in includes]
    compile_flags = [*cflags, *(flag for flag in ldflags if not flag.startswith("-l"))]
    log: list[str] = []
    objects = []
    try:
        for source in sources:
            made = _object(gcc, compile_flags, include_flags, source, log)
            if not isinstance(made, Path):
                raise _failed(made, out_dir, kernel, target, scenario)
            objects.append(made)
        command = [gcc, *cflags, *include_flags, *map(str, objects), *ldflags,
                   f"-Wl,-Map={out_dir / 'firmware.map'}", "-o", str(output) + ".tmp"]
        result = run_owned(command, capture_output=True, text=True)
        log.append(" ".join(command) + "\n" + result.stdout + result.stderr)
        if result.returncode != 0:
            raise _failed(result, out_dir, kernel, target, scenario)
    finally:
        (out_dir / "build.log").write_text("\n".join(log))
    Path(str(output) + ".tmp").replace(output)


def _own_folder(target: Target) -> list[Path]:
    """A board that shares another's code ([code] from) may keep files of its own beside its board.toml (ibex-qemu:
    its link.ld and board_machine.h): its folder comes first on the include path, before the shared code's."""
    return [target.directory] if target.board_code != target.directory else []


def link_flags(target: Target) -> tuple[str, ...]:
    """board.toml's ldflags: {board} is the board code's folder, {target} the board's own."""
    return tuple(flag.replace("{board}", str(target.board_code)).replace("{target}", str(target.directory))
                 for flag in target.ldflags)


def build(kernel: Kernel, target: Target, scenario: Scenario, method: Method = METHODS["probe"],
          config: Config | None = None) -> Firmware:
    """Build the firmware of one scenario for one method in one configuration
    (the default one if none is given), and the host helper its simulator needs."""
    config = config or configs.resolve({}, kernel, target, scenario)
    native.ensure(target.simulator, target.core_config)
    if kernel.language == "rust":
        return _build_rust(kernel, target, scenario, method, config)
    if target.gcc is None or not target.has_c_board:
        raise BuildFailed(f"{target.name} has no C board (firmware/boards/{target.name}/board.c) "
                          f"and names no C compiler: {kernel.title} cannot be built for it")
    # the board's name and CPU come from its board.toml, also where it shares another board's code
    defines = {**method.defines, **config.defines(), **dict(scenario.defines),
               "BOARD_NAME": f'"{target.name}"', "BOARD_CPU": f'"{target.cpu}"'}
    gcc = require(target.gcc, target.gcc_package)
    firmware = paths.firmware_dir()
    board_dir = target.board_code
    port_dir = kernel.directory
    source = kernel_source.sources(kernel, target)
    scenario_file = scenario.source or firmware / "scenarios" / scenario.file_name

    sources = [
        *sorted((firmware / "common").glob("*.c")),
        *sorted(board_dir.glob("*.c")),
        *source.folder_files,
        scenario_file,
        *source.sources,
    ]
    includes = [firmware / "include", *_own_folder(target), board_dir, port_dir, *source.include_dirs]
    cflags = (*target.cflags, config["opt"], DEBUG_INFO, "-ffunction-sections", "-fdata-sections", "-Wall",
              *(f"-D{key}={value}" for key, value in sorted(defines.items())))
    ldflags = (*link_flags(target), "-Wl,--gc-sections")

    compiler = version_line(gcc)
    key = json.dumps([compiler, cflags, ldflags, source.version,
                      _tree_digest([firmware / "include", firmware / "common", *_own_folder(target), board_dir,
                                    port_dir, scenario_file, *sorted(scenario_file.parent.glob("*.h"))])])
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    out_dir = paths.build_dir() / f"{kernel.name}-{target.name}" / f"{scenario.name}-{method.name}-{digest}"
    firmware_elf = out_dir / "firmware.elf"
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel runs of one firmware build it once
        if not firmware_elf.is_file():
            _compile(gcc, cflags, includes, sources, ldflags, out_dir, firmware_elf, kernel, target, scenario)

    flash, ram = _fitting_sizes(kernel, target, scenario, firmware_elf)
    return Firmware(elf=firmware_elf, kernel=kernel, target=target, scenario=scenario, method=method.name,
                    kernel_source=source.version, compiler=compiler, cflags=cflags, optimisation=config["opt"],
                    flash_bytes=flash, ram_bytes=ram, config=config, defines=defines)


EXAMPLE = "freertos-app"  # examples/<EXAMPLE>/main.c: an application for measure --switches, not a scenario
EXAMPLE_KERNEL = "freertos"  # the kernel it is written for


def example_unavailable(target: Target) -> str | None:
    """Why the example application cannot be built for the target, or None where it can."""
    if target.gcc is None or not target.has_c_board or target.latency_timer is None:
        return (f"the example application's interrupt comes from the board's spare timer ([latency_timer] in "
                f"board.toml), which {target.name}'s C board code does not drive"
                + (f": {target.latency_unavailable}" if target.latency_unavailable else ""))
    return None


def example_targets() -> list[str]:
    """The targets the example application is built for."""
    return [name for name, target in catalog.current().targets.items() if example_unavailable(target) is None]


@dataclass(frozen=True)
class Application:
    """What builds an application on switchscope's board support and a kernel as switchscope builds it, in its
    default configuration, with no harness and no probe: the example, or a project of new-project's."""
    gcc: str
    cflags: tuple[str, ...]
    includes: list[Path]
    sources: list[Path]  # the board's, the application's, the kernel's
    ldflags: tuple[str, ...]
    kernel_source: kernel_source.KernelSource


def application(kernel: Kernel, target: Target, own_sources: list[Path]) -> Application:
    """How the application of `own_sources` is built for the target, or why it cannot be."""
    if kernel.name != EXAMPLE_KERNEL:
        raise SwitchscopeError(f"the example application is written for {catalog.KERNELS[EXAMPLE_KERNEL].title}, "
                               f"not {kernel.title}", f"give --kernel {EXAMPLE_KERNEL}, or your own firmware built "
                               f"with {kernel.name} instead of --build-example")
    config = configs.resolve({}, kernel, target, Scenario(EXAMPLE, "the example application"))
    gcc = require(target.gcc, target.gcc_package)
    firmware, board_dir = paths.firmware_dir(), target.board_code
    source = kernel_source.sources(kernel, target)
    cortex_m = ("cortex_m.c", "cortex_m_semihosted.c") if target.cpu.startswith("cortex-m") else ()
    sources = [*sorted(board_dir.glob("*.c")), *(firmware / "common" / name for name in cortex_m),
               *kernel.application_files, *own_sources, *source.sources]
    includes = [firmware / "include", *_own_folder(target), board_dir, kernel.directory, *source.include_dirs]
    defines = {**config.defines(), "BOARD_NAME": f'"{target.name}"', "BOARD_CPU": f'"{target.cpu}"'}
    cflags = (*target.cflags, config["opt"], DEBUG_INFO, "-ffunction-sections", "-fdata-sections", "-Wall",
              *(f"-D{key}={value}" for key, value in sorted(defines.items())))
    return Application(gcc, cflags, includes, sources, (*link_flags(target), "-Wl,--gc-sections"), source)


def build_example(kernel: Kernel, target: Target) -> Path:
    """The example application (examples/freertos-app/) for the target: its main.c, the board's support
    (startup, UART, the spare timer) and the kernel as switchscope builds it, in its default configuration,
    with the files of the kernel's folder an application needs (kernel.toml application_files: FreeRTOS's
    RISC-V tick set-up); no harness and no probe. Returns the ELF."""
    if why := example_unavailable(target):
        raise SwitchscopeError(why, f"use {', '.join(example_targets())}")
    example = paths.checkout() / "examples" / EXAMPLE
    made = application(kernel, target, [example / "main.c"])
    firmware, board_dir = paths.firmware_dir(), target.board_code
    key = json.dumps([version_line(made.gcc), made.cflags, made.ldflags, made.kernel_source.version,
                      _tree_digest([firmware / "include", firmware / "common", *_own_folder(target), board_dir,
                                    kernel.directory, example])])
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    out_dir = paths.build_dir() / "examples" / f"{EXAMPLE}-{target.name}-{digest}"
    out_dir.mkdir(parents=True, exist_ok=True)
    output = out_dir / f"{EXAMPLE}.elf"
    with (out_dir / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not output.is_file():
            _compile(made.gcc, made.cflags, made.includes, made.sources, made.ldflags, out_dir, output, kernel,
                     target, Scenario(EXAMPLE, "the example application"))
    return output


# The crates whose code runs in a Rust kernel's windows: their versions go with every result.
RUST_CRATES_OF_NOTE = ("embassy-executor", "embassy-sync", "embassy-futures", "lilos", "rtic", "rtic-sync",
                       "lm3s6965", "nrf51-pac", "avr-device", "cortex-m", "cortex-m-rt", "critical-section", "portable-atomic")


@functools.lru_cache(maxsize=None)
def _rustc_version(workspace: Path) -> str:
    """The rustc a workspace builds with: rustup takes it from the workspace's rust-toolchain.toml."""
    try:
        out = subprocess.run([rust_tool("rustc"), "--version"], capture_output=True, text=True, timeout=60,
                             cwd=workspace)
        return out.stdout.strip() or out.stderr.strip()
    except OSError:
        return "unknown"


def pinned_toolchain(workspace: Path) -> str:
    """The toolchain a workspace's rust-toolchain.toml pins (what set-up installs)."""
    return tomllib.loads((workspace / "rust-toolchain.toml").read_text())["toolchain"]["channel"]


def _locked_versions(lock: Path, root: str) -> dict[str, str]:
    """name -> version of every package `root` depends on, directly or not, per Cargo.lock."""
    packages = {p["name"]: p for p in tomllib.loads(lock.read_text()).get("package", [])}
    found, pending = {}, [root]
    while pending:
        name = pending.pop()
        if name in packages and name not in found:
            found[name] = packages[name]["version"]
            pending += [dependency.split(" ")[0] for dependency in packages[name].get("dependencies", [])]
    return found


def _release_profile(workspace: Path) -> str:
    """What the workspace's release profile optimises for, as results state it."""
    profile = tomllib.loads((workspace / "Cargo.toml").read_text()).get("profile", {}).get("release", {})
    return f"release profile (opt-level {profile.get('opt-level', 3)}" + (", LTO)" if profile.get("lto") else ")")


def _build_rust(kernel: Kernel, target: Target, scenario: Scenario, method: Method, config: Config) -> Firmware:
    """A Rust kernel's scenario: its crate in the cargo workspace firmware/rust,
    the scenario chosen by a cargo feature. Dependencies are pinned by the
    workspace's Cargo.lock."""
    cargo = rust_tool("cargo")
    if target.rust_target is None:
        raise BuildFailed(f"{target.name} has no Rust target")
    workspace = paths.firmware_dir() / target.rust_workspace
    crate = f"switchscope-{kernel.name}"
    rustc = _rustc_version(workspace)
    # the AVR workspace builds the sources of firmware/rust: both trees count
    sources = _tree_digest([paths.firmware_dir() / "rust", paths.firmware_dir() / "rust-avr"])
    # the board is switchscope-target's feature of the target's name: boards that share code report their own
    features = [scenario.name, *([method.cargo_feature] if method.cargo_feature else []),
                f"switchscope-target/{target.name}"]
    # the kernel's options reach the crate in the environment (option_env!), as -D flags reach C
    defines = config.defines()
    key = json.dumps([rustc, target.rust_target, crate, features, sorted(defines.items()), sources])
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    out_dir = paths.build_dir() / f"{kernel.name}-{target.name}" / f"{scenario.name}-{method.name}-{digest}"
    firmware_elf = out_dir / "firmware.elf"
    cargo_dir = paths.build_dir() / f"cargo-{target.rust_workspace}"
    cargo_dir.mkdir(parents=True, exist_ok=True)
    with (cargo_dir / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # every feature set writes the same binary path
        if not firmware_elf.is_file():
            command = [cargo, "build", "--release", "--locked", "--manifest-path", str(workspace / "Cargo.toml"),
                       "-p", crate, "--features", ",".join(features),
                       "--target", target.rust_target,
                       "--target-dir", str(cargo_dir)]
            # cargo reads the workspace's .cargo/config.toml (the linker script) from its
            # working directory, not from --manifest-path, and rustup the pinned toolchain
            result = run_owned(command, capture_output=True, text=True, cwd=workspace,
                               env={**os.environ, **defines})
            out_dir.mkdir(parents=True, exist_ok=True)
            environment = "".join(f"{name}={value} " for name, value in sorted(defines.items()))
            (out_dir / "build.log").write_text(environment + " ".join(command) + "\n\n" + result.stdout + result.stderr)
            if result.returncode != 0:
                hint = f"the full log is in {out_dir / 'build.log'}"
                if "target may not be installed" in result.stderr or "can't find crate for `core`" in result.stderr:
                    hint = f"install the Rust target: rustup target add {target.rust_target} (or run ./setup.sh)"
                elif "toolchain" in result.stderr and "not installed" in result.stderr or "rust-src" in result.stderr:
                    hint = (f"install the Rust toolchain that {workspace / 'rust-toolchain.toml'} pins "
                            f"({pinned_toolchain(workspace)}): run ./setup.sh")
                raise BuildFailed(f"building {scenario.name} for {kernel.name} on {target.name} failed:\n"
                                  f"{result.stderr.strip()[-3000:]}", hint)
            binary = cargo_dir / target.rust_target / "release" / crate
            shutil.copyfile(binary if binary.is_file() else binary.with_suffix(".elf"), firmware_elf)
    flash, ram = _fitting_sizes(kernel, target, scenario, firmware_elf)
    locked = _locked_versions(workspace / "Cargo.lock", crate)
    crates = ", ".join(f"{name} {locked[name]}" for name in RUST_CRATES_OF_NOTE if name in locked)
    return Firmware(elf=firmware_elf, kernel=kernel, target=target, scenario=scenario, method=method.name,
                    kernel_source=f"{crate} with {crates} (firmware/{target.rust_workspace}/Cargo.lock)",
                    compiler=rustc, cflags=(), optimisation=_release_profile(workspace),
                    flash_bytes=flash, ram_bytes=ram, config=config, defines=defines)
