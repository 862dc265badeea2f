"""board.toml's memory tables: [flash], the chip's flash and its accelerator (catalog/memory.py's Flash), and
[slow_memory], a simulated RAM whose wait states a run sets (SlowMemory), each read and checked."""

from __future__ import annotations

from switchscope.catalog.memory import REGISTER_LAYOUTS, Cache, Flash, SlowMemory

# Each function reads a table of catalog/folders.py's reader (its get, table and _error), passed in.


def _bytes_of(table, key: str, required: bool = False) -> int | None:
    """A width in bits (read_bits, line_bits) as bytes: a whole number of bytes, at least one."""
    bits = table.get(key, int, required=required)
    if bits is not None and (bits <= 0 or bits % 8):
        raise table._error(key, f"is {bits}: a width in bits, a positive multiple of 8")
    return None if bits is None else bits // 8


def _cache(table, key: str) -> Cache | None:
    if key not in table.data:
        return None
    geometry = table.table(key)
    cache = Cache(geometry.get("lines", int, required=True), _bytes_of(geometry, "line_bits", required=True),
                  geometry.get("ways", int, required=True))
    if cache.lines <= 0 or cache.ways <= 0 or cache.lines % cache.ways:
        raise geometry._error("ways", f"is {cache.ways}: a whole divisor of the {cache.lines} lines (as many as "
                                      "the lines: fully associative)")
    return cache


def flash_table(table, size: int) -> Flash | None:
    """[flash]: the chip's flash and its accelerator (catalog/memory.py); None without what one read gives."""
    read_bytes = _bytes_of(table, "read_bits")
    if read_bytes is None:
        return None
    flash = Flash(start=table.get("address", int, required=True), size=size, read_bytes=read_bytes,
                  wait_states=table.get("wait_states", int, required=True),
                  wait_states_source=table.get("source", str, required=True), prefetch=table.get("prefetch", bool, False),
                  icache=_cache(table, "icache"), dcache=_cache(table, "dcache"), register=table.get("register", int),
                  register_layout=table.get("register_layout", str, ""),
                  register_reset=table.get("register_reset", int, 0), manual=table.get("manual", str, ""),
                  programmed=table.get("programmed", int))
    if not 0 <= flash.wait_states <= flash.most_wait_states:
        raise table._error("wait_states", f"is {flash.wait_states}, outside the 0 to {flash.most_wait_states} the "
                                          "flash interface takes")
    if flash.register is None and "register_reset" in table.data:
        raise table._error("register_reset", "goes with register: the value it leaves reset with")
    if (flash.register is None) != (flash.register_layout == ""):
        raise table._error("register_layout" if flash.register is not None else "register",
                           "goes with register (the flash interface's control register) and register_layout")
    if not 0 <= flash.register_reset < 1 << 32:
        raise table._error("register_reset", f"is {flash.register_reset:#x}, no 32-bit register's value")
    if flash.register is not None and flash.register_layout not in REGISTER_LAYOUTS:
        raise table._error("register_layout", f"is '{flash.register_layout}', none of the layouts the plugin knows "
                                              f"({', '.join(REGISTER_LAYOUTS)})")
    if flash.programmed is not None:
        if flash.register is None:
            raise table._error("programmed", "goes with register: the value the board code stores into it")
        if not 0 <= flash.programmed < 1 << 32:
            raise table._error("programmed", f"is {flash.programmed:#x}, no 32-bit register's value")
        if flash.latency_programmed() != flash.wait_states:
            raise table._error("programmed", f"is {flash.programmed:#x}, whose LATENCY field programs "
                                             f"{flash.latency_programmed()} wait states, not wait_states' "
                                             f"{flash.wait_states}: say one number of wait states")
    return flash


def slow_memory_table(table) -> SlowMemory | None:
    """[slow_memory]: a RAM whose wait states a run sets; None where the board has no such table."""
    if not table.data:
        return None
    slow = SlowMemory(address=table.get("address", int, required=True),
                      most_wait_states=table.get("most_wait_states", int, required=True),
                      holds=table.get("holds", str, required=True), caches=table.get("caches", str, ""))
    if not 0 < slow.most_wait_states <= 255:
        raise table._error("most_wait_states", f"is {slow.most_wait_states}: 1 to 255, what a testbench holds")
    return slow
