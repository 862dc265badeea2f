"""Where a kernel's C source comes from. Kernels are never copied into the
repository: a kernel.toml names a crates.io package pinned by a manifest and
its Cargo.lock beside it (FreeRTOS: freertos-next), which cargo fetches and
locates. A kernel whose kernel.toml has no [source] is the C files of its
folder, compiled with its port's files and include folders, which lie in that
folder too (the floor's portable/<instruction set>/)."""

from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from switchscope.catalog import CrateSource, Kernel, Target
from switchscope.common.errors import SwitchscopeError
from switchscope.common.tools import run_owned, rust_tool


@dataclass(frozen=True)
class KernelSource:
    version: str
    sources: tuple[Path, ...]  # a crate's, compiled after the scenario
    include_dirs: tuple[Path, ...]
    # the C files of the kernel's folder, compiled before the scenario, and first, for a kernel without a
    # crate, its port's there: by the board's code, which the floor's RV32 trap entry calls within a
    # compressed jump's reach (2 KiB)
    folder_files: tuple[Path, ...] = ()


def _cargo(arguments: list[str], manifest: Path) -> subprocess.CompletedProcess:
    # run beside the manifest: rustup takes the toolchain from its rust-toolchain.toml
    return run_owned([rust_tool("cargo"), *arguments, "--manifest-path", str(manifest)],
                     capture_output=True, text=True, timeout=300, cwd=manifest.parent)


def _cargo_metadata(manifest: Path, offline: bool) -> subprocess.CompletedProcess:
    arguments = ["metadata", "--format-version", "1", "--locked"]
    if offline:
        arguments.append("--offline")
    return _cargo(arguments, manifest)


@functools.lru_cache(maxsize=None)
def crate_root(source: CrateSource) -> tuple[Path, str]:
    """The kernel's tree inside the pinned crate, and the crate's version;
    fetches the crate on first use."""
    manifest = source.manifest
    result = _cargo_metadata(manifest, offline=True)
    if result.returncode != 0:
        result = _cargo_metadata(manifest, offline=False)  # not fetched yet
    if result.returncode != 0:
        raise SwitchscopeError(
            f"cargo could not locate the {source.crate} crate:\n{result.stderr.strip()[-2000:]}",
            f"check that crates.io is reachable, then run: cargo fetch --locked --manifest-path {manifest}",
        )
    for package in json.loads(result.stdout)["packages"]:
        if package["name"] == source.crate:
            root = Path(package["manifest_path"]).parent / source.root
            if not root.is_dir():
                # metadata can name a crate that is locked but not yet downloaded
                _cargo(["fetch", "--locked"], manifest)
            if not root.is_dir():
                raise SwitchscopeError(f"the {source.crate} crate has no {source.root}/ at {root}",
                                       f"run: cargo fetch --locked --manifest-path {manifest}")
            return root, package["version"]
    raise SwitchscopeError(f"{manifest} does not depend on {source.crate}")


SOURCE_SUFFIXES = (".c", ".S", ".s")  # C, and assembler with and without the preprocessor


def sources(kernel: Kernel, target: Target) -> KernelSource:
    """The kernel's files and include directories for the target's CPU: its folder's C files, and its port's,
    in the pinned crate (with the crate's own) or, for a kernel without one, in its folder."""
    port = kernel.port(target)
    folder = tuple(sorted(kernel.directory.glob("*.c")))
    if kernel.source is None:
        version = f"{kernel.name} (firmware/kernels/{kernel.name})"
        if port is None:
            return KernelSource(version, sources=(), include_dirs=(), folder_files=folder)
        root, files, include_dirs = kernel.directory, port.files, port.include_dirs
    else:
        if port is None:
            raise SwitchscopeError(f"{kernel.title} has no port for {target.cpu} ({kernel.directory / 'kernel.toml'})")
        root, crate_version = crate_root(kernel.source)
        version = f"{kernel.source.crate} {crate_version}"
        files = (*kernel.source.files, *port.files)
        include_dirs = (*kernel.source.include_dirs, *port.include_dirs)
    expand = lambda relative: root / relative.replace("{port}", port.directory)
    paths = tuple(map(expand, files))
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        raise SwitchscopeError(f"{version} lacks {', '.join(missing)}",
                               f"check [source] and [ports] in {kernel.directory / 'kernel.toml'}")
    # gcc takes any other file for the link's input and compiles nothing of it
    uncompiled = [str(path) for path in paths if path.suffix not in SOURCE_SUFFIXES]
    if uncompiled:
        raise SwitchscopeError(f"{kernel.directory / 'kernel.toml'}: files names {', '.join(uncompiled)}, which is "
                               f"no source the compiler compiles ({', '.join(SOURCE_SUFFIXES)})",
                               "name the kernel's C and assembler sources there; headers go by include_dirs")
    include_paths = tuple(map(expand, include_dirs))
    if kernel.source is None:
        return KernelSource(version, sources=(), include_dirs=include_paths, folder_files=(*paths, *folder))
    return KernelSource(version, sources=paths, include_dirs=include_paths, folder_files=folder)
