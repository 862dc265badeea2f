"""A kernel or a board is one folder: the catalog reads kernel.toml and
board.toml, and nothing of the host changes. The firmware-building tests here
work on a copy of the firmware tree (SWITCHSCOPE_FIRMWARE) with one folder
added, as a contributor's checkout would be."""

import shutil
import textwrap

import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.cli import main
from switchscope.common import paths
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.figures.measure import measure

PROBE = catalog.METHODS["probe"]


@pytest.fixture
def firmware_copy(tmp_path, monkeypatch):
    """A copy of the firmware tree, used in place of the checkout's, with its own build directory."""
    tree = tmp_path / "firmware"
    shutil.copytree(paths.firmware_dir(), tree, ignore=shutil.ignore_patterns("target"))
    monkeypatch.setenv("SWITCHSCOPE_FIRMWARE", str(tree))
    monkeypatch.setenv("SWITCHSCOPE_BUILD", str(tmp_path / "build"))
    return tree


def replace_in(path, old, new):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new))


@pytest.mark.firmware
def test_a_new_c_kernel_is_one_folder(firmware_copy, capsys):
    # a contributor's kernel: its port and kernel.toml in one new folder (here FreeRTOS under
    # another name, from the same pinned crate), and no line of the host changed
    folder = firmware_copy / "kernels" / "fakertos"
    shutil.copytree(firmware_copy / "kernels" / "freertos", folder)
    (folder / "kernel_freertos.c").rename(folder / "kernel_fakertos.c")
    replace_in(folder / "kernel_fakertos.c", 'SS_TEXT("freertos")', 'SS_TEXT("fakertos")')
    replace_in(folder / "kernel.toml", 'name = "freertos"', 'name = "fakertos"')
    replace_in(folder / "kernel.toml", 'title = "FreeRTOS"', 'title = "FakeRTOS"')

    assert main(["list"]) == 0
    assert "fakertos" in capsys.readouterr().out
    fake = catalog.KERNELS["fakertos"]
    assert set(fake.targets) == set(catalog.KERNELS["freertos"].targets)  # every board with a CPU it has a port for
    assert {"mps2-an385", "mps2-an386", "atmega328p"} <= set(fake.targets)
    mps2 = catalog.TARGETS["mps2-an385"]
    result = measure(Job(fake, mps2, catalog.SCENARIOS["yield"], PROBE), samples=50)
    reference = measure(Job(catalog.KERNELS["freertos"], mps2, catalog.SCENARIOS["yield"], PROBE), samples=50)
    assert result.kernel == "fakertos" and result.samples == reference.samples


@pytest.mark.firmware
def test_a_new_board_is_one_folder(firmware_copy):
    # a second ATmega328P board: its folder, with its own name; FreeRTOS runs on it at once
    folder = firmware_copy / "boards" / "uno-clone"
    shutil.copytree(firmware_copy / "boards" / "atmega328p", folder)
    replace_in(folder / "board.toml", 'name = "atmega328p"', 'name = "uno-clone"')
    replace_in(folder / "board_config.h", '#define BOARD_NAME "atmega328p"', '#define BOARD_NAME "uno-clone"')

    board = catalog.TARGETS["uno-clone"]
    assert board.cpu == "atmega328p" and board.unit == "cycles"
    assert "uno-clone" in catalog.KERNELS["freertos"].targets
    result = measure(Job(catalog.KERNELS["freertos"], board, catalog.SCENARIOS["yield"], PROBE), samples=50)
    reference = measure(Job(catalog.KERNELS["freertos"], catalog.TARGETS["atmega328p"],
                            catalog.SCENARIOS["yield"], PROBE), samples=50)
    # the same values; which windows the probe leaves out (where Timer1 wrapped inside) may differ
    assert result.target == "uno-clone" and set(result.samples) == set(reference.samples)


@pytest.mark.firmware
def test_a_board_file_that_disagrees_with_the_firmware_is_refused(firmware_copy):
    replace_in(firmware_copy / "boards" / "atmega328p" / "board.toml", "f_cpu_hz = 16_000_000", "f_cpu_hz = 20_000_000")
    job = Job(catalog.KERNELS["freertos"], catalog.TARGETS["atmega328p"], catalog.SCENARIOS["yield"], PROBE)
    with pytest.raises(FirmwareFailed, match="the firmware says f_cpu_hz=16000000") as error:
        measure(job, samples=10)
    assert "says 20000000" in str(error.value)


# --- the catalog's reading of the files, without building anything ------------------------------

MINIMAL_BOARD = """
    name = "{name}"
    summary = "a test board"
    cpu = "cortex-m3"
    f_cpu_hz = 1_000_000
    flash_bytes = 1024
    ram_bytes = 1024
    [simulator]
    name = "qemu"
    unit = "instructions"
    [stamp]
    timer = "SysTick"
    clock_hz = 1_000_000
"""


