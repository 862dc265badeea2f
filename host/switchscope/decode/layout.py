"""Whether two images of one firmware lay their code out alike: every function
at the same offset from its image's RAM origin, with the same size. Two
images built from the same sources and flags for machines that differ only in
their devices' addresses and RAM origin (ibex on the RTL, ibex-qemu on QEMU's
virt) must: then a window measured in one is the same instructions as in
the other."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from switchscope.decode import elf


@dataclass(frozen=True)
class LayoutDifference:
    """The first function (by offset) that differs, and how."""
    function: str
    why: str

    def __str__(self) -> str:
        return f"{self.function}: {self.why}"


def _by_name(path: Path, origin: int) -> dict[str, tuple[int, int]]:
    """Every function symbol with a size, as (offset from `origin`, size)."""
    return {name: (start - origin, end - start) for start, end, name in elf.functions(path)}


def first_difference(first: Path, first_origin: int, second: Path, second_origin: int) -> LayoutDifference | None:
    """None where every function of either image is in the other at the same offset from its image's
    RAM origin, with the same size; else the first that is not, by its offset in the first image."""
    one, other = _by_name(first, first_origin), _by_name(second, second_origin)
    for name, (offset, size) in sorted(one.items(), key=lambda item: (item[1][0], item[0])):
        if name not in other:
            return LayoutDifference(name, f"at +{offset:#x} in {first.name}, absent from {second}")
        there, there_size = other[name]
        if there != offset:
            return LayoutDifference(name, f"at +{offset:#x} in {first}, at +{there:#x} in {second}")
        if there_size != size:
            return LayoutDifference(name, f"{size} bytes in {first}, {there_size} in {second}")
    for name, (offset, _size) in sorted(other.items(), key=lambda item: item[1][0]):
        if name not in one:
            return LayoutDifference(name, f"at +{offset:#x} in {second}, absent from {first}")
    return None


def ram_origin(path: Path, symbol: str = "board_vectors") -> int:
    """An image's RAM origin: where its first section, the boot trap table, lies (ibex's link.ld)."""
    return elf.symbols(path)[symbol]
