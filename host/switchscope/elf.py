"""Reading firmware ELF files: symbols, section contents and sizes, with
pyelftools. One reader for every architecture and for C and Rust firmware
alike: nothing depends on which binutils are installed."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from switchscope import outputs
from switchscope.errors import SwitchscopeError

EM_AVR = "EM_AVR"
AVR_DATA_TAG = 0x800000  # avr-gcc places data addresses at 0x800000 + the RAM address


@dataclass(frozen=True)
class Sizes:
    flash: int  # code, constants and the initial values of data: what is programmed
    ram: int  # static data: initialised and zeroed (stacks come on top)


def _open(path: Path):
    try:
        stream = path.open("rb")
    except OSError as error:
        raise SwitchscopeError(f"cannot read {path}: {error.strerror}") from None
    try:
        return ELFFile(stream)
    except (ELFError, ValueError) as error:
        stream.close()
        raise SwitchscopeError(f"{path} is not an ELF file ({error})",
                               "give the firmware as built, an .elf, not a .hex or .bin") from None


@functools.lru_cache(maxsize=64)
def _symbols(path: Path, mtime: float) -> dict[str, int]:
    elf = _open(path)
    try:
        avr = elf["e_machine"] == EM_AVR
        found: dict[str, int] = {}
        for section in elf.iter_sections():
            if section["sh_type"] not in ("SHT_SYMTAB", "SHT_DYNSYM"):
                continue
            for symbol in section.iter_symbols():
                if not symbol.name or symbol["st_shndx"] == "SHN_UNDEF":
                    continue
                value = symbol["st_value"]
                # addresses as the simulators see them: AVR data without its tag, Thumb code without bit 0
                found.setdefault(symbol.name, value & (AVR_DATA_TAG - 1) if avr else value & ~1)
        return found
    finally:
        elf.stream.close()


def symbols(path: Path) -> dict[str, int]:
    """Every defined symbol of the ELF with its address (data addresses without
    the AVR's 0x800000 tag, code addresses without the Thumb bit)."""
    return _symbols(path, path.stat().st_mtime if path.exists() else 0.0)


def section_words(path: Path, name: str) -> list[int]:
    """The little-endian 32-bit words of a section (empty if the ELF has none)."""
    elf = _open(path)
    try:
        section = elf.get_section_by_name(name)
        data = section.data() if section is not None else b""
        return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - 3, 4)]
    finally:
        elf.stream.close()


def sizes(path: Path) -> Sizes:
    """Flash and static RAM, as `size` counts them: allocated sections that
    are executable or read-only (text) or carry initial values (data) go to
    flash; data and zeroed sections (bss) to RAM."""
    elf = _open(path)
    try:
        text = data = bss = 0
        for section in elf.iter_sections():
            flags = section["sh_flags"]
            if not flags & SH_FLAGS.SHF_ALLOC or section["sh_size"] == 0:
                continue
            if section["sh_type"] == "SHT_NOBITS":
                bss += section["sh_size"]
            elif flags & SH_FLAGS.SHF_WRITE:
                data += section["sh_size"]
            else:
                text += section["sh_size"]
        return Sizes(flash=text + data, ram=data + bss)
    finally:
        elf.stream.close()


def exception_handlers(path: Path) -> list[int]:
    """The handler addresses of a Cortex-M vector table at address 0 (Thumb bit
    cleared), without the reset entry: the `.vector_table`/`.vectors` section
    there, or the data object at 0 (a C startup's array in .text)."""
    elf = _open(path)
    try:
        size = 0
        for section in elf.iter_sections():
            if section.name in (".vector_table", ".vectors", ".isr_vector") and section["sh_addr"] == 0:
                size = section["sh_size"]
        symbols = elf.get_section_by_name(".symtab")
        if not size and symbols is not None:
            size = max((s["st_size"] for s in symbols.iter_symbols()
                        if s["st_value"] == 0 and s["st_info"]["type"] == "STT_OBJECT"), default=0)
        size = size or 16 * 4  # the architecture's own sixteen entries
        table = b""
        for segment in elf.iter_segments():
            if segment["p_type"] == "PT_LOAD" and segment["p_vaddr"] == 0:
                table = segment.data()[:size]
        words = [int.from_bytes(table[i:i + 4], "little") for i in range(0, len(table) - 3, 4)]
        # entry 0 is the initial stack pointer, entry 1 reset: neither is entered as an exception
        return sorted({word & ~1 for word in words[2:] if word & 1})
    finally:
        elf.stream.close()


def with_bytes_at(path: Path, symbol: str, data: bytes, out: Path) -> Path:
    """A copy of the ELF at `out` whose initial contents at `symbol` are `data` (the rest of the
    symbol zero): what a flasher then writes. Refused if the symbol is missing or too small."""
    elf = _open(path)
    try:
        found = None
        for section in elf.iter_sections():
            if section["sh_type"] == "SHT_SYMTAB":
                found = next((s for s in section.iter_symbols() if s.name == symbol), None)
        if found is None:
            raise SwitchscopeError(f"{path} has no {symbol}: it was built before images carried their parameters",
                                   "build it again with this switchscope")
        address, size = found["st_value"], found["st_size"]
        if len(data) > size:
            raise SwitchscopeError(f"{len(data)} bytes do not fit in {symbol} ({size} bytes) of {path}")
        holder = next((s for s in elf.iter_sections() if s["sh_type"] == "SHT_PROGBITS"
                       and s["sh_addr"] <= address < s["sh_addr"] + s["sh_size"]), None)
        if holder is None:
            raise SwitchscopeError(f"{symbol} of {path} is in no section with contents")
        offset = holder["sh_offset"] + address - holder["sh_addr"]
    finally:
        elf.stream.close()
    image = bytearray(path.read_bytes())
    image[offset:offset + size] = data.ljust(size, b"\0")
    with outputs.replacing(out, "wb") as file:
        file.write(bytes(image))
    return out
