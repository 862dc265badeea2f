"""The memory a figure was measured with, as every result records it ("memory") and every table, page and
export says it: on a board whose flash is modelled (board.toml [flash]) its wait states, its accelerator and
whether its caches were emptied before each window, each as programmed or forced; on a core's RTL behind a
slow RAM (board.toml [slow_memory]) the wait states of its fetches and of its data accesses; on a board
without either, zero wait states. A count that is no simulated clock's cycles (instructions, a chip's own cycle counter) records
none: the memory shaped it as the chip's own, or not at all."""

from __future__ import annotations

from switchscope.catalog import Target
from switchscope.catalog.memory import Cache, MemorySettings

ZERO_WAIT_STATES = "zero wait states"


def modelled(target: Target, unit: str) -> bool:
    """Whether a run of the target counting `unit` is charged its flash: the timing model's cycles (QEMU's
    plugin, run/qemu.py) on a board with [flash]."""
    return target.flash is not None and target.timing_model_for(unit) is not None and not target.is_riscv


def _cache(cache: Cache | None) -> dict | None:
    return None if cache is None else {"lines": cache.lines, "line_bits": cache.line_bytes * 8, "ways": cache.ways}


def record(target: Target, unit: str, settings: MemorySettings, own_firmware: bool = False) -> dict | None:
    """A result's "memory" (results.schema.json). `own_firmware`: measure's firmware, which programs the flash
    interface itself (from the chip's reset state), not switchscope's board code."""
    if unit != "cycles" or target.simulator == "silicon":
        return None
    if target.slow_memory is not None:  # a core's RTL behind its testbench's RAM: no model, the core's own cycles
        fetch, data = settings.fetch_wait_states, settings.data_wait_states
        slow = target.slow_memory
        return {"model": False, "description": slow.describe(fetch, data, settings.cold), "wait_states": fetch,
                "fetch_wait_states": fetch, "data_wait_states": data,
                **({"caches": "cold" if settings.cold else "warm"} if slow.caches else {})}
    if not modelled(target, unit):
        return {"model": False, "description": ZERO_WAIT_STATES, "wait_states": 0}
    flash = target.flash
    forced = settings.wait_states is not None
    by_firmware = own_firmware and flash.register is not None
    wait_states = settings.wait_states if forced else None if by_firmware else flash.wait_states
    accelerator_set = {None: "programmed", True: "forced on", False: "forced off"}[settings.accelerator]
    enabled = ({part: False for part in flash.parts()} if settings.accelerator is False else flash.parts()
               if settings.accelerator else None if by_firmware else flash.enabled())
    return {"model": True, "description": settings.describe(flash, own_firmware), "wait_states": wait_states,
            "wait_states_set": "forced" if forced else "programmed",
            "wait_states_source": "--config wait_states" if forced else flash.wait_states_source,
            "accelerator": {"prefetch": flash.prefetch, "icache": _cache(flash.icache), "dcache": _cache(flash.dcache)},
            "accelerator_set": accelerator_set, "accelerator_enabled": enabled,
            "caches": ("cold" if settings.cold else "warm") if flash.has_cache else None,
            "programmed_by": "the firmware" if by_firmware else "board code", "manual": flash.manual,
            "register": f"{flash.register:#x} ({flash.register_layout}, {flash.register_reset:#x} out of reset)"
            if flash.register is not None else None}


def said(result) -> str | None:
    """The memory of a result's figures in words, where it recorded one."""
    return (result.memory or {}).get("description")
