"""A kernel's port may compile more of the kernel's files and add include
folders of its own (kernel.toml, [ports.<cpu>] files and include_dirs): the
RISC-V port's assembly and its chip-extension header; the floor's switch for
each core, in its own folder."""

import dataclasses

import pytest

from switchscope import catalog
from switchscope.build import kernel_source
from switchscope.common.errors import SwitchscopeError


def test_the_riscv_port_adds_its_assembly_and_its_extension_folder(monkeypatch, tmp_path):
    kernel, target = catalog.KERNELS["freertos"], catalog.TARGETS["ibex"]
    port = kernel.port(target)
    assert port.files == ("{port}/portASM.S",)
    assert port.include_dirs == ("{port}/chip_specific_extensions/RISCV_MTIME_CLINT_no_extensions",)
    tree = tmp_path / "FreeRTOS-Kernel"
    for relative in (*kernel.source.files, *port.files):
        path = tree / relative.replace("{port}", port.directory)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    monkeypatch.setattr(kernel_source, "crate_root", lambda source: (tree, "0.12.0"))
    found = kernel_source.sources(kernel, target)
    assert tree / "portable/GCC/RISC-V/portASM.S" in found.sources
    assert tree / "portable/GCC/RISC-V/port.c" in found.sources
    assert found.include_dirs[-1] == tree / "portable/GCC/RISC-V/chip_specific_extensions/RISCV_MTIME_CLINT_no_extensions"
    assert found.folder_files == tuple(sorted(kernel.directory.glob("*.c")))  # its folder's own, as they stand


def test_a_cortex_port_is_unchanged(monkeypatch, tmp_path):
    port = catalog.KERNELS["freertos"].port(catalog.TARGETS["mps2-an385"])
    assert (port.files, port.include_dirs) == ((), ())


@pytest.mark.parametrize("target, instruction_set", [("mps2-an385", "armv7m"), ("mps2-an386-fpu", "armv7m"),
                                                     ("microbit", "armv6m"), ("atmega328p", "avr"),
                                                     ("ibex", "rv32")])
def test_the_floors_port_is_its_cores_files_of_its_folder_compiled_first(target, instruction_set):
    """A kernel without a crate (the floor) finds its port's files and include folders in its own folder; the
    port comes ahead of kernel_floor.c, next to the board's code."""
    kernel = catalog.KERNELS["floor"]
    found = kernel_source.sources(kernel, catalog.TARGETS[target])
    port = kernel.directory / "portable" / instruction_set
    assert found.folder_files[0] == port / "port.c"
    assert found.folder_files[-1] == kernel.directory / "kernel_floor.c"
    assert found.include_dirs[0] == port and (port / "floor_port.h").is_file()
    assert found.sources == ()
    cortex_m = kernel.directory / "portable" / "cortex_m"
    assert (cortex_m in found.include_dirs) == instruction_set.startswith("armv")


def test_a_floor_port_naming_a_file_its_folder_lacks_is_refused(monkeypatch):
    kernel, target = catalog.KERNELS["floor"], catalog.TARGETS["atmega328p"]
    wrong = dataclasses.replace(kernel.port(target), files=("{port}/switch.c",))
    monkeypatch.setattr(type(kernel), "port", lambda self, target: wrong)
    with pytest.raises(SwitchscopeError, match=r"floor \(firmware/kernels/floor\) lacks .*portable/avr/switch\.c"):
        kernel_source.sources(kernel, target)
