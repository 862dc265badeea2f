"""Rulers of the ARMv6-M timing model (Cortex-M0 on `microbit`, Cortex-M0+ on `microbit-m0plus`):
hand-written Thumb-1 sequences, each between two labels of one tiny firmware, measured with the marker
method in cycles on QEMU's Cortex-M0 machine. Every expected figure is worked out here from the ARM
Cortex-M0 Technical Reference Manual (r0p0, DDI 0432C) and the Cortex-M0+ TRM (r0p1, DDI 0484C), zero
wait states, each term with the table or section that gives it, never from the plugin's own table: the
point the model charges, and the least and the most the manuals allow. Where neither manual gives a
figure (the exception exit, tail-chaining) the rule written here is the one docs/measurement.md states,
derived from the manuals' own figures, with its range."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from switchscope import catalog
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.measure_elf import measure_elf
from switchscope.present import report

from test_timing_model import Cycles, build, fixed, total, vector_table  # a cost with the range the manual allows

pytestmark = pytest.mark.firmware


M0, M0PLUS = "cortex-m0", "cortex-m0plus"
BOARDS = {M0: "microbit", M0PLUS: "microbit-m0plus"}


@dataclass(frozen=True)
class Manual:
    """One core's figures, each from its TRM's instruction summary (M0: DDI 0432C 3.3, Table 3-1; M0+:
    DDI 0484C 3.3, Table 3.1) or its exception section, as the words beside each say."""
    alu: Cycles          # MOVS, ADDS, SUBS, CMP, LSLS, NOP ...: "1" in both tables
    load_store: Cycles   # LDR, STR (immediate, register, SP, PC-relative): M0 "2"; M0+ "2 or 1", the 1 only on
                         # its single-cycle I/O port, which QEMU's nRF51 has not: 2
    branch: Cycles       # B: M0 "3", M0+ "2"; B<cc> taken the same: M0 "1 or 3", M0+ "1 or 2"
    call: Cycles         # BL: M0 "4", M0+ "3"
    indirect: Cycles     # BX, BLX: M0 "3", M0+ "2"
    pop_return: int      # POP and return (PC in the list): M0 "4 + N", M0+ "3 + N": the constant
    special: Cycles      # MRS, MSR, ISB, DSB, DMB: M0 "4", M0+ "3"
    entry: Cycles        # interrupt latency with zero wait states: M0 16 (ARM's interrupt latency table for the
                         # Cortex-M processors, "the exact number of cycles from the assertion of the interrupt
                         # request up to the cycle where the first instruction of the interrupt handler is ready
                         # to be executed"; DDI 0432C 3.6.1 gives no figure); M0+ DDI 0484C 3.6.1 "The worst
                         # case interrupt latency ... in a zero wait-state system ... is 15 cycles"


MANUALS = {
    M0: Manual(alu=fixed(1), load_store=fixed(2), branch=fixed(3), call=fixed(4), indirect=fixed(3),
               pop_return=4, special=fixed(4), entry=fixed(16)),
    M0PLUS: Manual(alu=fixed(1), load_store=fixed(2), branch=fixed(2), call=fixed(3), indirect=fixed(2),
                   pop_return=3, special=fixed(3), entry=fixed(15)),
}
MULS = Cycles(1, 1, 32)  # both tables: MULS "1 or 32" as implemented; the nRF51's is taken as the fast one
FRAME_WORDS = 8          # the exception frame: r0-r3, r12, lr, pc, xPSR (ARMv6-M ARM, exception entry)
TAIL_CHAIN_LEAST = 6     # no v6-M figure: the least is the Cortex-M3 TRM's 5.6 "six cycles after exiting"


def multiple(registers: int) -> Cycles:
    """LDM, STM, PUSH, POP without the PC: "1 + N" in both tables."""
    return fixed(1 + registers)


ISSUE = 1  # the first cycle of any instruction, a returning one included


def exit_of(core: str) -> Cycles:
    """Neither TRM gives the exception exit. A return that popped the eight-word frame itself would be the
    tables' "POP and return" with N = 8 (M0 4 + N, M0+ 3 + N), whose first cycle is the instruction's issue;
    the returning instruction (BX, or POP {..., pc} with its own 1 + N) has paid that cycle, so the exit after
    it is the rest: M0 4 + 8 - 1 = 11, M0+ 3 + 8 - 1 = 10. Its range: the eight words alone to the entry's
    latency less that first cycle (a whole return no dearer than the entry)."""
    manual = MANUALS[core]
    return Cycles(manual.pop_return + FRAME_WORDS - ISSUE, FRAME_WORDS, manual.entry.point - ISSUE)


def tail_chain_of(core: str) -> Cycles:
    """Neither TRM gives tail-chaining: its point is the entry less the eight words of stacking it skips,
    between the M3's six and the whole entry."""
    entry = MANUALS[core].entry.point
    return Cycles(entry - FRAME_WORDS, TAIL_CHAIN_LEAST, entry)


