"""A contributor's kernel.toml or board.toml with a mistake: each is refused
when the catalog is read, naming the file, the field and what it must be,
before anything is built; none hangs, none gives a traceback."""

import os
import shutil

import pytest

from conftest import run_command
from switchscope.catalog import folders
from switchscope.common import paths


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """The firmware tree's description files alone (what the catalog reads), in place of the checkout's."""
    source = paths.firmware_dir()
    copy = tmp_path / "firmware"
    for path in [source / "include/switchscope/kernel.h", *source.glob("boards/*/board.toml"),
                 *source.glob("kernels/*/kernel.toml"), *source.glob("rust/kernels/*/kernel.toml"),
                 *source.glob("kernels/*/*.c")]:  # a kernel.toml's application_files must exist
        (copy / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy / path.relative_to(source))
    monkeypatch.setenv("SWITCHSCOPE_FIRMWARE", str(copy))
    folders._load.cache_clear()
    yield copy
    folders._load.cache_clear()


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


FREERTOS = "kernels/freertos/kernel.toml"
UNO = "boards/atmega328p/board.toml"
F405 = "boards/netduinoplus2/board.toml"


@pytest.mark.parametrize("file, old, new, fragment", [
    (FREERTOS, 'range = [4, 32]', 'range = [0, 1000000000000]',
     "'options.max_priorities.range' spans 1,000,000,000,001 values, more than an option may have (10,000)"),
    (FREERTOS, 'application_files = ["machine_timer.c"]', 'application_files = ["../floor/kernel_floor.c"]',
     "'application_files' names '../floor/kernel_floor.c', which is no C file of the kernel's folder"),
    (FREERTOS, 'application_files = ["machine_timer.c"]', 'application_files = ["timer.c"]',
     "'application_files' names 'timer.c', which is no C file of the kernel's folder"),
    (FREERTOS, 'range = [4, 32]', 'range = [32, 4]', "'options.max_priorities.range' must be [lowest, highest]"),
    (FREERTOS, 'range = [4, 32]', 'range = [4, true]', "'options.max_priorities.range' must be [lowest, highest]"),
    (FREERTOS, 'values = ["on", "off"]\ndefault = "on"\ndefine = "configUSE_PREEMPTION"',
     'values = ["on", "off"]\ndefault = "maybe"\ndefine = "configUSE_PREEMPTION"',
     "'options.preemption.default' is not one of the values"),
    (FREERTOS, 'defaults = { max_priorities = "4", switch = "software" }',
     'defaults = { optimised_selection = "maybe", max_priorities = "4", switch = "software" }',
     "'ports.atmega328p.defaults.optimised_selection' is 'maybe', not one of the option's values"),
    (FREERTOS, 'defaults = { max_priorities = "4", switch = "software" }',
     'defaults = { optimised_selection = "off", max_priorities = "99" }',
     "'ports.atmega328p.defaults.max_priorities' is '99'"),
    (FREERTOS, 'defaults = { max_priorities = "4", switch = "software" }',
     'defaults = { preemptoin = "off" }', "'ports.atmega328p.defaults.preemptoin' is no option of this kernel"),
    (FREERTOS, 'default_without_clz = "off"', 'default_without_clz = "of"',
     "'options.optimised_selection.default_without_clz' is not one of the values (on | off)"),
    (UNO, 'cpu = "atmega328p"', 'cpu = "atmega2560"',
     "'cpu' is 'atmega2560', none of the CPUs whose instruction set switchscope knows"),
    (FREERTOS, '[options.rotation.implies.priority]', '[options.rotation.implies.sideways]',
     "'options.rotation.implies.sideways' is not one of the values"),
    (FREERTOS, 'max_priorities = "18"', 'max_priorities = "99"',
     "'options.rotation.implies.priority.max_priorities' is '99', not one of the option's values"),
    (FREERTOS, 'manifest = "source/Cargo.toml"', 'manifest = "../../../../etc/Cargo.toml"',
     "'source.manifest' leads out of the kernel's folder"),
    (FREERTOS, 'manifest = "source/Cargo.toml"', 'manifest = "/etc/Cargo.toml"',
     "'source.manifest' leads out of the kernel's folder"),
    (FREERTOS, 'scenarios = ["sem-shuffle"]', 'scenarios = ["sem-shufle"]',
     "'options.lock.scenarios' names 'sem-shufle', which is no scenario"),
    (FREERTOS, 'scenarios = ["sem-shuffle"]', 'scenarios = "sem-shuffle"', "'options.lock.scenarios' must be a list"),
    (FREERTOS, 'requires = { load = "voip" }', 'requires = { load = "sip" }',
     "'options.load_period_us.requires.load' is 'sip', not one of the option's values"),
    (FREERTOS, 'requires = { load = "voip" }', 'requires = { lode = "voip" }',
     "'options.load_period_us.requires.lode' is no option of this kernel"),
    (UNO, '{port}', '{device}', "names the placeholder {device}, which is none of {port}, {hex}, {elf}"),
    (UNO, '{port}', '{port', "is not a valid template"),
    ("boards/mps2-an386/board.toml", 'from = "mps2-an385"', 'from = "../boards/mps2-an385"',
     "'code.from' names"),
    ("boards/mps2-an385/board.toml", 'memory = "machine"', 'memory = "fpga"', "'memory' must be one of chip, machine"),
    ("boards/ibex/board.toml", 'config = "small"', 'configuration = "small"',
     "'simulator.config' is needed on verilator: the core's configuration"),
    ("boards/ibex/board.toml", '[latency_timer]', '[not_applicable]\nirs = "a misspelt scenario"\n\n[latency_timer]',
     "'not_applicable.irs' is no scenario"),
    (F405, 'read_bits = 128', 'read_bits = 100', "'flash.read_bits' is 100: a width in bits, a positive multiple of 8"),
    (F405, 'address = 0x0800_0000\n', '', "'flash.address' is missing"),
    (F405, 'source = "RM0090', 'sauce = "RM0090', "'flash.source' is missing"),
    (F405, 'wait_states = 5', 'wait_states = 16', "'flash.wait_states' is 16, outside the 0 to 15"),
    (F405, 'prefetch = true', 'prefetch = "yes"', "'flash.prefetch' must be true or false, not 'yes'"),
    (F405, 'lines = 64, line_bits = 128, ways = 64', 'lines = 64, line_bits = 128, ways = 5',
     "'flash.icache.ways' is 5: a whole divisor of the 64 lines"),
    (F405, 'lines = 8, line_bits = 128, ways = 8', 'lines = 8, ways = 8', "'flash.dcache.line_bits' is missing"),
    (F405, 'register_layout = "stm32f4"', 'register_layout = "stm32f9"',
     "'flash.register_layout' is 'stm32f9', none of the layouts the plugin knows (stm32f4, stm32f1)"),
    (F405, 'register_layout = "stm32f4"', '', "'flash.register_layout' goes with register"),
    (F405, 'register = 0x4002_3C00', 'register_reset = 0', "'flash.register_reset' goes with register"),
    (F405, 'register_layout = "stm32f4"', 'register_layout = "stm32f4"\nregister_reset = 0x1_0000_0000',
     "'flash.register_reset' is 0x100000000, no 32-bit register's value"),
    (F405, 'programmed = 0x0000_0705', 'programmed = 0x0000_0703',
     "'flash.programmed' is 0x703, whose LATENCY field programs 3 wait states, not wait_states' 5"),
])
def test_a_mistake_in_a_description_file_is_named(tree, capsys, file, old, new, fragment):
    edit(tree / file, old, new)
    status, said = run_command(["list"], capsys)
    assert "Traceback" not in said and status == 2, said
    assert fragment in said and str(tree / file) in said, said


def test_a_board_toml_that_is_a_fifo_is_refused_not_waited_on(tree, capsys):
    board = tree / "boards/atmega328p/board.toml"
    board.unlink()
    os.mkfifo(board)
    status, said = run_command(["list"], capsys)
    assert status == 2 and f"{board}: is not a regular file" in said, said


def test_a_huge_description_file_is_refused_unread(tree, capsys):
    board = tree / "boards/atmega328p/board.toml"
    with board.open("a") as file:
        file.write("#" * (2 << 20) + "\n")
    status, said = run_command(["list"], capsys)
    assert status == 2 and "more than a description file holds" in said, said


def test_the_copied_tree_reads_as_the_checkouts(tree, capsys):
    """The fixture itself: without an edit, the copy is a good catalog (so the refusals above are the edits')."""
    status, said = run_command(["list"], capsys)
    assert status == 0 and "freertos" in said and "atmega328p" in said, said
