"""Writing a firmware image into a real board with the tool its board.toml
names ([real] flasher: avrdude for an Arduino Uno), bounded in time. Every
failure says how to flash by hand and read the board with --no-flash."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from switchscope.catalog import Target
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.common.tools import require
from switchscope.decode.elf import with_bytes_at
from switchscope.run.serial_port import check_exists

FLASH_TIME_LIMIT_S = 120.0
OBJCOPY = {"avr-gcc": ("avr-objcopy", "binutils-avr"), "arm-none-eabi-gcc": ("arm-none-eabi-objcopy",
                                                                            "binutils-arm-none-eabi")}


IMAGE_PARAMETERS = "board_image_parameters"  # where a real board's image carries its run parameters
PARAMETERS_MAGIC = "ss:"


def with_parameters(image: Path, parameters: list[str]) -> Path:
    """The image to flash: as built when there are no parameters to give, else a copy beside it
    that carries them (a chip has no simulator to pass them: its board code reads them there)."""
    if not parameters:
        return image
    return with_bytes_at(image, IMAGE_PARAMETERS, (PARAMETERS_MAGIC + " ".join(parameters)).encode() + b"\0",
                             image.with_name(f"{image.stem}-flashed.elf"))


def hex_image(target: Target, elf: Path) -> Path:
    """The ELF's loadable sections as Intel HEX, beside it (what bootloaders and flashers take)."""
    executable, package = OBJCOPY.get(target.gcc or "", ("objcopy", "binutils"))
    image = elf.with_suffix(".hex")
    completed = subprocess.run([require(executable, package), "-O", "ihex", "-R", ".eeprom", "-R", ".noinit",
                                str(elf), str(image)], capture_output=True, text=True, timeout=60)
    if completed.returncode != 0:
        raise SwitchscopeError(f"cannot make {image} from {elf}: {completed.stderr.strip()}")
    return image


def not_flashable(target: Target) -> SwitchscopeError:
    return SwitchscopeError(f"{target.name} is no real board switchscope can flash",
                            "flash its image by other means, then read the board with --port ... --no-flash")


def command(target: Target, elf: Path, port: str) -> list[str]:
    """The flasher's command line for this board, image and port (its executable looked up on PATH)."""
    board = target.real_board
    if board is None:
        raise not_flashable(target)
    if board.flashes_through_port:  # a bootloader on the serial line (the Uno's); a debug probe needs no port
        if "://" in port:
            raise SwitchscopeError(f"--port {port}: flashing {board.name} needs its serial device, not a URL",
                                   "flash it by other means and read it with --no-flash")
        check_exists(port)
    executable = require(board.flasher, board.flasher_package)
    needs_hex = any("{hex}" in argument for argument in board.flash_arguments)  # OpenOCD takes the ELF
    return board.flash_command(executable, port, hex_image(target, elf) if needs_hex else None, elf)


class Flashing:
    """A flasher at work, in its own process group (ended with the command, however that ends).
    done() says whether it has finished, and raises FirmwareFailed, with what it said and how to
    flash by hand, when it failed or overran its time."""

    def __init__(self, target: Target, elf: Path, port: str, time_limit: float = FLASH_TIME_LIMIT_S):
        self.argv = command(target, elf, port)
        self.board, self.port, self.time_limit = target.real_board, port, time_limit
        self.output = tempfile.TemporaryFile(mode="w+")  # a pipe could fill and stall a talkative flasher
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self.output,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.started = time.monotonic()

    def done(self) -> bool:
        code = self.process.poll()
        by_hand = f"by hand: {' '.join(self.argv)}"
        if code is None:
            if time.monotonic() - self.started <= self.time_limit:
                return False
            self.close()
            raise FirmwareFailed(f"{self.board.flasher} did not finish flashing within {self.time_limit:.0f} s",
                                 f"check the board and its cable; {by_hand}")
        if code != 0:
            self.output.seek(0)
            said = "\n".join(f"    {line}" for line in self.output.read().strip().splitlines()[-8:])
            raise FirmwareFailed(f"{self.board.flasher} could not flash {self.board.name} (exit {code}):\n{said}",
                                 f"is the board connected, powered and the one named? {by_hand}")
        return True

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.output.close()


def flash(target: Target, elf: Path, port: str, time_limit: float = FLASH_TIME_LIMIT_S) -> None:
    """Flash and wait for the flasher to finish."""
    flashing = Flashing(target, elf, port, time_limit)
    try:
        while not flashing.done():
            time.sleep(0.05)
    finally:
        flashing.close()
