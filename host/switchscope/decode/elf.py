"""Reading firmware ELF files: symbols, section contents and sizes, with
pyelftools. One reader for every architecture and for C and Rust firmware
alike: nothing depends on which binutils are installed."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.construct import ConstructError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import ARMAttributesSection

from switchscope.common import outputs
from switchscope.common.errors import SwitchscopeError

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
        elf = ELFFile(stream)
        size = path.stat().st_size
        table_end = elf["e_shoff"] + elf["e_shnum"] * elf["e_shentsize"]
        if elf["e_shnum"] == 0 or table_end > size:
            raise _Truncated(f"its section headers end at byte {table_end:,}, the file at {size:,}")
        for section in elf.iter_sections():
            if section["sh_type"] != "SHT_NOBITS" and section["sh_offset"] + section["sh_size"] > size:
                raise _Truncated(f"section {section.name or '?'} ends at byte "
                                 f"{section['sh_offset'] + section['sh_size']:,}, the file at {size:,}")
        return elf
    except _Truncated as error:
        stream.close()
        raise SwitchscopeError(f"{path} is a truncated ELF file: {error}",
                               "give the whole file as the linker wrote it (build it again, or copy it again)") from None
    except (ELFError, ValueError, OSError) as error:
        stream.close()
        raise SwitchscopeError(f"{path} is not an ELF file ({error})",
                               "give the firmware as built, an .elf, not a .hex or .bin") from None


class _Truncated(Exception):
    pass


MACHINES = {"EM_ARM": "Arm (Cortex-M)", "EM_AVR": "AVR", "EM_RISCV": "RISC-V"}


def _header(path: Path, field: str):
    elf = _open(path)
    try:
        return elf[field]
    finally:
        elf.stream.close()


def machine(path: Path) -> str:
    """The ELF's e_machine, as pyelftools names it (EM_ARM, EM_AVR, EM_X86_64, ...)."""
    return _header(path, "e_machine")


def entry(path: Path) -> int:
    """The ELF's entry point (e_entry)."""
    return _header(path, "e_entry")


def arm_attributes(path: Path) -> dict | None:
    """The build attributes an Arm ELF records for the whole file (.ARM.attributes, the "aeabi" vendor's
    Tag_File group), by pyelftools' names (TAG_CPU_NAME, TAG_CPU_ARCH, TAG_FP_ARCH, TAG_ABI_VFP_ARGS, ...);
    None where it records none, or damaged ones."""
    elf = _open(path)
    try:
        section = elf.get_section_by_name(".ARM.attributes")
        if not isinstance(section, ARMAttributesSection):
            return None
        tags = {}
        for subsection in section.iter_subsections():
            if subsection.header["vendor_name"] != "aeabi":
                continue
            for group in subsection.iter_subsubsections():
                if group.header.tag == "TAG_FILE":  # the whole file's, not one section's or symbol's
                    for attribute in group.iter_attributes():
                        tags.setdefault(attribute.tag, attribute.value)
    except (ELFError, ConstructError, ValueError, KeyError, IndexError, AttributeError):
        return None
    finally:
        elf.stream.close()
    return tags or None


def loaded_segments(path: Path) -> list[tuple[int, int, bytes]]:
    """What an ELF loads into memory: each PT_LOAD segment's first address, its end (its size in memory) and
    the bytes the file holds for it."""
    elf = _open(path)
    try:
        return [(segment["p_vaddr"], segment["p_vaddr"] + segment["p_memsz"], segment.data())
                for segment in elf.iter_segments() if segment["p_type"] == "PT_LOAD" and segment["p_memsz"]]
    except (ELFError, ConstructError, ValueError) as error:
        raise SwitchscopeError(f"{path}: its program headers cannot be read ({error})",
                               "give the firmware as the linker wrote it") from None
    finally:
        elf.stream.close()


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


VECTOR_SECTIONS = (".vector_table", ".vectors", ".isr_vector")  # cortex-m-rt, CMSIS and C startups
MAX_VECTORS = 16 + 240  # ARMv7-M: the architecture's sixteen entries and at most 240 external interrupts


def _loaded_sections(elf) -> list:
    """The sections whose contents are loaded into the target's memory."""
    return [s for s in elf.iter_sections() if s["sh_type"] == "SHT_PROGBITS" and s["sh_flags"] & SH_FLAGS.SHF_ALLOC]