def returning(instruction: Cycles, refill: Cycles, core: str, then: Cycles | None = None) -> Cycles:
    """An exception return: the instruction without its refill (the cycles beyond its first, or for
    POP {..., pc} beyond its 1 + N), which the unstacking replaces, then the exit (or a tail-chain)."""
    without = Cycles(instruction.point - refill.point, instruction.least - refill.least,
                     instruction.most - refill.most)
    return without + (then if then is not None else exit_of(core))


ICSR, NVIC_ISER, NVIC_ISPR = 0xE000ED04, 0xE000E100, 0xE000E200
PENDSVSET, PENDSTSET = 1 << 28, 1 << 26

# The firmware runs every ruler in turn, forever; each is `<name>_from: ... <name>_to:`. Thumb-1 only.
RULERS = textwrap.dedent(f"""
    {vector_table(".word svc_handler            @ 11: SVCall", ".word hang, hang",
                  ".word pendsv_handler         @ 14: PendSV", ".word systick_handler        @ 15: SysTick",
                  ".word irq_handler            @ IRQ 0")}

    .text
    .thumb_func
    hang: b hang

    .thumb_func
    svc_handler: bx lr           @ returns with EXC_RETURN

    .thumb_func
    pendsv_handler:              @ pends SysTick, which is taken by tail-chaining
    ldr r0, ={ICSR:#x}
    ldr r1, ={PENDSTSET:#x}
    str r1, [r0]
    bx lr

    .thumb_func
    systick_handler: bx lr

    .thumb_func
    irq_handler:                 @ an external interrupt, returning by POP {{..., pc}}
    push {{r4, lr}}
    pop {{r4, pc}}

    .thumb_func
    leaf: bx lr

    .thumb_func
    frame:
    push {{r4, lr}}
    pop {{r4, pc}}
    .ltorg

    .global reset
    .thumb_func
    reset:
    ldr r6, =data
    ldr r0, ={NVIC_ISER:#x}
    movs r1, #1
    str r1, [r0]                 @ IRQ 0 enabled
    movs r7, #16
    loop:

    alu_from:
    adds r0, r0, #1
    adds r0, r0, #1
    adds r0, r0, #1
    adds r0, r0, #1
    movs r1, #5
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
    ldr r3, [r6, r7]
    loads_to:

    stores_from:
    str r1, [r6, #16]
    str r1, [r6, r7]
    str r1, [sp, #0]
    stores_to:

    literal_from:
    ldr r1, =0x12345678
    literal_to:

    adds r5, r6, #0
    multiple_from:
    stmia r5!, {{r0-r3}}
    subs r5, #16
    ldmia r5!, {{r0-r3}}
    multiple_to:

    multiply_from:
    muls r1, r2, r1
    multiply_to:

    special_from:
    mrs r0, primask
    msr primask, r0
    special_to:

    barrier_from:
    dsb
    dmb
    isb
    barrier_to:

    svc_from:
    svc 0
    svc_to:

    ldr r4, ={ICSR:#x}
    ldr r5, ={PENDSVSET:#x}
    tail_chain_from:
    nop
    str r5, [r4]
    tail_chain_to:

    ldr r4, ={NVIC_ISPR:#x}
    movs r5, #1
    irq_from:
    nop
    str r5, [r4]                 @ IRQ 0 pending
    irq_to:

    ldr r0, =loop
    mov pc, r0
    .ltorg

    .bss
    .align 2
    data: .space 64
    .space 1024
    stack_top:
""")


