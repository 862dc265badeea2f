"""Rulers of the Cortex-M timing model: hand-written instruction sequences,
each between two labels of one tiny firmware, measured with the marker method
in cycles on QEMU. Every expected figure is worked out here from the ARM
Cortex-M3 Technical Reference Manual (r2p1, DDI 0337 / 100165_0201) and the
Cortex-M4 TRM (DDI 0439), zero wait states, each term with the section or
table that gives it, never from the plugin's own table: the point estimate
the model charges, and the least and the most the manuals allow."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from dataclasses import dataclass

import pytest

from switchscope import catalog
from switchscope.decode import elf
from switchscope.figures.measure_elf import measure_elf

pytestmark = pytest.mark.firmware


@dataclass(frozen=True)
class Cycles:
    """A cost as the model charges it (`point`) and the range the TRM allows."""
    point: int
    least: int
    most: int

    def __add__(self, other: "Cycles") -> "Cycles":
        return Cycles(self.point + other.point, self.least + other.least, self.most + other.most)

    def __mul__(self, times: int) -> "Cycles":
        return Cycles(self.point * times, self.least * times, self.most * times)


def fixed(cycles: int) -> Cycles:
    return Cycles(cycles, cycles, cycles)


def total(*costs: Cycles) -> Cycles:
    return sum(costs, fixed(0))


# The TRM's figures. P, the pipeline refill of a taken branch: Table 3-1, "P ranges from 1 to 3 depending on
# the alignment and width of the target instruction, and whether the processor manages to speculate the address
# early"; the point takes 1 for an immediate target and 2 for a register or loaded one.
P_IMMEDIATE, P_REGISTER = Cycles(1, 1, 3), Cycles(2, 1, 3)
ALU = fixed(1)                   # Table 3-1: ADD, SUB, MOV, shifts, compares, MUL "1"
NOP = fixed(1)                   # Table 3-1: NOP "1"
IT = fixed(1)                    # Table 3-1: IT "1"
LDR = fixed(2)                   # Table 3-1: LDR "2"
LDR_PIPELINED = fixed(1)         # 3.3.2: "LDR R0,[R1]; LDR R1,[R2] ... now takes three cycles total"
LDR_LITERAL = Cycles(2, 2, 3)    # 3.3.2: "LDR Rx,[PC,#imm] might add a cycle because of contention with the fetch unit"
STR_IMMEDIATE = fixed(1)         # 3.3.2: "STR Rx,[Ry,#imm] is always one cycle"
STR_REGISTER = fixed(2)          # Table 3-1: STR with a register offset "2"
LDRD = fixed(3)                  # Table 3-1: LDRD "1 + N", N = 2 words
ADDRESS_STALL = fixed(1)         # 3.3.2: "Any load or store that generates an address dependent on the result of a
                                 # preceding data processing operation stalls the pipeline for an additional cycle"
CONDITION_FAILED = fixed(1)      # Table 3-1, IT: "non-taken IT controlled instructions" take one cycle
MSR_MRS = Cycles(2, 1, 2)        # Table 3-1: MSR, MRS "1 or 2"; the point takes 2
DSB = fixed(1)                   # Table 3-1: DSB "1 + B", B = 0 with nothing outstanding
ISB = ALU + P_IMMEDIATE          # Table 3-1: ISB "1 + B": the barrier refills the pipeline, as a branch's P
LDR_PC = Cycles(5, 2 + 1, 5)     # Table 3-1: "2 + P"; 3.3.2: "at least two cycles for the load, and three cycles
                                 # for the pipeline reload ... at least five cycles": the point is the text's five
TBB = Cycles(6, 2 + 1, 6)        # Table 3-1: "2 + P"; 3.3.2: "two cycles for the load, one cycle for the add, and
                                 # three cycles for the pipeline reload ... at least six cycles"
EXCEPTION_ENTRY = fixed(12)      # 5.5.1: 12 cycles, stacking in parallel with the vector fetch
EXCEPTION_EXIT = fixed(10)       # Figure 5-5: the unstacking starts after the return's last fetch; no refill of its own
TAIL_CHAIN = fixed(6)            # 5.6: the next ISR "starts execution six cycles after exiting the previous ISR"
DIVIDE = (2, 12)                 # Table 3-1: SDIV, UDIV "2 to 12", early termination by the operands
UMULL = (3, 5)                   # Table 3-1: UMULL, SMULL "3 to 5", early termination on small operands
UMLAL = (4, 7)                   # Table 3-1: UMLAL, SMLAL "4 to 7"


def at(point: int, least_most: tuple[int, int]) -> Cycles:
    return Cycles(point, *least_most)


def branch(refill: Cycles) -> Cycles:
    """B, BL, BX, BLX: Table 3-1 "1 + P"."""
    return ALU + refill


def multiple(registers: int, loads_pc: bool = False) -> Cycles:
    """LDM, STM, PUSH, POP: Table 3-1 "1 + N" (+ P when the PC is loaded)."""
    return fixed(1 + registers) + (P_REGISTER if loads_pc else fixed(0))


def exception_return(instruction: Cycles) -> Cycles:
    """The returning instruction without its refill (Figure 5-5: the unstacking replaces it), then the unstacking."""
    return instruction + EXCEPTION_EXIT


ICSR, NVIC_ISER0, NVIC_ISPR0 = 0xE000ED04, 0xE000E100, 0xE000E200
PENDSVSET, PENDSTSET = 1 << 28, 1 << 26


def vector_table(*entries: str) -> str:
    """The assembly of a ruler firmware's vector table: the stack's top, reset, `hang` for exceptions 2 to 10,
    then `entries` (one `.word` line each) from SVCall (11) on."""
    lines = [".syntax unified", ".thumb", '.section .vectors, "a"', ".type vectors, %object", "vectors:",
             ".word stack_top", ".word reset", ".rept 9", ".word hang", ".endr", *entries,
             ".size vectors, . - vectors"]
    return "\n    ".join(lines)


# The firmware runs every ruler in turn, forever; each is `<name>_from: ... <name>_to:`. Before each window
# something that cannot stall or pipeline with its first instruction (a NOP, or a branch's return).
RULERS = textwrap.dedent(f"""
    {vector_table(".word svc_handler            @ 11: SVCall", ".word hang, hang",
                  ".word pendsv_handler         @ 14: PendSV", ".word systick_handler        @ 15: SysTick",
                  ".word pop_return_handler     @ IRQ 0", ".word ldr_return_handler     @ IRQ 1",
                  ".word ldr_chain_handler      @ IRQ 2")}

    .text
    .thumb_func
    hang: b hang

    .thumb_func
    svc_handler: bx lr           @ returns with EXC_RETURN

    .thumb_func
    pendsv_handler:              @ pends SysTick, which is taken by tail-chaining
    ldr r0, ={ICSR:#x}
    mov.w r1, #{PENDSTSET:#x}
    str r1, [r0]
    bx lr

    .thumb_func
    systick_handler: bx lr

    .thumb_func
    pop_return_handler:          @ returns by POP {{..., pc}}
    push {{r4, lr}}
    pop {{r4, pc}}

    .thumb_func
    ldr_return_handler:          @ returns by LDR pc, [sp], #4
    str lr, [sp, #-4]!
    ldr pc, [sp], #4

    .thumb_func
    ldr_chain_handler:           @ pends SysTick, then returns by LDR pc into it: a tail-chain
    ldr r0, ={ICSR:#x}
    mov.w r1, #{PENDSTSET:#x}
    str r1, [r0]
    str lr, [sp, #-4]!
    ldr pc, [sp], #4

    .thumb_func
    leaf: bx lr

    .thumb_func
    frame:
    push {{r4, lr}}
    pop {{r4, pc}}

    .thumb_func
    reset:
    ldr r6, =data
    str r6, [r6, #12]            @ data[3] points at data
    adr r0, ldr_pc_to
    adds r0, r0, #1              @ a Thumb address
    str r0, [r6, #20]            @ data[5]: where LDR pc goes
    ldr r0, ={NVIC_ISER0:#x}
    movs r1, #7
    str r1, [r0]                 @ IRQs 0, 1 and 2 enabled
    movs r7, #16
    loop:

    alu_from:
    adds r0, r0, #1
    adds r0, r0, #1
    adds r0, r0, #1
    adds r0, r0, #1
    movw r1, #5
    lsls r2, r1, #3
    alu_to:

    branch_from:
    b 1f
    nop
    1:
    branch_to:

    untaken_from:
    cmp r0, r0
    bne hang
    untaken_to:

    taken_from:
    cmp r0, r0
    beq 1f
    nop
    1:
    taken_to:

    call_from:
    bl leaf
    call_to:

    push_pop_from:
    push {{r4-r7}}
    pop {{r4-r7}}
    push_pop_to:

    pop_pc_from:
    bl frame
    pop_pc_to:

    loads_from:
    ldr r1, [r6]
    ldr r2, [r6, #4]
    ldr r3, [r6, #8]
    loads_to:

    nop
    dependent_from:
    ldr r1, [r6, #12]
    ldr r2, [r1]
    dependent_to:

    nop
    stores_from:
    str r1, [r6, #16]
    str r1, [r6, r7]
    stores_to:

    nop
    base_update_from:
    ldr r1, [r6, #0]!
    ldr r2, [r6, #4]
    base_update_to:

    nop
    literal_from:
    ldr r1, =0x12345678
    literal_to:

    nop
    dual_from:
    ldrd r0, r1, [r6]
    dual_to:

    nop
    ldr_pc_from:
    ldr pc, [r6, #20]
    .align 2
    ldr_pc_to:

    movs r0, #0
    tbb_from:                    @ its index comes from the MOVS just before
    tbb [pc, r0]
    tbb_table:
    .byte (tbb_to - tbb_table) / 2
    .align 1
    tbb_to:

    nop
    stall_base_from:
    adds r1, r6, #0
    ldr r2, [r1]
    stall_base_to:

    nop
    stall_offset_from:
    movs r1, #4
    ldr r2, [r6, r1]
    stall_offset_to:

    nop
    stall_sp_from:
    sub sp, #8
    push {{r4}}
    pop {{r4}}
    add sp, #8
    stall_sp_to:

    nop
    no_stall_from:
    adds r3, r3, #1
    ldr r2, [r6]
    no_stall_to:

    nop
    it_load_from:
    cmp r0, r0                   @ Z set
    it ne
    ldrne r1, [r6]               @ condition fails: no data phase
    ldr r2, [r6, #4]             @ so this one does not pipeline
    it_load_to:

    nop
    multiply_from:
    muls r1, r2, r1
    mla r1, r2, r3, r1
    mls r1, r2, r3, r1
    multiply_to:

    movs r2, #3
    movs r3, #5
    ldr r4, =0x12345678
    ldr r5, =0x87654321
    long_multiply_from:
    umull r0, r1, r2, r3
    umull r0, r1, r4, r5
    long_multiply_to:
    long_accumulate_from:
    umlal r0, r1, r2, r3
    umlal r0, r1, r4, r5
    long_accumulate_to:

    movs r2, #100
    movs r3, #7
    mvns r4, r2
    adds r4, r4, #1              @ -100
    mvns r5, r3                  @ 0xFFFFFFF8
    movs r1, #1
    divide_least_from:
    udiv r0, r3, r2              @ 7 / 100: the quotient is 0
    divide_least_to:
    divide_most_from:
    udiv r0, r5, r1              @ 0xFFFFFFF8 / 1: a 32-bit quotient
    divide_most_to:
    divide_between_from:
    udiv r0, r2, r3
    sdiv r0, r4, r3
    divide_between_to:

    nop
    barrier_from:
    dsb
    isb
    barrier_to:

    special_from:
    mrs r0, primask
    msr primask, r0
    special_to:

    svc_from:
    svc 0
    svc_to:

    it_from:
    cmp r0, r0                   @ Z set
    ite ne
    ldrne r1, [r6]               @ condition fails
    addeq r1, r1, #1             @ condition holds
    it ne
    bxne lr                      @ condition fails: no branch, no return
    it_to:

    ldr r4, ={ICSR:#x}
    ldr r5, ={PENDSVSET:#x}
    nop
    tail_chain_from:
    nop
    str r5, [r4]
    tail_chain_to:

    ldr r4, ={NVIC_ISPR0:#x}
    movs r5, #1
    nop
    pop_return_from:
    nop
    str r5, [r4]                 @ IRQ 0 pending
    pop_return_to:

    movs r5, #2
    nop
    ldr_return_from:
    nop
    str r5, [r4]                 @ IRQ 1 pending
    ldr_return_to:

    movs r5, #4
    nop
    ldr_chain_from:
    nop
    str r5, [r4]                 @ IRQ 2 pending
    ldr_chain_to:

    b loop
    .ltorg

    .bss
    .align 2
    data: .space 64
    .space 1024
    stack_top:
""")


def link_script(flash: int) -> str:
    return f"""
    ENTRY(reset)
    MEMORY {{ CODE (rx) : ORIGIN = {flash:#x}, LENGTH = 64K  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 8K }}
    SECTIONS {{ .text : {{ KEEP(*(.vectors)) *(.text*) }} > CODE  .bss : {{ *(.bss*) }} > RAM }}
    """


M3, M4 = "cortex-m3", "cortex-m4"
# (ruler, {core: expected}, how); a ruler with one figure for both cores gives it once
EXPECTED = [
    ("alu", ALU * 6, "4 x ADDS + MOVW + LSLS"),
    ("branch", branch(P_IMMEDIATE), "B: 1 + P"),
    ("untaken", total(ALU, ALU), "CMP, BNE not taken: 1 each"),
    ("taken", total(ALU, branch(P_IMMEDIATE)), "CMP 1, BEQ taken 1 + P"),
    ("call", total(branch(P_IMMEDIATE), branch(P_REGISTER)), "BL 1 + P, BX LR 1 + P"),
    ("push_pop", total(multiple(4), multiple(4)), "PUSH {r4-r7} 1 + 4, POP {r4-r7} 1 + 4"),
    ("pop_pc", total(branch(P_IMMEDIATE), multiple(2), multiple(2, loads_pc=True)),
     "BL 1 + P, PUSH {r4, lr} 1 + 2, POP {r4, pc} 1 + 2 + P"),
    ("loads", total(LDR, LDR_PIPELINED, LDR_PIPELINED), "LDR 2, two LDRs pipelined behind it"),
    ("dependent", total(LDR, LDR), "LDR 2, LDR whose address is the first's result: 2 (3.3.2: not pipelined)"),
    ("stores", total(STR_IMMEDIATE, STR_REGISTER), "STR immediate offset 1, STR register offset 2"),
    ("base_update", total(LDR, LDR), "LDR with writeback 2, the LDR after it not pipelined (its base just changed)"),
    ("literal", LDR_LITERAL, "LDR from the literal pool: 2, one more by contention with the fetch"),
    ("dual", LDRD, "LDRD: 1 + 2 words"),
    ("ldr_pc", LDR_PC, "LDR pc"),
    ("tbb", total(TBB, ADDRESS_STALL), "TBB, whose index the MOVS just before wrote: the address-generation stall"),
    ("stall_base", total(ALU, LDR, ADDRESS_STALL), "ADDS writes the base of the LDR after it"),
    ("stall_offset", total(ALU, LDR, ADDRESS_STALL), "MOVS writes the offset register of the LDR after it"),
    ("stall_sp", total(ALU, multiple(1), ADDRESS_STALL, multiple(1), ALU),
     "SUB sp, then PUSH {r4} through the new SP: stalled; POP {r4}, ADD sp"),
    ("no_stall", total(ALU, LDR), "an ADDS the LDR after it does not use: no stall"),
    ("it_load", total(ALU, IT, CONDITION_FAILED, LDR),
     "CMP, IT, a skipped LDRNE (no data phase), then an LDR that has nothing to pipeline behind"),
    ("multiply", {M3: total(ALU, fixed(2), fixed(2)), M4: ALU * 3},
     "MULS 1, MLA 2, MLS 2 (Cortex-M4 TRM Table 3-1: 1 each)"),
    ("long_multiply", {M3: total(at(3, UMULL), at(5, UMULL)), M4: ALU * 2},
     "UMULL of two 16-bit operands: early termination, the least, 3; of two 32-bit ones: the most, 5 "
     "(Cortex-M4: 1 each)"),
    ("long_accumulate", {M3: total(at(4, UMLAL), at(7, UMLAL)), M4: ALU * 2},
     "UMLAL of two 16-bit operands: the least, 4; of two 32-bit ones: the most, 7 (Cortex-M4: 1 each)"),
    ("divide_least", at(2, DIVIDE), "UDIV 7 / 100, quotient 0: terminates at once, the least"),
    ("divide_most", at(12, DIVIDE), "UDIV 0xFFFFFFF8 / 1, a 32-bit quotient: the most"),
    ("barrier", total(DSB, ISB), "DSB 1, ISB 1 + refill"),
    ("special", total(MSR_MRS, MSR_MRS), "MRS, MSR: 1 or 2 each"),
    ("svc", total(ALU, EXCEPTION_ENTRY, exception_return(ALU)), "SVC 1, entry 12, BX LR 1, exit 10"),
    ("it", total(ALU, IT, CONDITION_FAILED, ALU, IT, CONDITION_FAILED),
     "CMP, ITE, a skipped LDRNE, ADDEQ, IT, a skipped BXNE (no branch, no return)"),
    ("tail_chain", total(NOP, STR_IMMEDIATE, EXCEPTION_ENTRY, LDR_LITERAL, ALU, STR_IMMEDIATE, ALU, TAIL_CHAIN,
                         exception_return(ALU)),
     "NOP, STR (pends PendSV); entry; PendSV: LDR =ICSR, MOV.W, STR, BX LR; tail-chain; SysTick: BX LR; exit"),
    ("pop_return", total(NOP, STR_IMMEDIATE, EXCEPTION_ENTRY, multiple(2), exception_return(multiple(2))),
     "NOP, STR (pends IRQ 0); entry; PUSH {r4, lr}, POP {r4, pc} 1 + 2 without its refill; exit"),
    ("ldr_return", total(NOP, STR_IMMEDIATE, EXCEPTION_ENTRY, STR_IMMEDIATE, exception_return(LDR)),
     "NOP, STR (pends IRQ 1); entry; STR lr, [sp, #-4]!; LDR pc, [sp], #4: the load without its reload; exit"),
    ("ldr_chain", total(NOP, STR_IMMEDIATE, EXCEPTION_ENTRY, LDR_LITERAL, ALU, STR_IMMEDIATE, STR_IMMEDIATE, LDR,
                        TAIL_CHAIN, exception_return(ALU)),
     "NOP, STR (pends IRQ 2); entry; LDR =ICSR, MOV.W, STR (pends SysTick), STR lr; LDR pc: the load; "
     "tail-chain; SysTick: BX LR; exit"),
]
# the middle of a range: the point there is the model's own interpolation (docs/measurement.md), the TRM's range is
# what is checked
WITHIN = [
    ("divide_between", total(at(2, DIVIDE), at(2, DIVIDE)), "UDIV 100 / 7, SDIV -100 / 7"),
]


def build(folder, flash: int = 0, source: str = RULERS, cpu: tuple[str, ...] = ("-mcpu=cortex-m3",)):
    """A ruler firmware from assembly `source`, linked at `flash`, for the core `cpu`'s gcc flags name."""
    (folder / "rulers.S").write_text(source)
    (folder / "rulers.ld").write_text(link_script(flash))
    subprocess.run([shutil.which("arm-none-eabi-gcc"), *cpu, "-mthumb", "-nostdlib",
                    "-T", str(folder / "rulers.ld"), str(folder / "rulers.S"), "-o", str(folder / "rulers.elf")],
                   check=True)
    return folder / "rulers.elf"


@pytest.fixture(scope="module")
def rulers(tmp_path_factory):
    return build(tmp_path_factory.mktemp("timing-rulers"))


@pytest.fixture(scope="module")
def stm32_rulers(tmp_path_factory):
    """The same rulers linked where an STM32 keeps its flash and vector table, 0x08000000."""
    return build(tmp_path_factory.mktemp("timing-rulers-stm32"), flash=0x08000000)


def on_core(core: str) -> catalog.Target:
    """The MPS2 board of `core`: mps2-an385 (Cortex-M3) or mps2-an386 (Cortex-M4), one memory map; the rulers use
    no instruction the M3 lacks."""
    target = catalog.TARGETS["mps2-an385" if core == M3 else "mps2-an386"]
    assert target.timing_model == core
    return target


def measured(firmware, target: catalog.Target, ruler: str) -> tuple[list, Cycles]:
    result = measure_elf(firmware, target, f"{ruler}_from", f"{ruler}_to", count=5, time_limit=30, unit="cycles")
    assert result.unit == "cycles" and result.timing_model == target.timing_model
    least, most = result.bound_stats
    assert least.min == least.max and most.min == most.max, "the same instructions every time"
    return result.samples, Cycles(result.samples[0], least.min, most.min)


@pytest.mark.parametrize("ruler,expected,how", EXPECTED, ids=[row[0] for row in EXPECTED])
@pytest.mark.parametrize("core", [M3, M4])
def test_each_ruler_measures_the_cycles_and_range_the_trm_gives(rulers, ruler, expected, how, core):
    expected = expected[core] if isinstance(expected, dict) else expected
    samples, found = measured(rulers, on_core(core), ruler)
    assert samples == [expected.point] * 5 and found == expected, f"{ruler} on {core}: {how}"


@pytest.mark.parametrize("ruler,expected,how", WITHIN, ids=[row[0] for row in WITHIN])
def test_inside_a_range_the_point_lies_within_the_trms_range(rulers, ruler, expected, how):
    _, found = measured(rulers, on_core(M3), ruler)
    assert (found.least, found.most) == (expected.least, expected.most), how
    assert found.least <= found.point <= found.most


@pytest.mark.parametrize("ruler", ["svc", "tail_chain", "pop_return", "ldr_return", "ldr_chain", "alu"])
def test_a_vector_table_in_stm32_flash_is_read_where_it_is(stm32_rulers, ruler):
    """QEMU's stm32vldiscovery boots from the table at 0x08000000 (aliased at 0): its exceptions cost what
    they cost on mps2-an385, whose table is at 0."""
    expected = dict((row[0], row[1]) for row in EXPECTED)[ruler]
    _, found = measured(stm32_rulers, catalog.TARGETS["stm32vldiscovery"], ruler)
    assert found == expected


def test_the_handlers_are_the_vector_tables_own_entries(rulers, stm32_rulers):
    for firmware in (rulers, stm32_rulers):
        symbols = elf.symbols(firmware)
        names = ("hang", "svc_handler", "pendsv_handler", "systick_handler", "pop_return_handler",
                 "ldr_return_handler", "ldr_chain_handler")
        assert elf.exception_handlers(firmware) == sorted(symbols[name] for name in names)


TWO_ENTRIES = textwrap.dedent("""
    .syntax unified
    .thumb
    .section .vectors, "a"
    .word stack_top              @ a table of two entries, without a size: it ends where the next symbol starts
    .word reset
    target_address:              @ a constant after it, an odd word that is no handler
    .word not_a_handler + 1

    .text
    .thumb_func
    not_a_handler: bx lr

    .thumb_func
    reset:
    ldr r0, =target_address
    ldr r7, [r0]
    loop:
    nop
    indirect_from:
    blx r7
    indirect_to:
    b loop
    .ltorg

    .bss
    .align 3
    .space 256
    stack_top:
""")


def test_a_short_vector_table_is_not_read_past_its_end(tmp_path):
    firmware = build(tmp_path, source=TWO_ENTRIES)
    assert elf.exception_handlers(firmware) == []
    _, found = measured(firmware, catalog.TARGETS["mps2-an385"], "indirect")
    assert found == total(branch(P_REGISTER), branch(P_REGISTER)), "BLX r7 1 + P, BX LR 1 + P: no exception entry"


# A load whose address the instruction before it computed, once within a QEMU block and once as the first
# instruction after a 1 KB boundary (QEMU ends its blocks there). A watch at the load counts what ran before it:
# the load's stall is its own cost, on whichever side of a boundary it falls, as a probe's stamp load can.
PAGE_BOUNDARY = textwrap.dedent("""
    .syntax unified
    .thumb
    .section .vectors, "a"
    .word stack_top
    .word reset

    .text
    .thumb_func
    reset:
    ldr r4, =data
    loop:
    nop
    within_from:
    adds r2, r4, #0
    within_to:
    ldr r3, [r2]
    within_load_to:
    b across
    .balign 1024
    .space 1024 - 4              @ the ADDS ends the page, the LDR starts the next
    across:
    nop
    across_from:
    adds r2, r4, #0
    across_to:
    ldr r3, [r2]
    across_load_to:
    b loop
    .ltorg

    .bss
    .align 2
    data: .space 4
    .space 256
    stack_top:
""")


def test_a_load_after_a_page_boundary_is_charged_its_stall_after_a_watch_on_it(tmp_path):
    firmware = build(tmp_path, source=PAGE_BOUNDARY)
    symbols = elf.symbols(firmware)
    assert symbols["across_to"] % 1024 == 0, "the load must start a page"
    for side in ("within", "across"):
        # [from, to): the ADDS alone, 1 (Table 3-1); [from, load_to): ADDS 1, LDR 2, its address stall 1 (3.3.2)
        _, alone = measured(firmware, on_core(M3), f"{side}")
        result = measure_elf(firmware, on_core(M3), f"{side}_from", f"{side}_load_to", count=5, time_limit=30,
                             unit="cycles")
        assert alone == ALU, side
        assert result.samples == [total(ALU, LDR, ADDRESS_STALL).point] * 5, side


def test_instructions_are_still_counted_as_before(rulers):
    result = measure_elf(rulers, catalog.TARGETS["mps2-an385"], "tail_chain_from", "tail_chain_to", count=5,
                         time_limit=30, unit="instructions")
    # NOP, STR; PendSV: LDR, MOV.W, STR, BX; SysTick: BX
    assert result.unit == "instructions" and result.samples == [7] * 5 and result.bounds is None


def test_cycles_are_identical_run_to_run(rulers):
    first, second = (measure_elf(rulers, catalog.TARGETS["mps2-an385"], "alu_from", "ldr_chain_to", count=20,
                                 time_limit=30, unit="cycles") for _ in range(2))
    assert first.samples == second.samples and len(set(first.samples)) == 1
    assert first.bounds == second.bounds


FREERTOS_SWITCHES = [name for name, s in catalog.SCENARIOS.items() if not s.check and not s.latency and not s.suite
                     and name != "rotate"]


@pytest.mark.parametrize("scenario", FREERTOS_SWITCHES)
def test_freertos_in_cycles_probe_and_scope_agree_and_runs_are_identical(scenario):
    from switchscope.catalog.job import Job
    from switchscope.figures.measure import measure
    kernel, target = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"]
    job = lambda method: Job(kernel, target, catalog.SCENARIOS[scenario], catalog.METHODS[method], unit="cycles")
    probe, again, scope, marker = (measure(job(m), samples=100) for m in ("probe", "probe", "scope", "marker"))
    assert probe.unit == scope.unit == marker.unit == "cycles" and probe.timing_model == "cortex-m3"
    assert probe.samples == again.samples  # deterministic in cycles too
    assert probe.samples == scope.samples == marker.samples
    assert probe.ns_per_unit == 40.0 and probe.stats_ns.median == probe.stats.median * 40
    assert probe.bounds == again.bounds == scope.bounds == marker.bounds  # the same windows, the same range
    least, most = probe.bound_stats
    assert least.min <= probe.stats.min and probe.stats.max <= most.max and least.median < most.median


def test_freertos_yield_costs_the_same_cycles_on_every_board_that_runs_the_same_instructions():
    """The STM32 kits' image keeps its vector table at 0x08000000, mps2-an385's at 0: where the table is must
    not change what an exception costs (the core's own: no flash wait states, no accelerator, where modelled)."""
    from switchscope.catalog import configs
    from switchscope.catalog.job import Job
    from switchscope.figures.measure import measure
    kernel, scenario, probe = catalog.KERNELS["freertos"], catalog.SCENARIOS["yield"], catalog.METHODS["probe"]
    from conftest import core_alone

    def config(board: str):
        return configs.resolve(core_alone(catalog.TARGETS[board]), kernel, catalog.TARGETS[board], scenario)
    results = {board: measure(Job(kernel, catalog.TARGETS[board], scenario, probe, config(board), unit=unit),
                              samples=50)
               for board in ("mps2-an385", "stm32vldiscovery", "netduinoplus2")
               for unit in ("instructions", "cycles") if unit == "cycles" or board == "mps2-an385"}
    assert len({tuple(result.samples) for result in results.values() if result.unit == "cycles"}) == 1
    assert {result.bounds["min"]["median"] for result in results.values() if result.unit == "cycles"} == \
        {results["mps2-an385"].bounds["min"]["median"]}