def _section_at(sections: list, address: int):
    """The one of `sections` that holds `address`, or None."""
    return next((s for s in sections if s["sh_addr"] <= address < s["sh_addr"] + s["sh_size"]), None)


def _vector_table(elf) -> tuple[int, bytes]:
    """The address and the bytes of the vector table the core boots from: a section of its own (whatever
    its address: 0 on mps2, 0x08000000 on an STM32), else the data object whose reset entry (word 1) is
    the ELF's entry point, else the start of the loaded image (where VTOR points at reset) when its word 1
    is a Thumb address. Its length is the section's, or the object's, or reaches the next symbol after
    the table's start: never past the table into code."""
    for section in elf.iter_sections():
        if section.name in VECTOR_SECTIONS and section["sh_type"] == "SHT_PROGBITS" and section["sh_size"]:
            return section["sh_addr"], section.data()
    entry = elf["e_entry"] | 1
    loaded = _loaded_sections(elf)

    def contents(address: int, size: int) -> bytes:
        holder = _section_at(loaded, address)
        if holder is None:
            return b""
        return holder.data()[address - holder["sh_addr"]:address - holder["sh_addr"] + size]

    def reset_entry(address: int) -> int:
        return int.from_bytes(contents(address + 4, 4), "little")

    table = elf.get_section_by_name(".symtab")
    symbols = [s for s in table.iter_symbols() if s["st_shndx"] != "SHN_UNDEF"] if table is not None else []
    for symbol in symbols:
        if symbol["st_info"]["type"] == "STT_OBJECT" and symbol["st_size"] >= 8 \
                and reset_entry(symbol["st_value"]) == entry:
            return symbol["st_value"], contents(symbol["st_value"], symbol["st_size"])
    base = min((s["sh_addr"] for s in loaded), default=0)
    if reset_entry(base) & 1:
        size = min(MAX_VECTORS * 4, *(s["st_value"] - base for s in symbols if s["st_value"] > base))
        return base, contents(base, size)
    return 0, b""


def exception_handlers(path: Path) -> list[int]:
    """The handler addresses of a Cortex-M firmware's vector table (Thumb bit cleared), without the
    stack pointer and reset entries, which are never entered as exceptions. See _vector_table for
    where the table is found and how long it is."""
    elf = _open(path)
    try:
        _, table = _vector_table(elf)
        words = [int.from_bytes(table[i:i + 4], "little") for i in range(0, len(table) - 3, 4)]
        return sorted({word & ~1 for word in words[2:MAX_VECTORS] if word & 1})
    finally:
        elf.stream.close()


RISCV_VECTORS = 32  # a vectored trap table: mtvec + 4 * cause, causes 0-31 (Ibex: exceptions at + 0, the NMI at 31)
RISCV_VECTOR_ALIGN = 256  # Ibex's mtvec base is 256-byte aligned (its low 8 bits read as 0x01, vectored)


def _is_riscv_jump(word: int) -> bool:
    """JAL x0 (j): opcode 1101111, rd 0."""
    return word & 0xFFF == 0x06F


def riscv_vector_entries(path: Path) -> list[int]:
    """The entries of a RISC-V firmware's vectored trap tables: every symbol at a 256-byte boundary
    where 32 uncompressed jumps (`j`) follow, as board.h's tables are laid out; each entry's address."""
    elf = _open(path)
    try:
        loaded = _loaded_sections(elf)
        table = elf.get_section_by_name(".symtab")
        starts = sorted({s["st_value"] for s in table.iter_symbols()
                         if s["st_shndx"] != "SHN_UNDEF" and s["st_value"] % RISCV_VECTOR_ALIGN == 0}) \
            if table is not None else []
        entries = []
        for start in starts:
            holder = _section_at(loaded, start)
            if holder is None or holder["sh_type"] != "SHT_PROGBITS":
                continue
            offset = start - holder["sh_addr"]
            code = holder.data()[offset:offset + 4 * RISCV_VECTORS]
            words = [int.from_bytes(code[i:i + 4], "little") for i in range(0, len(code) - 3, 4)]
            if len(words) == RISCV_VECTORS and all(_is_riscv_jump(w) for w in words):
                entries += [start + 4 * n for n in range(RISCV_VECTORS)]
        return entries
    finally:
        elf.stream.close()