@pytest.fixture
def bare_tree(tmp_path, monkeypatch):
    """A firmware tree with only what the catalog reads."""
    (tmp_path / "include" / "switchscope").mkdir(parents=True)
    (tmp_path / "include" / "switchscope" / "kernel.h").write_text("")
    monkeypatch.setenv("SWITCHSCOPE_FIRMWARE", str(tmp_path))
    return tmp_path


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_a_c_kernel_runs_on_the_boards_it_has_a_port_for(bare_tree):
    write(bare_tree / "boards" / "one" / "board.toml", MINIMAL_BOARD.format(name="one"))
    (bare_tree / "boards" / "one" / "board.c").write_text("")
    write(bare_tree / "boards" / "rustonly" / "board.toml", MINIMAL_BOARD.format(name="rustonly"))
    write(bare_tree / "kernels" / "tiny" / "kernel.toml", """
        name = "tiny"
        summary = "a kernel whose sources are its folder"
        [ports.cortex-m3]
        dir = "."
        [options.slices]
        summary = "time slices"
        range = [1, 3]
        default = "2"
        define = "TINY_SLICES"
    """)
    tiny = catalog.KERNELS["tiny"]
    assert tiny.targets == ("one",)  # the board with no C board code is not one of them
    assert tiny.source is None and tiny.language == "c"
    config = configs.resolve({"slices": "3"}, tiny, catalog.TARGETS["one"], catalog.SCENARIOS["yield"])
    assert config.defines() == {"TINY_SLICES": "3"} and config["opt"] == "-O2"  # build options come with every C kernel
    with pytest.raises(SwitchscopeError, match="'4' is not a value of slices"):
        configs.resolve({"slices": "4"}, tiny, catalog.TARGETS["one"], catalog.SCENARIOS["yield"])


@pytest.mark.parametrize("board,message", [
    (MINIMAL_BOARD.replace('cpu = "cortex-m3"', ""), "'cpu' is missing"),
    (MINIMAL_BOARD.replace("f_cpu_hz = 1_000_000", 'f_cpu_hz = "fast"'), "'f_cpu_hz' must be a whole number"),
    (MINIMAL_BOARD.replace('name = "qemu"', 'name = "gem5"'), "'simulator.name' must be one of qemu, simavr"),
    (MINIMAL_BOARD.replace('name = "{name}"', 'name = "other"'), "but the board's folder is"),
    (MINIMAL_BOARD + "\n[scope]\npin = \"LED\"\n", "'scope.high_edge' and low_edge are needed on QEMU"),
    ("name = ", "cannot be read"),
])
def test_a_broken_board_file_is_named_with_what_is_wrong(bare_tree, board, message):
    write(bare_tree / "boards" / "broken" / "board.toml", board.replace("{name}", "broken"))
    with pytest.raises(SwitchscopeError, match=message) as error:
        catalog.select_targets("all")
    assert "boards/broken/board.toml" in str(error.value)


def test_a_rust_kernel_naming_an_unknown_board_is_refused(bare_tree):
    write(bare_tree / "rust" / "kernels" / "ghost" / "kernel.toml", """
        name = "ghost"
        summary = "a Rust kernel"
        targets = ["nowhere"]
    """)
    with pytest.raises(SwitchscopeError, match="names 'nowhere', which is no board"):
        catalog.select_kernels("all")


def test_a_firmware_that_measures_another_sample_count_is_refused():
    # what the firmware echoes is checked against what was asked for: a count cut on its way
    # (to 32 bits, say) would otherwise give a figure from the wrong number of samples
    from switchscope.figures.measure import _check_identity
    from switchscope.decode.wire import Stream
    stream = Stream(meta={"kernel": "freertos", "scenario": "yield", "samples": "1"})
    job = Job(catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["yield"], PROBE)
    with pytest.raises(FirmwareFailed, match="4294967297 samples were asked for; the firmware says it measures 1"):
        _check_identity(stream, job, 4294967297)


@pytest.mark.firmware
@pytest.mark.parametrize("name", ["notes.txt", "prebuilt.o"])
def test_a_kernel_file_entry_that_is_no_source_is_refused_naming_it(firmware_copy, tmp_path, capsys, name):
    """A `files` entry leading out of the kernel's tree to a file gcc takes for the link's input (it compiles
    nothing of it, and says so only in a warning): a clear error naming the entry, no traceback, no object."""
    outside = tmp_path / "elsewhere" / name
    outside.parent.mkdir()
    outside.write_text("int outside(void) { return 1; }\n")
    toml = firmware_copy / "kernels" / "freertos" / "kernel.toml"
    replace_in(toml, '"{port}/port.c"]', f'"{{port}}/port.c", "{"../" * 12}{str(outside).lstrip("/")}"]')
    status = main(["run", "--target", "mps2-an385", "--scenario", "yield", "--samples", "10", "--quiet"])
    said = capsys.readouterr().err
    assert status in (1, 2) and "Traceback" not in said, said
    assert f"/elsewhere/{name}, which is no source the compiler compiles (.c, .S, .s)" in said, said
    assert str(toml) in said


def test_a_compile_that_makes_no_object_is_a_failure_not_a_cached_object(tmp_path, monkeypatch):
    """The object cache's own guard: gcc exits 0 on a file it takes for the link's input, and writes nothing."""
    from switchscope.build import firmware
    monkeypatch.setenv("SWITCHSCOPE_BUILD", str(tmp_path / "build"))
    source = tmp_path / "notes.txt"
    source.write_text("not C\n")
    found = tmp_path / "build" / "objects" / "ab" / "ab.o"
    log = []
    made = firmware._compiled([shutil.which("gcc"), "-c", str(source)], found, log)
    assert made.returncode != 0 and f"{source}: the compiler made no object of it" in made.stderr
    assert not found.exists() and list(found.parent.iterdir()) == []
