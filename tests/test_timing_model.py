"""Rulers of the Cortex-M timing model: hand-written instruction sequences,
each between two labels of one tiny firmware, whose cycle counts are worked
out below from the ARM Cortex-M3 Technical Reference Manual (DDI 0337,
"Instruction set summary" and "Load/store timings"; zero wait states, P = 1
for a branch to an immediate target, 2 to a register or loaded target) and
measured with `measure --unit cycles` on QEMU. One ruler per rule of
docs/measurement.md's table."""

import dataclasses
import shutil
import subprocess
import textwrap

import pytest

from switchscope import catalog
from switchscope.measure_elf import measure_elf

pytestmark = pytest.mark.firmware

ICSR = 0xE000ED04
PENDSVSET, PENDSTSET = 1 << 28, 1 << 26

# The firmware runs every ruler in turn, forever; each is `<name>_from: ... <name>_to:`.
RULERS = textwrap.dedent(f"""
    .syntax unified
    .thumb
    .section .vectors, "a"
    .word stack_top
    .word reset
    .rept 9
    .word hang
    .endr
    .word svc_handler            @ 11: SVCall
    .word hang, hang
    .word pendsv_handler         @ 14: PendSV
    .word systick_handler        @ 15: SysTick

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

    nop                          @ the first load must not pipeline behind the rulers' last one
    dependent_from:
    ldr r1, [r6, #12]
    ldr r2, [r1]
    dependent_to:

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
    dual_from:
    ldrd r0, r1, [r6]
    dual_to:

    nop
    ldr_pc_from:
    ldr pc, [r6, #20]
    .align 2
    ldr_pc_to:

    movs r0, #0
    tbb_from:
    tbb [pc, r0]
    tbb_table:
    .byte (tbb_to - tbb_table) / 2
    .align 1
    tbb_to:

    multiply_from:
    muls r1, r2, r1
    mla r1, r2, r3, r1
    mls r1, r2, r3, r1
    multiply_to:

    movs r2, #3
    movs r3, #5
    ldr r4, =0x12345678
    long_multiply_from:
    umull r0, r1, r2, r3
    umull r0, r1, r4, r3
    long_multiply_to:
    long_accumulate_from:
    umlal r0, r1, r2, r3
    umlal r0, r1, r4, r3
    umlal r0, r1, r4, r4
    long_accumulate_to:

    movs r2, #100
    movs r3, #7
    mvns r4, r2
    adds r4, r4, #1              @ -100
    divide_from:
    udiv r0, r2, r3
    udiv r0, r3, r2
    sdiv r0, r4, r3
    divide_to:

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
    tail_chain_from:
    nop
    str r5, [r4]
    tail_chain_to:

    b loop
    .ltorg

    .bss
    .align 2
    data: .space 64
    .space 1024
    stack_top:
""")
LINK = """
    MEMORY { CODE (rx) : ORIGIN = 0, LENGTH = 64K  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 64K }
    SECTIONS { .text : { KEEP(*(.vectors)) *(.text*) } > CODE  .bss : { *(.bss*) } > RAM }
"""

# (ruler, Cortex-M3 cycles, Cortex-M4 cycles, how)
EXPECTED = [
    ("alu", 6, 6, "4 x ADDS + MOVW + LSLS: data processing, 1 each"),
    ("branch", 2, 2, "B taken: 1 + P"),
    ("untaken", 2, 2, "CMP 1, BNE not taken 1"),
    ("taken", 3, 3, "CMP 1, BEQ taken 1 + P"),
    ("call", 5, 5, "BL 1 + P, BX LR 1 + P (register target)"),
    ("push_pop", 10, 10, "PUSH {r4-r7} 1 + 4, POP {r4-r7} 1 + 4"),
    ("pop_pc", 10, 10, "BL 1 + P, PUSH {r4, lr} 1 + 2, POP {r4, pc} 1 + 2 + P (loaded target)"),
    ("loads", 4, 4, "LDR 2, then two LDRs pipelined behind it, 1 each"),
    ("dependent", 4, 4, "LDR 2, LDR whose address is the first's result: not pipelined, 2"),
    ("stores", 3, 3, "STR immediate offset 1, STR register offset 2 (nothing pipelines after a store)"),
    ("base_update", 4, 4, "LDR with writeback 2, the LDR after it not pipelined 2"),
    ("dual", 3, 3, "LDRD: 1 + 2 words"),
    ("ldr_pc", 5, 5, "LDR pc: the load 2, then the blocking reload 3"),
    ("tbb", 6, 6, "TBB: the load 2, the add 1, the reload 3"),
    ("multiply", 5, 3, "MULS 1, MLA 2, MLS 2 (Cortex-M4: 1 each)"),
    ("long_multiply", 7, 2, "UMULL 3 with two 16-bit operands, 4 with one wider (Cortex-M4: 1 each)"),
    ("long_accumulate", 16, 3, "UMLAL 4 with two 16-bit operands, 5 with one wider, 7 with two (Cortex-M4: 1 each)"),
    ("divide", 10, 10, "UDIV 100/7: 2 + 5 quotient bits / 3 = 4; UDIV 7/100: 2; SDIV -100/7: 4"),
    ("barrier", 3, 3, "DSB 1 (B = 0), ISB 1 + P"),
    ("special", 4, 4, "MRS 2, MSR 2"),
    ("svc", 26, 26, "SVC 1, entry 12, BX LR 1 + P (EXC_RETURN), exit 10"),
    ("it", 6, 6, "CMP 1, ITE 1, LDRNE failing 1, ADDEQ 1, IT 1, BXNE failing 1"),
    ("tail_chain", 40, 40, "NOP 1, STR 1; entry 12; PendSV: LDR 2, LDR 1 (pipelined), STR 1, BX LR 3; "
                           "tail-chain 6; SysTick: BX LR 3; exit 10"),
]


