"""Writing a firmware image into a real board with the tool its board.toml
names ([real] flasher: avrdude for an Arduino Uno), bounded in time. Every
failure says how to flash by hand and read the board with --no-flash."""

from __future__ import annotations

import subprocess
from pathlib import Path

from switchscope.catalog import Target
from switchscope.errors import FirmwareFailed, SwitchscopeError
from switchscope.serial_port import check_exists
from switchscope.tools import require

FLASH_TIME_LIMIT_S = 120.0
OBJCOPY = {"avr-gcc": ("avr-objcopy", "binutils-avr"), "arm-none-eabi-gcc": ("arm-none-eabi-objcopy",
                                                                            "binutils-arm-none-eabi")}


def hex_image(target: Target, elf: Path) -> Path:
    """The ELF's loadable sections as Intel HEX, beside it (what bootloaders and flashers take)."""
    executable, package = OBJCOPY.get(target.gcc or "", ("objcopy", "binutils"))
    image = elf.with_suffix(".hex")
    completed = subprocess.run([require(executable, package), "-O", "ihex", "-R", ".eeprom", "-R", ".noinit",
                                str(elf), str(image)], capture_output=True, text=True, timeout=60)
    if completed.returncode != 0:
        raise SwitchscopeError(f"cannot make {image} from {elf}: {completed.stderr.strip()}")
    return image


def command(target: Target, elf: Path, port: str) -> list[str]:
    """The flasher's command line for this board, image and port (its executable looked up on PATH)."""
    board = target.real_board
    if board is None:
        raise SwitchscopeError(f"{target.name} is no real board switchscope can flash",
                               "flash its image by other means, then read the board with --port ... --no-flash")
    if board.flashes_through_port:  # a bootloader on the serial line (the Uno's); a debug probe needs no port
        if "://" in port:
            raise SwitchscopeError(f"--port {port}: flashing {board.name} needs its serial device, not a URL",
                                   "flash it by other means and read it with --no-flash")
        check_exists(port)
    executable = require(board.flasher, board.flasher_package)
    return board.flash_command(executable, port, hex_image(target, elf), elf)


def flash(target: Target, elf: Path, port: str, time_limit: float = FLASH_TIME_LIMIT_S) -> None:
    argv = command(target, elf, port)
    by_hand = " ".join(argv)
    try:
        completed = subprocess.run(argv, capture_output=True, text=True, timeout=time_limit, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise FirmwareFailed(f"{target.real_board.flasher} did not finish flashing {port} within {time_limit:.0f} s",
                             f"check the board and its cable; by hand: {by_hand}") from None
    if completed.returncode != 0:
        said = "\n".join(f"    {line}" for line in (completed.stderr or completed.stdout).strip().splitlines()[-8:])
        raise FirmwareFailed(f"{target.real_board.flasher} could not flash {port} (exit {completed.returncode}):\n{said}",
                             f"is this a {target.real_board.summary.split(' (')[0]}? by hand: {by_hand}")
