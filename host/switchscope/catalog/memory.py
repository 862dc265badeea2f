"""A chip's flash and the accelerator in front of it, as data (board.toml [flash]).

The core's timing model counts each instruction as if it were fetched at once;
a chip that runs its flash with wait states at full clock stalls the core
whenever a fetch or a load finds its flash read neither in the line being
read, nor in the prefetch buffer, nor in a cache. The rules for what each of
those costs are the plugin's (host/qemu-plugin/flash_memory.c), each stated
once with the reference manual's words; what differs from chip to chip is
data: the region, how many bytes a flash read gives, the wait states at the
board's clock, and the accelerator's geometry. The flash interface's register
(FLASH_ACR on the STM32s) is what the firmware programs: the plugin follows
its stores, as the chip does, unless a run forces a setting (what-if options).
"""

from __future__ import annotations

from dataclasses import dataclass

# The layouts of the flash interface's control register the plugin knows, by the manual that gives them.
REGISTER_LAYOUTS = {
    "stm32f4": "RM0090 3.9.1 / RM0394 3.7.1 FLASH_ACR: LATENCY bits 3:0, PRFTEN 8, ICEN 9, DCEN 10, ICRST 11, "
               "DCRST 12",
    "stm32f1": "RM0008 3.3.3 FLASH_ACR: LATENCY bits 2:0, HLFCYA 3, PRFTBE 4",
}

# Each layout's LATENCY field and the bits that turn each part of the accelerator on (the register's names above).
LATENCY_FIELDS = {"stm32f4": 0xF, "stm32f1": 0x7}
ENABLE_BITS = {"stm32f4": {"prefetch": 1 << 8, "icache": 1 << 9, "dcache": 1 << 10},
               "stm32f1": {"prefetch": 1 << 4}}

# The most wait states each layout's LATENCY field can be programmed with: RM0090's four bits (0000 to 1111:
# "Fifteen wait states"); RM0008's three bits take 000 to 010 only ("Two wait states"), the rest reserved.
MOST_WAIT_STATES = {"stm32f4": 15, "stm32f1": 2}
ANY_WAIT_STATES = 15  # a flash no register is followed for: what-if values up to RM0090's most
SLOW_WAIT_STATES = 15  # a slow memory's (SlowMemory): the options' values go no further than any board's most


@dataclass(frozen=True)
class Cache:
    """A cache of flash reads: `lines` of `line_bytes`, `ways` lines a set (ways == lines: fully associative)."""
    lines: int
    line_bytes: int
    ways: int

    def describe(self) -> str:
        return f"{self.lines} lines of {self.line_bytes * 8} bits" + (
            "" if self.ways == self.lines else f", {self.ways}-way")

    def argument(self) -> str:
        return f"{self.lines}:{self.line_bytes}:{self.ways}"


@dataclass(frozen=True)
class Flash:
    """The flash a board's code runs from, as its chip is shipped at the board's clock."""
    start: int
    size: int
    read_bytes: int  # what one flash read gives: 16 (128 bits) on the STM32F4, 8 on the STM32L4 and F1
    wait_states: int  # at the board's clock and supply, from the manual's table (what its firmware programs)
    wait_states_source: str  # where that number is read
    prefetch: bool  # a prefetch of the next sequential read while the core executes the current one
    icache: Cache | None = None
    dcache: Cache | None = None  # the literal pools and constants read through the D-Code bus
    register: int | None = None  # the flash interface's control register the firmware programs (FLASH_ACR)
    register_layout: str = ""  # a key of REGISTER_LAYOUTS
    register_reset: int = 0  # the register's value out of reset (the STM32L4's FLASH_ACR: 0x600, its caches on)
    manual: str = ""  # the reference manual whose rules the chip follows ("RM0090")
    programmed: int | None = None  # what the board code stores into the register at the board's clock

    def latency_programmed(self) -> int | None:
        """The wait states in `programmed`'s LATENCY field: None where no register value is known."""
        if self.programmed is None:
            return None
        return self.programmed & LATENCY_FIELDS[self.register_layout]

    def parts(self) -> dict[str, bool]:
        """Which parts of an accelerator the chip has: "prefetch", "icache", "dcache"."""
        return {"prefetch": self.prefetch, "icache": self.icache is not None, "dcache": self.dcache is not None}

    def enabled(self) -> dict[str, bool]:
        """Which parts of the accelerator the board code turns on: those its register value sets, or every part
        the chip has where the board says no value."""
        present = self.parts()
        if self.programmed is None:
            return present
        bits = ENABLE_BITS[self.register_layout]
        return {part: there and part in bits and bool(self.programmed & bits[part]) for part, there in present.items()}

    @property
    def has_accelerator(self) -> bool:
        return self.prefetch or self.icache is not None or self.dcache is not None

    @property
    def most_wait_states(self) -> int:
        """The most wait states a run may force: what the flash interface's register can be programmed with."""
        return MOST_WAIT_STATES.get(self.register_layout, ANY_WAIT_STATES)

    @property
    def has_cache(self) -> bool:
        return self.icache is not None or self.dcache is not None

    def accelerator(self, as_programmed: bool = False) -> str:
        """The accelerator in words: "prefetch, I-cache 64 lines of 128 bits, D-cache 8 lines of 128 bits";
        `as_programmed`: the parts the board code leaves off said so ("..., prefetch off")."""
        present = self.parts()
        on = self.enabled() if as_programmed else present
        names = {"prefetch": "prefetch", "icache": "I-cache", "dcache": "D-cache"}
        geometry = {"icache": self.icache, "dcache": self.dcache}
        said = [names[part] + (f" {geometry[part].describe()}" if part in geometry else "")
                for part in present if on[part]]
        said += [f"{names[part]} off" for part, there in present.items() if there and not on[part]]
        return ", ".join(said) or "none"