@pytest.fixture(scope="module")
def rulers(tmp_path_factory):
    folder = tmp_path_factory.mktemp("timing-rulers")
    (folder / "rulers.S").write_text(RULERS)
    (folder / "rulers.ld").write_text(LINK)
    subprocess.run([shutil.which("arm-none-eabi-gcc"), "-mcpu=cortex-m3", "-mthumb", "-nostdlib",
                    "-T", str(folder / "rulers.ld"), str(folder / "rulers.S"), "-o", str(folder / "rulers.elf")],
                   check=True)
    return folder / "rulers.elf"


def on_core(core: str) -> catalog.Target:
    """mps2-an385 with the timing model of `core`: the rulers use no instruction the M3 lacks."""
    return dataclasses.replace(catalog.TARGETS["mps2-an385"], timing_model=core)


@pytest.mark.parametrize("ruler,m3,m4,how", EXPECTED, ids=[row[0] for row in EXPECTED])
def test_each_rule_measures_its_hand_computed_cycles(rulers, ruler, m3, m4, how):
    for core, expected in (("cortex-m3", m3), ("cortex-m4", m4)):
        result = measure_elf(rulers, on_core(core), f"{ruler}_from", f"{ruler}_to", count=5, time_limit=30,
                             unit="cycles")
        assert result.samples == [expected] * 5, f"{ruler} on {core}: {how}"
        assert result.unit == "cycles" and result.timing_model == core


def test_instructions_are_still_counted_as_before(rulers):
    result = measure_elf(rulers, catalog.TARGETS["mps2-an385"], "tail_chain_from", "tail_chain_to", count=5,
                         time_limit=30, unit="instructions")
    # NOP, STR; PendSV: LDR, LDR, STR, BX; SysTick: BX
    assert result.unit == "instructions" and result.samples == [7] * 5


def test_cycles_are_identical_run_to_run(rulers):
    first, second = (measure_elf(rulers, catalog.TARGETS["mps2-an385"], "alu_from", "tail_chain_to", count=20,
                                 time_limit=30, unit="cycles") for _ in range(2))
    assert first.samples == second.samples and len(set(first.samples)) == 1


FREERTOS_SWITCHES = [name for name, s in catalog.SCENARIOS.items() if not s.check and name != "rotate"]


@pytest.mark.parametrize("scenario", FREERTOS_SWITCHES)
def test_freertos_in_cycles_probe_and_scope_agree_and_runs_are_identical(scenario):
    from switchscope.measure import Job, measure
    kernel, target = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"]
    job = lambda method: Job(kernel, target, catalog.SCENARIOS[scenario], catalog.METHODS[method], unit="cycles")
    probe, again, scope, marker = (measure(job(m), samples=100) for m in ("probe", "probe", "scope", "marker"))
    assert probe.unit == scope.unit == marker.unit == "cycles" and probe.timing_model == "cortex-m3"
    assert probe.samples == again.samples  # deterministic in cycles too
    assert probe.samples == scope.samples == marker.samples
    assert probe.ns_per_unit == 40.0 and probe.stats_ns.median == probe.stats.median * 40
