"""`switchscope new-project`: a starting project for one's own FreeRTOS application, for every target with C
board code. Each is written, built with `make` as a user builds it, and measured with `measure --switches`:
the starter's own tasks switch, through its own calls. What cannot be written is refused before anything is."""

import json
import shutil
import subprocess
from collections import Counter

import pytest

from switchscope import catalog
from switchscope.build.project import project_targets

from conftest import refused_cleanly, run_command

def test_every_target_with_c_board_code_gets_a_project_and_no_other():
    with_c = {name for name, target in catalog.TARGETS.items() if (target.board_code / "board.c").is_file()}
    assert set(project_targets()) == with_c
    assert "lm3s6965evb" not in with_c  # Rust kernels only there


def _written(tmp_path, target, capsys) -> str:
    status, said = run_command(["new-project", str(tmp_path / "app"), "--target", target], capsys)
    assert status == 0, said
    return said


def _made(folder):
    made = subprocess.run(["make", "-C", str(folder)], capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    return folder / "app.elf"


@pytest.mark.firmware
@pytest.mark.parametrize("target", [name for name in project_targets() if not catalog.TARGETS[name].switches_unavailable])
def test_a_project_builds_with_make_and_its_switches_are_measured(tmp_path, capsys, target):
    _written(tmp_path, target, capsys)
    folder = tmp_path / "app"
    assert sorted(path.name for path in folder.iterdir()) == ["Makefile", "README.md", "main.c"]  # nothing copied
    elf = _made(folder)
    out = tmp_path / "app.json"
    status, said = run_command(["measure", str(elf), "--target", target, "--switches", "--kernel", "freertos",
                                "--count", "100", "--json", str(out)], capsys)
    assert status == 0, said
    (result,) = json.loads(out.read_text())["results"]
    assert result["count"] == 100
    facts = result["switches"]
    kinds = Counter((facts["tasks"][a], facts["tasks"][b], facts["causes"][c]) for a, b, c in facts["samples"])
    # main.c's sender hands a number to the more urgent receiver, which takes it and waits for the next
    assert kinds["send", "receive", "call in xQueueGenericSend"] > 0, kinds
    assert kinds["receive", "send", "call in xQueueReceive"] > 0, kinds


@pytest.mark.firmware
def test_on_ibex_qemu_the_project_builds_and_its_readme_says_switches_are_measured_on_the_rtl(tmp_path, capsys):
    _written(tmp_path, "ibex-qemu", capsys)
    _made(tmp_path / "app")
    text = (tmp_path / "app" / "README.md").read_text()
    assert "--switches` is not available on ibex-qemu" in text and "--switches --kernel" not in text


def test_the_readme_says_what_the_machine_has_and_lacks_and_where_the_build_comes_from(tmp_path, capsys):
    said = _written(tmp_path, "stm32vldiscovery", capsys)
    assert "make -C" in said and "--switches --kernel freertos" in said
    text = (tmp_path / "app" / "README.md").read_text()
    assert "USART1" in text  # the UART the board code writes to (board.toml [uart])
    assert "not modelled" in text and "timers, GPIO, RCC" in text  # QEMU's STM32F100 has USARTs and SPI only
    assert "`firmware/boards/stm32vldiscovery/link.ld`" in text and "arm-none-eabi-gcc" in text
    makefile = (tmp_path / "app" / "Makefile").read_text()
    assert "FREERTOS ?= " in makefile and "$(FREERTOS)/tasks.c" in makefile  # the crate's, by its path
    assert "-mcpu=cortex-m3" in makefile and "$(SWITCHSCOPE_FIRMWARE)/boards/stm32vldiscovery/board.c" in makefile


@pytest.mark.parametrize("arguments, fragment", [
    (["new-project", "app", "--target", "nosuch"], "valid targets:"),
    (["new-project", "app", "--target", "lm3s6965evb"], "lm3s6965evb has no C board code"),
    (["new-project", "app", "--target", "all"], "one simulated --target"),
    (["new-project", "app", "--target", "mps2-an385,microbit"], "this command takes one name"),
    (["new-project", "app", "--target", "arduino-uno"], "one simulated --target"),
    (["new-project", "app", "--target", "mps2-an385", "--kernel", "embassy"], "writes a FreeRTOS application"),
    (["new-project", "full", "--target", "mps2-an385"], "exists and is not empty"),
    (["new-project", "notes.txt", "--target", "mps2-an385"], "is a file, not a directory"),
    (["new-project", "missing/app", "--target", "mps2-an385"], "create it first"),
])
def test_what_cannot_be_written_is_refused_and_nothing_is_written(tmp_path, monkeypatch, capsys, arguments, fragment):
    said = refused_cleanly(tmp_path, {"full/main.c": "int main(void) { return 0; }\n", "notes.txt": "notes\n"},
                           arguments, 2, fragment, monkeypatch, capsys)
    if "lm3s6965evb" in arguments:
        assert "mps2-an385" in said and "atmega328p" in said  # where it can be written
    assert not (tmp_path / "app").exists()


def test_an_empty_directory_is_taken(tmp_path, capsys):
    (tmp_path / "app").mkdir()
    _written(tmp_path, "mps2-an385", capsys)
    assert (tmp_path / "app" / "Makefile").is_file()
    assert not [path for path in tmp_path.iterdir() if path.name.endswith(".partial")]


def test_make_is_on_the_machine():
    assert shutil.which("make")  # set-up installs it (Ibex's Verilator models need it too)


def test_the_pages_table_of_targets_is_the_catalogs():
    from switchscope.common.paths import checkout

    page = (checkout() / "docs/own-firmware.md").read_text()
    rows = {line.split("|")[1].strip(" `"): [cell.strip(" `") for cell in line.split("|")[2:-1]]
            for line in page.split("## The targets", 1)[1].splitlines() if line.startswith("| `")}
    assert set(rows) == set(project_targets())
    for name, (cpu, simulator, compiler, flags, output, switches) in rows.items():
        target = catalog.TARGETS[name]
        assert (cpu, simulator, compiler, flags, output) == (target.cpu, target.simulator, target.gcc,
                                                            " ".join(target.cflags), target.uart), name
        assert switches == ("no" if target.switches_unavailable else "yes"), name


def test_the_guide_says_of_this_file_only_what_it_holds():
    """docs/own-firmware.md names this file for what it tests; it speaks of expected failures only if some are
    held here (every target with C board code builds and measures its project)."""
    from pathlib import Path
    here = Path(__file__).resolve()
    page = (here.parents[2] / "docs" / "own-firmware.md").read_text()
    naming = [paragraph for paragraph in page.split("\n\n") if "tests/build/test_new_project.py" in paragraph]
    assert naming, "docs/own-firmware.md no longer names tests/build/test_new_project.py"
    holds_expected_failures = "xfail" in here.read_text().replace('"xfail" in', "")
    for paragraph in naming:
        assert ("expected failure" in paragraph) == holds_expected_failures, paragraph
        assert "stops before its first task" not in paragraph, paragraph
