"""Rulers of the flash model (host/qemu-plugin/flash_memory.c): hand-written
sequences linked where an STM32 keeps its flash, 0x08000000, measured with the
marker method in cycles on QEMU's netduinoplus2 (STM32F405, Cortex-M4) with a
flash given to its target. Every expected figure is worked out here from the
reference manual's sentences (RM0090, STM32F405/407: 3.5.2, the ART
accelerator) and the Cortex-M4 core's own cycles (the TRM's, as in
test_timing_model.py), never from the plugin's table: the point the model
charges, and the least and the most the manuals allow.

A window runs from the cycle its first instruction starts to the cycle the
one at its end starts, and an instruction starts once it is fetched: so a
window holds the fetch of the instruction it ends at (each ruler's `_to`
NOP), not that of its first (each ruler's `_from`, a branch target)."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from switchscope import catalog
from switchscope.catalog.memory import Cache, Flash, MemorySettings
from switchscope.figures.measure_elf import measure_elf

from tests.run.test_timing_model import (ALU, EXCEPTION_ENTRY, LDR_LITERAL, NOP, P_IMMEDIATE, Cycles, branch, build,
                                         exception_return, fixed, total, vector_table)

pytestmark = pytest.mark.firmware

FLASH_BASE = 0x0800_0000
FLASH_ACR = 0x4002_3C00
# RM0090 3.9.1, FLASH_ACR: LATENCY bits 3:0, PRFTEN bit 8, ICEN 9, DCEN 10, ICRST 11, DCRST 12
PRFTEN, ICEN, DCEN, ICRST, DCRST = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
WS = 5  # RM0090 Table 10: 150 < HCLK <= 168 MHz at 2.7-3.6 V
READ = 16  # RM0090 3.5.2: "Each flash memory read operation provides 128 bits"

# RM0090 3.5.2: "When the code is not sequential (branch), the instruction may not be present in the currently used
# instruction line or in the prefetched instruction line. In this case (miss), the penalty in terms of number of
# cycles is at least equal to the number of wait states." The model charges the least, WS.
BRANCH_MISS = fixed(WS)
# The next sequential read without prefetch: the read is asked when the instruction that needs it starts (WS);
# how early the core's own fetch-ahead may ask is not said: at the earliest it hides the whole read.
SEQUENTIAL_MISS = Cycles(WS, 0, WS)
# RM0090: "If some data contained in the instruction cache memory are requested by the CPU, they are provided
# without inserting any delay."
HIT = fixed(0)
# RM0090: "Literal pools are fetched from flash memory through the D-Code bus during the execution stage of the CPU
# pipeline. The CPU pipeline is consequently stalled until the requested literal pool is provided."
LITERAL_MISS = fixed(WS)
# Prefetch (RM0090: "Prefetch on the I-Code bus can be used to read the next sequential instruction line from the
# flash memory while the current instruction line is being requested by the CPU"): the next read starts when the
# current one is delivered and takes 1 + WS cycles, the read's own cycle and its wait states.
READ_CYCLES = 1 + WS


def prefetch_wait(cycles_since_delivery: int) -> Cycles:
    """What the first instruction of a prefetched read waits, this many cycles after the read before was delivered."""
    return fixed(max(0, READ_CYCLES - cycles_since_delivery))


def preamble(name: str) -> str:
    """A full read of 7 NOPs and a B (7 + 2 cycles: the prefetch of the read after it, 1 + WS cycles, is done),
    then a read never executed: the window's first read is a branch target, neither current nor prefetched (its
    wait, before the window, delivers it at a known point for the prefetch of the read after it)."""
    return f"""
    .balign 16
    .rept 7
    nop
    .endr
    b.n {name}_from
    .balign 16
    .rept 8
    nop
    .endr
    {name}_from:
    """


def ruler_source(reset_acr: int | None, pass_acr: tuple[int, ...] = (), register: int = FLASH_ACR) -> str:
    """The rulers, run in turn forever. `reset_acr`: what the reset code stores in FLASH_ACR (at `register`; None:
    nothing); `pass_acr`: what each pass stores there, in turn, before its first ruler."""
    store = lambda value: f"ldr r1, ={value:#x}\n    str r1, [r5]\n"
    rulers = {
        # 8 + 8 16-bit ADDS: two full reads
        "seq16": ".rept 16\n    adds r0, r0, #1\n    .endr",
        # 4 + 4 32-bit ADDS.W: two full reads
        "seq32": ".rept 8\n    adds.w r0, r0, #1\n    .endr",
        # 7 16-bit ADDS, an ADDS.W across the two reads, 7 ADDS
        "straddle": ".rept 7\n    adds r0, r0, #1\n    .endr\n    adds.w r0, r0, #1\n"
                    "    .rept 7\n    adds r0, r0, #1\n    .endr",
        # NOP, NOP, B to a read two reads on, where a NOP ends the window
        "branch": "nop\n    nop\n    b.n 1f\n    .balign 16\n    .space 16\n    1: nop",
        # LDR from a literal in a read of its own (no other load shares it), NOP
        "literal": "ldr r1, literal_word\n    nop",
        # SVC into a handler in a read of its own (BX LR), then a NOP back in the SVC's read
        "svc": "svc #0\n    nop",
    }
    body = "\n".join(f"{preamble(name)}\n    {code}\n    {name}_to:\n    nop" for name, code in rulers.items())
    return textwrap.dedent(f"""
    {vector_table(".word svc_handler            @ 11: SVCall")}
    .text
    .thumb_func
    hang: b hang
    .thumb_func
    reset:
    ldr r5, ={register:#x}
    {store(reset_acr) if reset_acr is not None else ""}
    movs r6, #0
    loop:
    {"".join(f"cmp r6, #{i}" + chr(10) + f"    bne 1f" + chr(10) + "    " + store(v) + "1:" + chr(10)
             for i, v in enumerate(pass_acr))}
    adds r6, r6, #1
    cmp r6, #{max(len(pass_acr), 1)}
    bne 2f
    movs r6, #0
    2:
    {body}
    b loop
    .ltorg
    .balign 16
    literal_word: .word 0x12345678
    .balign 16
    .space 16
    .thumb_func
    svc_handler: bx lr
    .balign 16
    .space 16
    .bss
    .align 3
    .space 512
    stack_top:
    """)


NETDUINO = catalog.TARGETS["netduinoplus2"]
assert NETDUINO.timing_model == "cortex-m4"


def chip(prefetch: bool = False, icache: Cache | None = None, dcache: Cache | None = None,
         register: bool = False) -> catalog.Target:
    """netduinoplus2 with an STM32F405's flash; without `register`, every part given is on at WS."""
    flash = Flash(start=FLASH_BASE, size=1 << 20, read_bytes=READ, wait_states=WS, wait_states_source="RM0090 Table 10",
                  prefetch=prefetch, icache=icache, dcache=dcache, register=FLASH_ACR if register else None,
                  register_layout="stm32f4" if register else "", manual="RM0090")
    return dataclasses.replace(NETDUINO, flash=flash)


ICACHE = Cache(lines=64, line_bytes=16, ways=64)  # RM0090: "64 lines of 128 bits"
DCACHE = Cache(lines=8, line_bytes=16, ways=8)  # RM0090: "limited to 8 rows of 128 bits"
TINY_ICACHE = Cache(lines=2, line_bytes=16, ways=2)  # smaller than one pass of the rulers: every pass evicts


@pytest.fixture(scope="module")
def rulers(tmp_path_factory):
    return build(tmp_path_factory.mktemp("flash-rulers"), flash=FLASH_BASE, source=ruler_source(None),
                 cpu=("-mcpu=cortex-m4",))


def measured(firmware, target, ruler: str, memory: MemorySettings = MemorySettings()) -> tuple[list[int], Cycles]:
    """The samples, and the last pass's point with the least of the least bounds and the most of the most."""
    result = measure_elf(firmware, target, f"{ruler}_from", f"{ruler}_to", count=5, time_limit=30, unit="cycles",
                         memory=memory)
    least, most = result.bound_stats
    return result.samples, Cycles(result.samples[-1], least.min, most.max)


def cold_then_warm(samples: list[int], found: Cycles, cold: Cycles, warm: Cycles) -> bool:
    """The first pass read cold, the four after it warm, and the ranges the two allow."""
    return samples == [cold.point] + [warm.point] * 4 and found == Cycles(warm.point, warm.least, cold.most)


def steady(firmware, target, ruler: str, memory: MemorySettings = MemorySettings()) -> Cycles:
    samples, found = measured(firmware, target, ruler, memory)
    assert len(set(samples)) == 1, f"{ruler}: the same cycles every pass, got {samples}"
    return found


SIXTEEN_ADDS, EIGHT_ADDS_W = ALU * 16, ALU * 8


def test_sequential_16_bit_code_without_prefetch_waits_at_each_read(rulers):
    # two reads of eight ADDS, and the read the window's last NOP starts
    assert steady(rulers, chip(), "seq16") == total(ALU * 8, SEQUENTIAL_MISS, ALU * 8, SEQUENTIAL_MISS)


def test_sequential_16_bit_code_with_prefetch_waits_only_at_the_branch_target(rulers):
    # the second read was started when the first was delivered: ready 1 + WS = 6 cycles later, needed 8 later
    assert steady(rulers, chip(prefetch=True), "seq16") == total(ALU * 8, prefetch_wait(8), ALU * 8, prefetch_wait(8))
    assert prefetch_wait(8) == fixed(0)


def test_sequential_32_bit_code_outruns_the_prefetch(rulers):
    # RM0090: "in case of sequential code, at least four CPU cycles are needed to execute the previous read
    # instruction line": four ADDS.W take 4 cycles, the prefetched read needs 6
    assert steady(rulers, chip(), "seq32") == total(ALU * 4, SEQUENTIAL_MISS, ALU * 4, SEQUENTIAL_MISS)
    assert steady(rulers, chip(prefetch=True), "seq32") == total(ALU * 4, prefetch_wait(4), ALU * 4, prefetch_wait(4))
    assert prefetch_wait(4) == fixed(2)


def test_a_32_bit_instruction_across_two_reads_needs_both(rulers):
    assert steady(rulers, chip(), "straddle") == total(ALU * 7, SEQUENTIAL_MISS, ALU * 8, SEQUENTIAL_MISS)
    # the third read is prefetched once the second is delivered, at the ADDS.W: needed 1 + 7 cycles later
    assert steady(rulers, chip(prefetch=True), "straddle") == total(ALU * 7, prefetch_wait(7), ALU * 8,
                                                                    prefetch_wait(8))


def test_a_branch_to_a_missed_read_costs_the_wait_states_and_may_wait_for_the_prefetch(rulers):
    # NOP, NOP, B (1 + P) to a read neither current nor prefetched: a miss; the window's last NOP is in that read
    core = total(NOP, NOP, branch(P_IMMEDIATE), NOP)
    assert steady(rulers, chip(), "branch") == total(core, BRANCH_MISS)
    # with prefetch, the read after the first is in flight at the branch, 4 cycles after the first was delivered:
    # whether the branch's read waits for it (2 more cycles) the manual does not say: the model does not, the most does
    in_flight = READ_CYCLES - (1 + 1 + 2)
    assert steady(rulers, chip(prefetch=True), "branch") == total(core, BRANCH_MISS, Cycles(0, 0, in_flight))


def test_a_literal_load_stalls_for_the_flash_unless_the_data_cache_holds_it(rulers):
    core = total(LDR_LITERAL, NOP)  # and the window's last NOP, in the same read
    assert steady(rulers, chip(), "literal") == total(core, LITERAL_MISS)
    # RM0090: the data cache "works like the instruction cache memory": the first pass fills it, the next hit
    samples, found = measured(rulers, chip(dcache=DCACHE), "literal")
    assert cold_then_warm(samples, found, total(core, LITERAL_MISS), total(core, HIT))


def test_an_exception_entry_hides_the_vector_read_and_may_hide_the_handlers(rulers):
    # SVC 1, entry 12; the Cortex-M4 Devices Generic User Guide: "In parallel with the stacking operation, the
    # processor performs a vector fetch that reads the exception handler start address from the vector table": the
    # vector read hidden behind the stacking, or not: + WS at most. "When stacking is complete, the processor starts
    # executing the exception handler": its read a miss, WS in the point; whether the entry's twelve cycles hide
    # it is not said: 0 to WS. BX LR, exit 10; the NOP's read again a miss (the window's last NOP is in it)
    handler_read = Cycles(WS, 0, WS) + Cycles(0, 0, WS)
    assert steady(rulers, chip(), "svc") == total(ALU, EXCEPTION_ENTRY, handler_read, exception_return(ALU),
                                                  BRANCH_MISS, NOP)


def test_code_that_fits_the_instruction_cache_misses_once_then_hits(rulers):
    # RM0090: "Each time a miss occurs ..., the line read is copied into the instruction cache memory"
    samples, found = measured(rulers, chip(icache=ICACHE), "seq16")
    assert cold_then_warm(samples, found, total(ALU * 8, SEQUENTIAL_MISS, ALU * 8, SEQUENTIAL_MISS),
                          total(SIXTEEN_ADDS, HIT, HIT))


def test_code_that_does_not_fit_the_instruction_cache_misses_every_pass(rulers):
    # RM0090: "Once all the instruction cache memory lines have been filled, the LRU (least recently used) policy
    # is used to determine the line to replace": two lines, and a pass of the rulers reads many more
    assert steady(rulers, chip(icache=TINY_ICACHE), "seq16") == total(ALU * 8, SEQUENTIAL_MISS, ALU * 8,
                                                                      SEQUENTIAL_MISS)


@pytest.fixture(scope="module")
def programmed(tmp_path_factory):
    """Reset stores 5 WS with prefetch into FLASH_ACR, as an application raising its clock does."""
    return build(tmp_path_factory.mktemp("flash-programmed"), flash=FLASH_BASE,
                 source=ruler_source(WS | PRFTEN), cpu=("-mcpu=cortex-m4",))


@pytest.fixture(scope="module")
def emptied_each_pass(tmp_path_factory):
    """5 WS with the I-cache: each pass turns it off, empties it (ICRST) and turns it on again, as RM0090 3.6.4 says
    ("The I/D cache should be flushed only when it is disabled")."""
    return build(tmp_path_factory.mktemp("flash-emptied"), flash=FLASH_BASE,
                 source=ruler_source(WS | ICEN, (WS, WS | ICRST, WS, WS | ICEN)), cpu=("-mcpu=cortex-m4",))


def test_the_model_follows_the_firmwares_stores_to_flash_acr(rulers, programmed):
    """With the register followed, the chip leaves reset at 0 wait states with everything off: the rulers' own
    store sets 5 WS and prefetch."""
    target = chip(prefetch=True, icache=ICACHE, dcache=DCACHE, register=True)
    assert steady(rulers, target, "seq32") == EIGHT_ADDS_W  # nothing stored: 0 WS, nothing to wait for
    assert steady(programmed, target, "seq32") == total(ALU * 4, prefetch_wait(4), ALU * 4, prefetch_wait(4))


def test_an_icrst_store_empties_the_instruction_cache(emptied_each_pass):
    target = chip(icache=ICACHE, register=True)
    samples, _ = measured(emptied_each_pass, target, "seq16")
    cold = total(ALU * 8, SEQUENTIAL_MISS, ALU * 8, SEQUENTIAL_MISS)
    # the ruler runs once per pass; the passes cycle through: off, emptied, off, on. Off: every read a miss; on,
    # right after the emptying: misses again (copied in); so every pass reads cold
    assert set(samples) == {cold.point}


def test_forced_wait_states_hold_whatever_the_firmware_programs(programmed):
    target = chip(prefetch=True, register=True)
    forced = steady(programmed, target, "seq32", MemorySettings(wait_states=2))
    # 2 WS: each prefetched read ready 1 + 2 = 3 cycles after the one before, needed 4 after: no wait
    assert forced == total(ALU * 4, fixed(0), ALU * 4, fixed(0))
    off = steady(programmed, target, "seq32", MemorySettings(accelerator=False))
    assert off == total(ALU * 4, SEQUENTIAL_MISS, ALU * 4, SEQUENTIAL_MISS)


def test_the_same_firmware_twice_gives_identical_samples(rulers):
    target = chip(prefetch=True, icache=ICACHE, dcache=DCACHE)
    first, second = (measure_elf(rulers, target, "seq16_from", "literal_to", count=20, time_limit=30, unit="cycles")
                     for _ in range(2))
    assert first.samples == second.samples and first.bounds == second.bounds


def test_the_plugin_is_given_the_flash_only_where_the_run_counts_cycles(rulers, tmp_path):
    from switchscope.run import qemu
    from switchscope.run.simulator import Request

    def arguments(target, cycles: bool, memory: MemorySettings = MemorySettings()) -> str:
        request = Request(target=target, firmware_elf=rulers, parameters=[], samples=1, event_log=tmp_path / "e",
                          pin_log=tmp_path / "p", trace_log=tmp_path / "t", event_limit=10, interrupt_entry_cycles=0,
                          memory=memory)
        return qemu._plugin_arguments(request, cycles)
    target = chip(prefetch=True, icache=ICACHE, register=True)
    assert ",flash=0x8000000:0x100000:16,flash_ws=5,flash_prefetch=1,flash_icache=64:16:64," \
           "flash_register=0x40023c00:stm32f4:0x0" in arguments(target, True)
    without = dataclasses.replace(NETDUINO, flash=None)  # a board with no [flash]
    assert ",flash" not in arguments(target, False) and ",flash" not in arguments(without, True)
    assert ",flash_ws=2,flash_force_ws=1" in arguments(target, True, MemorySettings(wait_states=2))


# The STM32F1 (RM0008): 2 wait states above 48 MHz, reads of 64 bits, a prefetch buffer enabled by PRFTBE (FLASH_ACR
# bit 4, LATENCY bits 2:0); RM0364's words for the same buffer: "The prefetch buffer is 2 blocks wide where each
# block consists of 8 bytes".
F1_ACR, F1_WS, F1_READ, PRFTBE = 0x4002_2000, 2, 8, 1 << 4


def test_the_stm32f1s_prefetch_buffer_of_two_64_bit_blocks(tmp_path):
    firmware = build(tmp_path, flash=FLASH_BASE, source=ruler_source(F1_WS | PRFTBE, register=F1_ACR))
    flash = Flash(start=FLASH_BASE, size=128 << 10, read_bytes=F1_READ, wait_states=F1_WS,
                  wait_states_source="RM0008 3.3.3", prefetch=True, register=F1_ACR, register_layout="stm32f1",
                  manual="RM0008")
    target = dataclasses.replace(catalog.TARGETS["stm32vldiscovery"], flash=flash)
    # 8 ADDS.W in four reads of two (the first a branch target's, before the window), then the read of the window's
    # last NOP: each prefetched when the one before was delivered, ready 1 + 2 = 3 cycles later and needed 2 later:
    # 1 each
    wait = fixed(max(0, 1 + F1_WS - 2))
    assert steady(firmware, target, "seq32") == total(ALU * 2, wait, ALU * 2, wait, ALU * 2, wait, ALU * 2, wait)
