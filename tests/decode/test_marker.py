"""The marker method: zero intrusion, the intrusion report, and `switchscope
measure` on firmware built outside the project's scenario tree."""

import json
import shutil
import subprocess
import textwrap

import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.cli import main
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.decode import elf
from switchscope.figures import intrusion
from switchscope.figures.measure import measure
from switchscope.figures.measure_elf import measure_elf
from switchscope.figures.result import Result

from conftest import core_alone, layout_blind

pytestmark = pytest.mark.firmware  # every test here builds and runs firmware

BLOCKS = [0, 1, 2, 3, 10, 100, 1000]
ARMV6M = ("cortex-m0", "cortex-m0plus")
# ARMv6-M's longest block is 400: its literal loads reach only 1 KB past a function's code (ruler.c)
BLOCKS_ARMV6M = [0, 1, 2, 3, 10, 100, 400]
LAYOUT_BLIND_TARGETS = layout_blind(catalog.KERNELS["freertos"].targets)
# what the tiny user firmware below is built for: the Cortex-M3 and the cores that run its code, and the AVR
# (an ARMv7-M image is refused on ARMv6-M: test_timing_model_armv6m.py)
USER_FIRMWARE_TARGETS = [name for name in LAYOUT_BLIND_TARGETS if catalog.TARGETS[name].cpu not in ARMV6M]


# a core with caches of its own (VexRiscv) meets refills in a block the harness's code evicted between two
# windows: its ruler reads at least N (tests/run/test_vexriscv.py)
@pytest.mark.parametrize("target", [name for name in catalog.KERNELS["freertos"].targets
                                    if not catalog.TARGETS[name].own_caches])
def test_the_marker_ruler_reads_exactly_n(target):
    # the core's own N: on a chip whose flash is modelled, its wait states stall a run of no-ops (docs/flash.md)
    kernel, board, ruler = catalog.KERNELS["freertos"], catalog.TARGETS[target], catalog.SCENARIOS["ruler"]
    config = configs.resolve(core_alone(board), kernel, board, ruler) if board.flash else None
    result = measure(Job(kernel, board, ruler, catalog.METHODS["marker"], config=config), samples=70)
    blocks = BLOCKS_ARMV6M if catalog.TARGETS[target].cpu in ARMV6M else BLOCKS
    assert result.samples == [blocks[seq % 7] for seq in range(70)]


# with a chip's flash modelled the probe's and the scope's own fetches leave a residual their calibration
# cannot take out (docs/flash.md, "The methods, with a memory model")
@pytest.mark.parametrize("target", [name for name in LAYOUT_BLIND_TARGETS if not catalog.TARGETS[name].flash])
def test_the_intrusion_report_accounts_for_every_method(target):
    row = intrusion.report(catalog.KERNELS["freertos"], catalog.TARGETS[target], catalog.SCENARIOS["resume"],
                           samples=50)
    # the probe adds exactly its calibrated cost, the scope exactly its bare pulse,
    # and after their corrections nothing is left
    assert row["probe"]["adds"] == row["probe"]["overhead"] > 0
    assert row["probe"]["residual"] == 0
    assert row["scope"]["adds"] == row["scope"]["t_ab"] > 0
    assert row["scope"]["residual"] == 0
    # printing one line from inside the window costs many times the switch itself
    assert row["print"]["raw"] > 10 * row["marker"]
    assert row["print"]["adds"] == row["print"]["raw"] - row["marker"]