def expected(core: str) -> list[tuple[str, Cycles, str]]:
    m = MANUALS[core]
    alu, ls = m.alu, m.load_store
    return [
        ("alu", alu * 6, "4 x ADDS, MOVS, LSLS: 1 each"),
        ("branch", m.branch, "B"),
        ("untaken", total(alu, alu), "CMP 1, BNE not taken 1"),
        ("taken", total(alu, m.branch), "CMP 1, BEQ taken as B"),
        ("call", total(m.call, m.indirect), "BL, BX LR"),
        ("push_pop", total(multiple(4), multiple(4)), "PUSH {r4-r7} 1 + 4, POP {r4-r7} 1 + 4"),
        ("pop_pc", total(m.call, multiple(2), fixed(m.pop_return + 2)), "BL, PUSH {r4, lr} 1 + 2, POP {r4, pc} "
                                                                         "(and return) with N = 2"),
        ("loads", ls * 3, "LDR immediate, LDR immediate, LDR register: 2 each, nothing pipelined"),
        ("stores", ls * 3, "STR immediate, STR register, STR SP-relative: 2 each"),
        ("literal", ls, "LDR PC-relative: 2"),
        ("multiple", total(multiple(4), alu, multiple(4)), "STM {r0-r3} 1 + 4, SUBS 1, LDM {r0-r3} 1 + 4"),
        ("multiply", MULS, "MULS: 1, range 1 to 32"),
        ("special", m.special * 2, "MRS, MSR"),
        ("barrier", m.special * 3, "DSB, DMB, ISB"),
        ("svc", total(alu, m.entry, returning(m.indirect, m.indirect + fixed(-1), core)),
         "SVC 1 (no figure in the tables: as the M3 model), entry, BX LR without its refill, exit"),
        ("tail_chain", total(alu, ls, m.entry, ls, ls, ls,
                             returning(m.indirect, m.indirect + fixed(-1), core, then=tail_chain_of(core)),
                             returning(m.indirect, m.indirect + fixed(-1), core)),
         "NOP, STR (pends PendSV); entry; PendSV: LDR, LDR, STR (pends SysTick), BX LR; tail-chain; "
         "SysTick: BX LR; exit"),
        ("irq", total(alu, ls, m.entry, multiple(2),
                      returning(fixed(m.pop_return + 2), fixed(m.pop_return - 1), core)),
         "NOP, STR (pends IRQ 0); entry; PUSH {r4, lr} 1 + 2; POP {r4, pc} 1 + N without its return; exit"),
    ]


RULER_NAMES = [row[0] for row in expected(M0)]


@pytest.fixture(scope="module")
def rulers(tmp_path_factory):
    return build(tmp_path_factory.mktemp("armv6m-rulers"), source=RULERS, cpu=("-mcpu=cortex-m0",))


@pytest.fixture(scope="module")
def measured(rulers):
    """Every ruler on both cores, five intervals each; the results by (core, ruler)."""
    return {(core, ruler): measure_elf(rulers, catalog.TARGETS[BOARDS[core]], f"{ruler}_from", f"{ruler}_to",
                                       count=5, time_limit=30, unit="cycles")
            for core in (M0, M0PLUS) for ruler in RULER_NAMES}


def found(result) -> Cycles:
    least, most = result.bound_stats
    assert least.min == least.max and most.min == most.max, "the same instructions every time"
    return Cycles(result.samples[0], least.min, most.min)


@pytest.mark.parametrize("ruler", RULER_NAMES)
@pytest.mark.parametrize("core", [M0, M0PLUS])
def test_each_ruler_measures_the_cycles_and_range_the_trm_gives(measured, core, ruler):
    _, want, how = next(row for row in expected(core) if row[0] == ruler)
    result = measured[core, ruler]
    assert result.unit == "cycles" and result.timing_model == core
    assert result.samples == [want.point] * 5 and found(result) == want, f"{ruler} on {core}: {how}"


