"""The flash of every chip a board names, read against its reference manual: the wait states each board.toml
gives at its clock are worked out here from the manual's own table (its rows as the manual prints them, quoted
below), not from the board's number, and each board cites the table it was read from. The tables are read from
the manuals' text: RM0090 (STM32F405/407/415/417/427/429) Table 10, the column for a 2.7 V to 3.6 V supply;
RM0394 (STM32L43x/44x/45x/46x) Table 9, voltage range 1 (the reset range); RM0008 (STM32F101/102/103/105/107)
3.3.3, FLASH_ACR's LATENCY field, where the F1 gives its rows."""

import re
import tomllib

import pytest

from switchscope import catalog

# manual -> (what its `source` must name, its rows: "N WS" and the highest clock the row allows)
MANUAL_TABLES = {
    "RM0090": ("Table 10", """
        0 WS (1 CPU cycle)  0 < HCLK <= 30
        1 WS (2 CPU cycles) 30 < HCLK <= 60
        2 WS (3 CPU cycles) 60 < HCLK <= 90
        3 WS (4 CPU cycles) 90 < HCLK <= 120
        4 WS (5 CPU cycles) 120 < HCLK <= 150
        5 WS (6 CPU cycles) 150 < HCLK <= 168"""),
    "RM0394": ("Table 9", """
        0 WS (1 CPU cycle)  HCLK <= 16
        1 WS (2 CPU cycles) HCLK <= 32
        2 WS (3 CPU cycles) HCLK <= 48
        3 WS (4 CPU cycles) HCLK <= 64
        4 WS (5 CPU cycles) HCLK <= 80"""),
    "RM0008": ("LATENCY", """
        000 Zero wait state, if 0 < SYSCLK <= 24 MHz
        001 One wait state, if 24 MHz < SYSCLK <= 48 MHz
        010 Two wait states, if 48 MHz < SYSCLK <= 72 MHz"""),
}
WORDS = {"Zero": 0, "One": 1, "Two": 2}
# the chips' flash interfaces: FLASH_ACR's address, by the manual (RM0090 3.9.1, RM0394 3.7.1, RM0008 3.3.3)
REGISTERS = {"RM0090": (0x4002_3C00, "stm32f4"), "RM0394": (0x4002_2000, "stm32f4"), "RM0008": (0x4002_2000, "stm32f1")}
# the boards whose chip the issue names, at the clock it names, and the manual whose rules apply
CHIPS = {"netduinoplus2": ("RM0090", 168_000_000, 5), "nucleo-l432kc": ("RM0394", 80_000_000, 4),
         "bluepill": ("RM0008", 72_000_000, 2)}


def wait_states_from_the_table(manual: str, f_cpu_hz: int) -> int:
    """The first row of the manual's table whose highest clock the board's clock does not pass."""
    for row in MANUAL_TABLES[manual][1].strip().splitlines():
        state = re.match(r"\s*(\d+) WS", row)
        count = int(state.group(1)) if state else WORDS[re.match(r"\s*\d{3} (\w+) wait", row).group(1)]
        highest = int(re.search(r"<= (\d+)", row).group(1))
        if f_cpu_hz <= highest * 1_000_000:
            return count
    raise AssertionError(f"{f_cpu_hz} Hz is past {manual}'s table")


def board_toml(name: str) -> dict:
    return tomllib.loads((catalog.TARGETS[name].directory / "board.toml").read_text())


@pytest.mark.parametrize("name", sorted(CHIPS))
def test_each_chips_wait_states_are_its_manuals_at_its_clock(name):
    manual, clock, stated = CHIPS[name]
    board = board_toml(name)
    flash = board["flash"]
    assert board["f_cpu_hz"] == clock == catalog.TARGETS[name].f_cpu_hz
    assert flash["wait_states"] == wait_states_from_the_table(manual, clock) == stated
    assert manual in flash["source"] and MANUAL_TABLES[manual][0] in flash["source"]
    assert flash.get("manual") in (None, manual)  # the plugin applies the rules of the manual the data is from


@pytest.mark.parametrize("name", ["nucleo-l432kc", "bluepill"])
def test_the_new_chips_flash_interfaces_are_the_manuals(name):
    manual = CHIPS[name][0]
    flash = board_toml(name)["flash"]
    assert (flash["register"], flash["register_layout"]) == REGISTERS[manual]
    assert flash["manual"] == manual and flash["address"] == 0x0800_0000 and flash["prefetch"]
    assert flash["read_bits"] == 64  # both read their flash 64 bits at a time (RM0394 3.3.1, RM0008 3.3.3)
    if manual == "RM0394":  # the ART: 32 lines of 4 x 64 bits on I-Code, 8 such lines on D-Code
        assert flash["icache"] == {"lines": 32, "line_bits": 4 * 64, "ways": 32}
        assert flash["dcache"] == {"lines": 8, "line_bits": 4 * 64, "ways": 8}
    else:  # the F1 has a prefetch buffer only
        assert "icache" not in flash and "dcache" not in flash


def test_the_value_line_has_nothing_to_model():
    """RM0041: the STM32F100's FLASH_ACR holds only the half-cycle access bit, no latency and no prefetch
    buffer; at its 24 MHz it reads its flash with no wait states: the board gives no [flash] to model."""
    assert "read_bits" not in board_toml("stm32vldiscovery").get("flash", {})
    assert wait_states_from_the_table("RM0008", catalog.TARGETS["stm32vldiscovery"].f_cpu_hz) == 0


@pytest.mark.parametrize("name", ["nucleo-l432kc", "bluepill"])
def test_a_chip_timed_on_another_chips_machine_says_so(name):
    target = catalog.TARGETS[name]
    assert target.machine and target.machine != name and target.caveat
    assert f"QEMU's {'STM32L475' if name == 'nucleo-l432kc' else 'STM32F100'} machine" in target.caveat
    assert target.code_directory == catalog.TARGETS["stm32vldiscovery"].directory  # the STM32 board code, once


def test_netduinoplus2_stands_for_the_f407_and_f429():
    summary = catalog.TARGETS["netduinoplus2"].summary
    assert "STM32F407" in summary and "F429" in summary and "RM0090" in summary
    assert not any(name for name in catalog.TARGETS if re.search(r"f407|f429", name))
