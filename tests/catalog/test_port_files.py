"""A kernel's port may compile more of the kernel's files and add include
folders of its own (kernel.toml, [ports.<cpu>] files and include_dirs): the
RISC-V port's assembly and its chip-extension header."""

from switchscope import catalog
from switchscope.build import kernel_source


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