AVR_JMP = 0x940C  # JMP k: 1001 010k kkkk 110k, then the low 16 bits of k (a word address)
AVR_VECTORS_MOST = 64


def avr_vectors(path: Path) -> dict[int, int]:
    """An AVR firmware's interrupt vectors: each slot's byte address and the byte address its JMP goes to
    (the table at the start of flash, a JMP per vector, as avr-libc lays it out)."""
    elf = _open(path)
    try:
        text = _section_at(_loaded_sections(elf), 0)
        code = text.data() if text is not None and text["sh_addr"] == 0 else b""
        found = {}
        for slot in range(0, min(len(code), AVR_VECTORS_MOST * 4) - 3, 4):
            first, second = (int.from_bytes(code[slot + i:slot + i + 2], "little") for i in (0, 2))
            if first & 0xFE0E != AVR_JMP:
                break
            high = ((first >> 4) & 0x1F) << 1 | (first & 1)
            found[slot] = 2 * (high << 16 | second)
        return found
    finally:
        elf.stream.close()


def functions(path: Path) -> list[tuple[int, int, str]]:
    """(start, end, name) of every function symbol with a size, by start (Thumb bit cleared)."""
    elf = _open(path)
    try:
        found = {}
        for section in elf.iter_sections():
            if section["sh_type"] == "SHT_SYMTAB":
                for symbol in section.iter_symbols():
                    if symbol["st_info"]["type"] == "STT_FUNC" and symbol["st_size"] and symbol.name:
                        start = symbol["st_value"] & ~1
                        found.setdefault(start, (start, start + symbol["st_size"], symbol.name))
        return sorted(found.values())
    finally:
        elf.stream.close()


def code_regions(path: Path) -> list[tuple[int, int, str]]:
    """functions(), and where code lies outside them, regions named by the label that starts them: a
    routine written in assembly often has a symbol and no size (FreeRTOS's RISC-V trap handler). Such a
    label's region runs to the next symbol of code, or to its section's end."""
    sized = functions(path)
    elf = _open(path)
    try:
        executable = {index: (section["sh_addr"], section["sh_addr"] + section["sh_size"])
                      for index, section in enumerate(elf.iter_sections()) if section["sh_flags"] & 0x4}  # SHF_EXECINSTR
        labels = {}
        for section in elf.iter_sections():
            if section["sh_type"] == "SHT_SYMTAB":
                for symbol in section.iter_symbols():
                    shndx = symbol["st_shndx"]
                    if (isinstance(shndx, int) and shndx in executable and symbol.name and not symbol["st_size"]
                            and symbol["st_info"]["type"] in ("STT_FUNC", "STT_NOTYPE")
                            and not symbol.name.startswith(("$", ".L"))):
                        labels.setdefault(symbol["st_value"] & ~1, (symbol.name, executable[shndx][1]))
    finally:
        elf.stream.close()
    starts = sorted({start for start, _, _ in sized} | set(labels))
    regions = list(sized)
    for start, (name, section_end) in labels.items():
        if any(low <= start < high for low, high, _ in sized):
            continue
        later = [s for s in starts if s > start]
        regions.append((start, min([section_end, *later[:1]]), name))
    return sorted(regions)


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
        holder = _section_at(_loaded_sections(elf), address)
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


def member_offset(path: Path, struct: str, member: str) -> int | None:
    """Where `member` lies in the structure named `struct` (or a typedef's of that name), in bytes, from the
    ELF's DWARF debug information; None when the ELF has none for it (built without -g, or stripped)."""
    elf = _open(path)
    try:
        if not elf.has_dwarf_info():
            return None
        for unit in elf.get_dwarf_info().iter_CUs():
            for die in unit.iter_DIEs():
                if die.tag != "DW_TAG_structure_type" or not die.attributes.get("DW_AT_name") \
                        or die.attributes["DW_AT_name"].value.decode(errors="replace") != struct:
                    continue
                for child in die.iter_children():
                    name = child.attributes.get("DW_AT_name")
                    location = child.attributes.get("DW_AT_data_member_location")
                    if child.tag == "DW_TAG_member" and name and location is not None \
                            and name.value.decode(errors="replace") == member and isinstance(location.value, int):
                        return location.value
        return None
    except Exception:  # a DWARF section pyelftools cannot read is the same as none: names are then left out
        return None
    finally:
        elf.stream.close()