@dataclass(frozen=True)
class SlowMemory:
    """A simulated machine's RAM that its testbench can make slow (board.toml [slow_memory]): it holds each
    instruction fetch, and apart each data access, a set number of cycles before it takes it. What the wait
    costs a switch is the core's own logic's to decide (a core's RTL: its prefetch buffer, its load-store unit)."""
    address: int  # where the RAM starts (its size: the board's ram_bytes)
    most_wait_states: int  # the most a run may set
    holds: str  # what holds the requests, in words, for every figure's memory line
    caches: str = ""  # the core's own caches in front of it, in words, which cache=cold empties; "" none

    def describe(self, fetch_wait_states: int, data_wait_states: int, cold: bool = False) -> str:
        state = "" if not self.caches else f", {self.caches}, " + ("cold" if cold else "warm")
        if fetch_wait_states == data_wait_states == 0:
            return "zero wait states" + state
        plural = "s" if fetch_wait_states != 1 else ""
        return (f"RAM with {fetch_wait_states} wait state{plural} on instruction fetches and {data_wait_states} on "
                f"data accesses ({self.holds}){state}")


@dataclass(frozen=True)
class MemorySettings:
    """What a run asks of the memory model: None where the firmware's own programming of the register decides."""
    wait_states: int | None = None  # forced wait states
    accelerator: bool | None = None  # forced: every part of the accelerator on, or all off
    cold: bool = False  # the firmware empties the caches before each window
    fetch_wait_states: int = 0  # a slow memory's (SlowMemory): its instruction fetches' wait states
    data_wait_states: int = 0  # and its data accesses'

    @property
    def slow(self) -> bool:
        """Whether a slow memory waits at all: at 0 and 0 it is the single-cycle RAM, and nothing is asked of it."""
        return self.slowest_access > 1

    @property
    def slowest_access(self) -> int:
        """The cycles an access to a slow memory takes at most where a single-cycle RAM's take one: what a run's
        bounds (its cycles, its time) grow by."""
        return 1 + max(self.fetch_wait_states, self.data_wait_states)

    def describe(self, flash: Flash, own_firmware: bool = False) -> str:
        """The memory a figure was measured with, for every table, JSON and report. `own_firmware`: a firmware of
        one's own (measure), whose stores to the register decide what is programmed, from the chip's reset state."""
        wait_states = (f"{flash.wait_states} wait states as programmed" if self.wait_states is None
                       else f"{self.wait_states} wait states (forced)")
        own_firmware = own_firmware and flash.register is not None  # else no store of the firmware's changes them
        if own_firmware and self.wait_states is None:
            wait_states = f"wait states as the firmware programs them ({flash.wait_states} at the board's clock)"
        accelerator = flash.accelerator(as_programmed=self.accelerator is None and not own_firmware)
        if own_firmware and self.accelerator is None and flash.has_accelerator:
            accelerator += f" as the firmware enables them (the register {flash.register_reset:#x} out of reset)"
        if self.accelerator is False:
            accelerator = "accelerator off (forced)"
        elif self.accelerator is True:
            accelerator += " (forced on)"
        state = ", cold caches" if self.cold else (", warm" if flash.has_cache and self.accelerator is not False else "")
        return f"flash {wait_states}, {accelerator}{state}"


def plugin_arguments(flash: Flash, settings: MemorySettings) -> str:
    """The timing plugin's arguments for this flash (each with a leading comma):
    flash=START:SIZE:READ_BYTES   the region, and what one read gives
    flash_ws=N                    the wait states when no register is followed, or forced
    flash_prefetch=1              the accelerator has a prefetch buffer
    flash_icache=LINES:BYTES:WAYS, flash_dcache=...  its caches
    flash_register=ADDRESS:LAYOUT:RESET  the control register whose stores the plugin follows, and its
                                  value out of reset
    flash_force_ws=1              flash_ws holds whatever the firmware programs
    flash_accelerator=on|off      forced on or off, whatever the firmware programs
    """
    arguments = f",flash={flash.start:#x}:{flash.size:#x}:{flash.read_bytes}"
    forced_ws = settings.wait_states is not None
    arguments += f",flash_ws={settings.wait_states if forced_ws else flash.wait_states}"
    if forced_ws:
        arguments += ",flash_force_ws=1"
    if flash.prefetch:
        arguments += ",flash_prefetch=1"
    if flash.icache:
        arguments += f",flash_icache={flash.icache.argument()}"
    if flash.dcache:
        arguments += f",flash_dcache={flash.dcache.argument()}"
    if flash.register is not None:
        arguments += f",flash_register={flash.register:#x}:{flash.register_layout}:{flash.register_reset:#x}"
    if settings.accelerator is not None:
        arguments += f",flash_accelerator={'on' if settings.accelerator else 'off'}"
    return arguments