def test_the_intrusion_command_prints_one_block_per_target(capsys, tmp_path):
    out = tmp_path / "intrusion.json"
    assert main(["intrusion", "--scenario", "yield", "--samples", "30", "--json", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "intrusion on mps2-an385, in cycles" in printed
    assert "intrusion on atmega328p, in cycles" in printed
    rows = json.loads(out.read_text())["results"]
    assert {r["target"] for r in rows} == set(catalog.KERNELS["freertos"].targets)


# A tiny firmware of the user's: a loop that calls a block of N no-ops, with a
# label before the call and one after it. From the first label to the second:
# the call, N no-ops and the return.
N = 37
CORTEX_M3_FIRMWARE = textwrap.dedent(f"""
    #include <stdint.h>
    extern uint32_t stack_top;
    void reset(void);
    __attribute__((section(".vectors"), used)) static void (*const vectors[2])(void) = {{
        (void (*)(void))&stack_top, reset}};
    __asm__(".syntax unified\\n.thumb\\n.thumb_func\\npayload:\\n.rept {N}\\nnop\\n.endr\\nbx lr\\n");
    void never_called(void) {{ for (;;) ; }}
    void reset(void) {{
        for (;;)
            __asm__ volatile("measure_from: bl payload\\nmeasure_to:" ::: "r0", "r1", "r2", "r3", "r12", "lr", "memory");
    }}
""")
CORTEX_M3_LINK = """
    MEMORY { CODE (rx) : ORIGIN = 0, LENGTH = 64K  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 64K }
    SECTIONS { .text : { KEEP(*(.vectors)) *(.text*) } > CODE
               .bss : { . += 1024; stack_top = .; } > RAM }
"""
AVR_FIRMWARE = textwrap.dedent(f"""
    __asm__("payload:\\n.rept {N}\\nnop\\n.endr\\nret\\n");
    void never_called(void) {{ for (;;) ; }}
    int main(void) {{
        for (;;)
            __asm__ volatile("measure_from: rcall payload\\nmeasure_to:" ::: "memory");
    }}
""")


@pytest.fixture(scope="module")
def user_firmware(tmp_path_factory):
    """The tiny firmware built for each target with the plain toolchains."""
    folder = tmp_path_factory.mktemp("user-firmware")
    (folder / "m3.c").write_text(CORTEX_M3_FIRMWARE)
    (folder / "m3.ld").write_text(CORTEX_M3_LINK)
    (folder / "avr.c").write_text(AVR_FIRMWARE)
    subprocess.run([shutil.which("arm-none-eabi-gcc"), "-mcpu=cortex-m3", "-mthumb", "-O2", "-nostdlib",
                    "-T", str(folder / "m3.ld"), str(folder / "m3.c"), "-o", str(folder / "m3.elf")], check=True)
    subprocess.run([shutil.which("avr-gcc"), "-mmcu=atmega328p", "-O2", str(folder / "avr.c"),
                    "-o", str(folder / "avr.elf")], check=True)
    # the Cortex-M3 build runs on every Cortex-M board (the Cortex-M4 executes it as it is)
    return {name: folder / ("avr.elf" if target.cpu == "atmega328p" else "m3.elf")
            for name, target in catalog.TARGETS.items() if name in USER_FIRMWARE_TARGETS}


# in cycles: on the AVR rcall (3) + nops + ret (4); on Cortex-M (the timing model) bl (1 + P) +
# nops + bx lr (1 + P, a register target); in instructions bl (1) + nops + bx lr (1)
EXPECTED = {name: N + 7 if catalog.TARGETS[name].unit == "cycles" else N + 5
            for name in catalog.KERNELS["freertos"].targets}
IN_INSTRUCTIONS = N + 2


@pytest.mark.parametrize("target", USER_FIRMWARE_TARGETS)
def test_measure_counts_between_two_points_of_a_users_firmware(user_firmware, target):
    result = measure_elf(user_firmware[target], catalog.TARGETS[target], "measure_from", "measure_to",
                         count=50, time_limit=30)
    assert result.samples == [EXPECTED[target]] * 50
    assert result.unit == "cycles"
    if "instructions" in catalog.TARGETS[target].units:
        counted = measure_elf(user_firmware[target], catalog.TARGETS[target], "measure_from", "measure_to",
                              count=50, time_limit=30, unit="instructions")
        assert counted.samples == [IN_INSTRUCTIONS] * 50 and counted.unit == "instructions"


def test_measure_takes_addresses_too_and_writes_json(user_firmware, tmp_path, capsys):
    found = elf.symbols(user_firmware["atmega328p"])
    out = tmp_path / "measure.json"
    assert main(["measure", str(user_firmware["atmega328p"]), "--target", "atmega328p",
                 "--from", hex(found["measure_from"]), "--to", "measure_to", "--count", "20",
                 "--json", str(out)]) == 0
    assert "in µs at 16 MHz" in capsys.readouterr().out
    (written,) = json.loads(out.read_text())["results"]
    result = Result.from_json(written)
    assert result.samples == [N + 7] * 20 and result.kind == "interval"
    assert result.details["from"]["address"] == found["measure_from"]


def test_an_unknown_symbol_is_named_with_the_near_ones(user_firmware):
    with pytest.raises(SwitchscopeError, match="has no symbol 'measure_fro'") as error:
        measure_elf(user_firmware["mps2-an385"], catalog.TARGETS["mps2-an385"], "measure_fro", "measure_to",
                    count=5, time_limit=10)
    assert "did you mean measure_from?" in str(error.value)


def test_an_interval_from_a_point_to_itself_is_refused(user_firmware):
    found = elf.symbols(user_firmware["mps2-an385"])
    with pytest.raises(SwitchscopeError, match="are the same point") as error:
        measure_elf(user_firmware["mps2-an385"], catalog.TARGETS["mps2-an385"], "measure_from",
                    hex(found["measure_from"]), count=5, time_limit=10)
    assert "every interval would read 0" in str(error.value)


@pytest.mark.parametrize("target", USER_FIRMWARE_TARGETS)
def test_a_marker_never_reached_is_reported_within_the_bound(user_firmware, target):
    with pytest.raises(FirmwareFailed) as error:
        measure_elf(user_firmware[target], catalog.TARGETS[target], "measure_from", "never_called",
                    count=5, time_limit=3)
    message = str(error.value)
    assert "no interval measured" in message
    assert "--to never_called" in message and "0 time(s) after it" in message
