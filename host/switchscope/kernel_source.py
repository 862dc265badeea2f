"""Where each kernel's source comes from. Kernels are never copied into the
repository: FreeRTOS is the crates.io package freertos-next, pinned in
firmware/kernels/freertos/source/Cargo.toml and Cargo.lock, fetched by cargo."""

from __future__ import annotations

import functools
import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from switchscope import paths
from switchscope.errors import SwitchscopeError
from switchscope.tools import rust_tool

FREERTOS_CRATE = "freertos-next"


@dataclass(frozen=True)
class KernelSource:
    version: str
    sources: tuple[Path, ...]
    include_dirs: tuple[Path, ...]


def _cargo(arguments: list[str], manifest: Path) -> subprocess.CompletedProcess:
    # run beside the manifest: rustup takes the toolchain from its rust-toolchain.toml
    return subprocess.run([rust_tool("cargo"), *arguments, "--manifest-path", str(manifest)],
                          capture_output=True, text=True, timeout=300, cwd=manifest.parent)


def _cargo_metadata(manifest: Path, offline: bool) -> subprocess.CompletedProcess:
    arguments = ["metadata", "--format-version", "1", "--locked"]
    if offline:
        arguments.append("--offline")
    return _cargo(arguments, manifest)


@functools.lru_cache(maxsize=None)
def freertos_root() -> tuple[Path, str]:
    """The FreeRTOS-Kernel directory of the pinned crate, and the crate version;
    fetches the crate on first use."""
    manifest = paths.firmware_dir() / "kernels" / "freertos" / "source" / "Cargo.toml"
    result = _cargo_metadata(manifest, offline=True)
    if result.returncode != 0:
        result = _cargo_metadata(manifest, offline=False)  # not fetched yet
    if result.returncode != 0:
        raise SwitchscopeError(
            f"cargo could not locate the {FREERTOS_CRATE} crate:\n{result.stderr.strip()[-2000:]}",
            f"check that crates.io is reachable, then run: cargo fetch --locked --manifest-path {manifest}",
        )
    for package in json.loads(result.stdout)["packages"]:
        if package["name"] == FREERTOS_CRATE:
            root = Path(package["manifest_path"]).parent / "FreeRTOS-Kernel"
            if not (root / "tasks.c").is_file():
                # metadata can name a crate that is locked but not yet downloaded
                _cargo(["fetch", "--locked"], manifest)
            if not (root / "tasks.c").is_file():
                raise SwitchscopeError(f"{root} holds no FreeRTOS kernel",
                                       f"run: cargo fetch --locked --manifest-path {manifest}")
            return root, package["version"]
    raise SwitchscopeError(f"{manifest} does not depend on {FREERTOS_CRATE}")


def freertos(port: str) -> KernelSource:
    root, crate_version = freertos_root()
    port_dir = root / "portable" / port
    sources = tuple(root / name for name in ("tasks.c", "queue.c", "list.c")) + (
        port_dir / "port.c",
        root / "portable" / "MemMang" / "heap_4.c",
    )
    return KernelSource(
        version=f"{FREERTOS_CRATE} {crate_version}",
        sources=sources,
        include_dirs=(root / "include", port_dir),
    )
