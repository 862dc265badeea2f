"""An image timed by another core's model gives another core's figure: measure refuses one the target's model
cannot time as built (a hard-float image on a Cortex-M4 built without its FPU, an image linked for another
machine's memory) and says what it assumed where the image does not say which core it is for. The images are
switchscope's own yield firmware, built by the real compilers for one board and given to another as a user's."""

import re

import pytest

from conftest import run_command
from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.catalog import configs

pytestmark = pytest.mark.firmware

FREERTOS, YIELD = catalog.KERNELS["freertos"], catalog.SCENARIOS["yield"]


def yield_elf(target, **options):
    board = catalog.TARGETS[target]
    return str(build(FREERTOS, board, YIELD, config=configs.resolve(options, FREERTOS, board, YIELD)).elf)


def measure(elf, target, capsys, *more):
    return run_command(["measure", elf, "--target", target, *(more or ("--from", "ss_yield", "--to",
                                                                        "vTaskSwitchContext")), "--count", "20"],
                       capsys)


def test_a_hard_float_image_is_refused_on_the_cortex_m4_without_its_fpu(capsys):
    # a task that uses the FPU: the M4F's port saves s16-s31, and exception entry reserves the extended frame
    fp_image = yield_elf("mps2-an386-fpu", fp_tasks="1")
    status, said = measure(fp_image, "mps2-an386", capsys)
    assert status == 2, said
    assert "is built with floating-point instructions (VFPv4-D16, hard-float calls)" in said
    assert "give --target mps2-an386-fpu" in said and "Traceback" not in said
    status, said = measure(fp_image, "mps2-an386-fpu", capsys)  # its own board measures it
    assert status == 0 and "error" not in said, said


def test_an_armv6m_image_says_which_of_the_m0_and_m0plus_times_it(capsys):
    # GCC records -mcpu=cortex-m0 and -mcpu=cortex-m0plus alike (Tag_CPU_name "6S-M"): the core is an assumption
    status, said = measure(yield_elf("microbit"), "microbit-m0plus", capsys)
    assert status == 0, said
    assert "records its architecture (ARMv6S-M), not its core" in said
    assert "timed as microbit-m0plus's cortex-m0plus; --target microbit times it as the other" in said


def test_a_cortex_m3_image_under_switches_on_the_cortex_m4_says_so(capsys):
    status, said = measure(yield_elf("mps2-an385"), "mps2-an386", capsys, "--switches", "--kernel", "freertos")
    assert status == 0, said
    assert "note:" in said and "is built for ARMv7-M (Cortex-M3): the cortex-m4 runs it unchanged" in said


# Where each machine's RAM is: Ibex simple_system's at 0x100000 (lowRISC Ibex, examples/simple_system/README.md,
# "1 MB of RAM at 0x100000"), QEMU virt's DRAM at 0x80000000 (hw/riscv/virt.c, virt_memmap VIRT_DRAM).
@pytest.mark.parametrize("built_for, given, linked_at, fits", [
    ("ibex", "ibex-qemu", "0x80000000", "ibex or ibex-maxperf"),
    ("ibex-qemu", "ibex", "0x100000", "ibex-qemu"),
])
def test_an_image_linked_for_the_other_ibex_machine_says_where_the_target_links(capsys, built_for, given,
                                                                                 linked_at, fits):
    status, said = measure(yield_elf(built_for), given, capsys)
    assert status == 2, said
    assert f"{given} runs images linked at {linked_at}" in said, said
    assert f"give --target {fits}" in said and "Traceback" not in said


# Where each machine's memory is: the STM32F100RB's 128 KB of flash at 0x08000000 (aliased at 0 when it boots
# from flash) and 8 KB of SRAM at 0x20000000 (ST RM0041, "Memory map", "Boot configuration"); the MPS2 image's
# kernel heap alone is larger than that SRAM.
def test_an_image_linked_for_another_boards_memory_is_refused_before_it_runs(capsys):
    status, said = measure(yield_elf("mps2-an385"), "stm32vldiscovery", capsys, "--switches", "--kernel", "freertos")
    assert status == 2, said
    assert re.search(r"loads 0x20000000 to 0x2000[0-9a-f]{4}, outside stm32vldiscovery's memory", said), said
    assert "stm32vldiscovery runs images linked at 0x8000000 or 0x20000000 or 0x0" in said, said
    assert "give --target mps2-an385, the machine it is linked for" in said and "Traceback" not in said


@pytest.mark.parametrize("built_for, given, fits", [
    ("microbit", "mps2-an385", "microbit or microbit-m0plus"),  # the same memory map, the nRF51's UART
    ("stm32vldiscovery", "netduinoplus2", "stm32vldiscovery"),  # one link script; the F1's USART1, not the F4's
])
def test_an_image_that_names_another_board_is_refused_naming_it(capsys, built_for, given, fits):
    status, said = measure(yield_elf(built_for), given, capsys, "--switches", "--kernel", "freertos")
    assert status == 2, said
    assert f"is built for {built_for} (the board name it carries), and {given} is another board" in said, said
    assert f"give --target {fits}, or" in said and "Traceback" not in said


def test_a_core_that_does_not_fit_suggests_only_the_boards_that_run_the_image(capsys):
    # the Cortex-M3 boards: lm3s6965evb runs no C image, stm32vldiscovery's flash is at 0x08000000
    status, said = measure(yield_elf("mps2-an385"), "microbit-m0plus", capsys)
    assert status == 2, said
    assert "is built for ARMv7-M (Cortex-M3)" in said
    assert "give --target mps2-an385, or build it for the cortex-m0plus" in said, said