# Whole windows around an exception return, worked out by hand from the tables' rows: a return by BX is the
# "POP and return" row with N = 8, the frame's words (BX's one cycle is that row's first); a return by
# POP {r4, pc} is the same row with N = 2 + 8, its own words and the frame's. Range of the whole return, beyond
# a POP's own two words: its first cycle and the eight words at least (1 + 8 = 9), the entry's latency at most
# (16, M0+ 15).
RETURN_WINDOWS = [
    # (core, ruler, point, least, most, how)
    (M0, "svc", 1 + 16 + (4 + 8), 1 + 16 + 9, 1 + 16 + 16,
     "DDI 0432C: SVC 1; entry 16; BX LR returning = POP and return 4 + N, N = 8"),
    (M0PLUS, "svc", 1 + 15 + (3 + 8), 1 + 15 + 9, 1 + 15 + 15,
     "DDI 0484C: SVC 1; entry 15 (3.6.1); BX LR returning = POP and return 3 + N, N = 8"),
    (M0, "irq", 1 + 2 + 16 + (1 + 2) + (4 + 2 + 8), 1 + 2 + 16 + 3 + (2 + 9), 1 + 2 + 16 + 3 + (2 + 16),
     "DDI 0432C: NOP 1, STR 2; entry 16; PUSH {r4, lr} 1 + 2; POP {r4, pc} returning = POP and return 4 + N, "
     "N = 2 + 8"),
    (M0PLUS, "irq", 1 + 2 + 15 + (1 + 2) + (3 + 2 + 8), 1 + 2 + 15 + 3 + (2 + 9), 1 + 2 + 15 + 3 + (2 + 15),
     "DDI 0484C: NOP 1, STR 2; entry 15; PUSH {r4, lr} 1 + 2; POP {r4, pc} returning = POP and return 3 + N, "
     "N = 2 + 8"),
]


@pytest.mark.parametrize("core,ruler,point,least,most,how", RETURN_WINDOWS,
                         ids=[f"{row[1]}-{row[0]}" for row in RETURN_WINDOWS])
def test_an_exception_return_costs_the_tables_pop_and_return_of_the_frame(measured, core, ruler, point, least,
                                                                           most, how):
    result = measured[core, ruler]
    assert result.samples == [point] * 5 and found(result) == Cycles(point, least, most), how


def test_the_m0plus_is_the_m0_machine_timed_by_the_m0plus_manual_and_says_so(measured):
    m0, m0plus = measured[M0, "svc"], measured[M0PLUS, "svc"]
    assert "-machine microbit" not in m0.simulator["options"]  # the board's own machine
    assert "-machine microbit" in m0plus.simulator["options"]
    assert "Cortex-M0+ timings (DDI 0484) on QEMU's Cortex-M0 machine (nRF51822)" in m0plus.simulator["options"]
    assert "cortex-m0plus timing model" in m0plus.simulator["options"]
    table = report.marker_table(m0plus)  # what `switchscope measure` prints says it too
    assert "on QEMU's Cortex-M0 machine (nRF51822)" in table and "the Cortex-M0+ TRM allows" in table
    assert "Cortex-M0 machine" not in report.marker_table(m0)


def test_cycles_are_identical_run_to_run(rulers):
    target = catalog.TARGETS["microbit"]
    first, second = (measure_elf(rulers, target, "alu_from", "irq_to", count=20, time_limit=30, unit="cycles")
                     for _ in range(2))
    assert first.samples == second.samples and len(set(first.samples)) == 1
    assert first.bounds == second.bounds


def test_instructions_are_counted_as_qemu_counts_them(rulers):
    result = measure_elf(rulers, catalog.TARGETS["microbit-m0plus"], "tail_chain_from", "tail_chain_to", count=5,
                         time_limit=30, unit="instructions")
    # NOP, STR; PendSV: LDR, LDR, STR, BX; SysTick: BX
    assert result.unit == "instructions" and result.samples == [7] * 5 and result.bounds is None


def test_an_armv7m_image_is_refused_on_the_armv6m_boards(tmp_path):
    m3 = build(tmp_path, source=RULERS)  # the same rulers built for the Cortex-M3 (ARMv7-M)
    for board in BOARDS.values():
        with pytest.raises(SwitchscopeError, match="ARMv7-M"):
            measure_elf(m3, catalog.TARGETS[board], "alu_from", "alu_to", count=1, time_limit=10)
