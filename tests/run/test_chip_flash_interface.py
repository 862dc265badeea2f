"""The STM32 board code programs the flash interface as an application's clock set-up does, on QEMU too (QEMU
ignores the register; the timing plugin follows the stores to it), and the run parameter cold=1 reaches the
firmware: the stream says so, and the caches are emptied (ICRST|DCRST stored while both caches are off) once
before every window, calibration's included. QEMU's -d unimp log shows each store to FLASH_ACR, an
unimplemented device on every STM32 machine, so the test reads the stores from there, not from the plugin."""

import re
import subprocess

import pytest

from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.run.qemu import command, qemu_binary
from switchscope.run.runner import run

pytestmark = pytest.mark.firmware

# target -> FLASH_ACR's value once programmed, as STM32Cube's start-up leaves it at the target's clock
PROGRAMMED = {"netduinoplus2": 5 | 1 << 8 | 1 << 9 | 1 << 10,  # RM0090: 5 WS, PRFTEN, ICEN, DCEN
              "nucleo-l432kc": 4 | 1 << 9 | 1 << 10,  # RM0394: 4 WS, ICEN, DCEN (the L4 template's prefetch off)
              "bluepill": 2 | 1 << 4}  # RM0008: 2 WS, PRFTBE
ICEN, DCEN, ICRST, DCRST = 1 << 9, 1 << 10, 1 << 11, 1 << 12
SAMPLES = 12
CALIBRATION_PAIRS = 8  # harness.c: the probe's calibration windows, each opened as a sample's is


def flash_interface_stores(target_name: str, parameters: list[str], tmp_path) -> list[int]:
    """The values the firmware stored to its FLASH_ACR, in order, on QEMU's machine."""
    target = catalog.TARGETS[target_name]
    job_firmware = build(catalog.KERNELS["freertos"], target, catalog.SCENARIOS["yield"])
    log = tmp_path / f"{target_name}-unimp.log"
    line = command(qemu_binary(target), target, job_firmware.elf, parameters)
    line[line.index("stdio")] = "null"  # the stream is not read here
    subprocess.run([*line, "-d", "unimp", "-D", str(log)], check=True, timeout=120, capture_output=True)
    return [int(value, 16) for value in re.findall(r"(?:Flash Int|FLASH): unimplemented device write \(size 4, "
                                                   r"offset 0x000, value (0x[0-9a-f]+)\)", log.read_text())]


@pytest.mark.parametrize("target", sorted(PROGRAMMED))
def test_the_board_code_programs_the_flash_interface_on_qemu_as_on_the_chip(target, tmp_path):
    stores = flash_interface_stores(target, [f"samples={SAMPLES}"], tmp_path)
    assert stores == [PROGRAMMED[target]]  # once, before the clock rises, and never again in a warm run
    assert catalog.TARGETS[target].flash.programmed == stores[0]  # what the memory line decodes is what it stores


def test_the_value_line_programs_nothing(tmp_path):
    assert flash_interface_stores("stm32vldiscovery", [f"samples={SAMPLES}"], tmp_path) == []


@pytest.mark.parametrize("target", ["netduinoplus2", "nucleo-l432kc"])
def test_cold_empties_the_caches_before_every_window_as_the_manual_allows(target, tmp_path):
    stores = flash_interface_stores(target, [f"samples={SAMPLES}", "cold=1"], tmp_path)
    programmed, disabled = PROGRAMMED[target], PROGRAMMED[target] & ~(ICEN | DCEN)
    emptying = [disabled, disabled | ICRST | DCRST, disabled, programmed]  # reset only while disabled
    assert stores == [programmed] + emptying * (CALIBRATION_PAIRS + SAMPLES)


def test_a_flash_without_caches_has_nothing_to_empty(tmp_path):
    assert flash_interface_stores("bluepill", [f"samples={SAMPLES}", "cold=1"], tmp_path) == [PROGRAMMED["bluepill"]]


def test_the_stream_says_the_caches_were_emptied():
    target = catalog.TARGETS["nucleo-l432kc"]
    firmware = build(catalog.KERNELS["freertos"], target, catalog.SCENARIOS["yield"])
    cold = run(target, firmware.elf, [f"samples={SAMPLES}", "cold=1"], SAMPLES, time_limit=60)
    warm = run(target, firmware.elf, [f"samples={SAMPLES}"], SAMPLES, time_limit=60)
    assert cold.exit_code == 0 and cold.stream.complete and len(cold.stream.samples) == SAMPLES
    assert cold.stream.meta["cold_caches"] == "1" and "cold_caches" not in warm.stream.meta
