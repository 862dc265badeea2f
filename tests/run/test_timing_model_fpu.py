"""Rulers of the Cortex-M4F timing model (the Cortex-M4 with its FPU in use, mps2-an386-fpu): hand-written
FPU instruction sequences and exceptions taken with a floating-point context, each between two labels of one
tiny firmware built for hard float, measured with the marker method in cycles on QEMU. Every expected figure is
worked out here from the ARM Cortex-M4 Technical Reference Manual (r0p1, DDI 0439D), zero wait states, each
term with the section or table that gives it and its words, never from the plugin's own table: the point the
model charges, and the least and the most the manual allows. The integer instructions' terms are
tests/run/test_timing_model.py's, whose Cortex-M4 figures the Cortex-M4F model keeps."""

from __future__ import annotations

import textwrap

import pytest

from switchscope import catalog
from switchscope.figures.measure_elf import measure_elf

from test_timing_model import (ALU, EXCEPTION_ENTRY, EXPECTED, NOP, STR_IMMEDIATE, Cycles, build,
                               fixed, total)
from test_timing_model import rulers  # noqa: F401 (the Cortex-M4 rulers' firmware, a fixture)

pytestmark = pytest.mark.firmware

M4F = "mps2-an386-fpu"

# Table 7-1 "FPU instruction set" (7.2.3) and its note:
VPUSH_VPOP_16 = fixed(1 + 16)     # VPUSH.32 / VPOP.32 "1+N, where N is the number of registers": {s16-s31}
VADD = fixed(1)                   # VADD.F32 "1"
VMUL = fixed(1)                   # VMUL.F32 "1"
VMLA = fixed(3)                   # VMLA.F32 "3"
VDIV = Cycles(14, 1, 14)          # VDIV.F32 "14"; the note: "VDIV and VSQRT instructions take one cycle if no more
                                  # floating-point instructions are executed"
RESULT_USED = fixed(1)            # the note: arithmetic instructions "take one cycle longer if their result is
                                  # consumed by the following instruction"
VLDR = fixed(2)                   # VLDR.32 "single float" 2
VSTR = fixed(2)                   # VSTR.32 "single float registers" 2
# VMOV between core and FP registers, Table 7-1's row "Move | two floats/one double to/from two core registers
# or one float to/from one core register | VMOV | 2". Published measurements on silicon
# (https://compendium.i-0.nl/docs/data-operations/fpu_reg) time the one-float move at 1 cycle and the two-float
# one at 2: the point is the row's 2, the range takes the silicon's 1 for the one-float move.
VMOV_CORE = Cycles(2, 1, 2)       # VMOV s0, r1 / VMOV r1, s1
VMOV_CORE_PAIR = fixed(2)         # VMOV s2, s3, r0, r1
VMRS_VMSR = fixed(1)              # VMRS "floating-point control/status to core register" 1; VMSR 1
# 3.9.1 and 7.2.7, exceptions with a floating-point context active (CONTROL.FPCA):
FP_ENTRY = fixed(29)              # 3.9.1: "a floating point context is active and the lazy stacking is not enabled,
                                  # this maximum latency is increased to twenty nine cycles"
LAZY_ENTRY = EXCEPTION_ENTRY      # 7.2.7: lazy stacking "reserves space on the stack for the FP state, but does not
                                  # save that state information": the 12 cycles of an entry without it
LAZY_STORE = Cycles(29 - 12, 29 - 12, 1 + 17)  # 7.2.7: saved when "the processor executes an FPU instruction in
                                  # the current exception handler": the 17 words (s0-s15, FPSCR) the 29-cycle entry
                                  # stacks beyond the 12-cycle one; at most as a store of 17 words, VSTM "1+N"
FP_EXIT = fixed(27)               # 3.9.1: "an active floating point context is included in the stack frame, the
                                  # return from interrupt takes twenty-seven cycles"
UNWRITTEN_EXIT = Cycles(10, 10, 27)  # the frame's FP part never written (LSPACT still set at the return): the
                                  # architecture (ARMv7-M ARM, ExceptionReturn) clears LSPACT and unstacks the 8
                                  # registers, 3.9.1's ten cycles; 3.9.1 names 27 for any frame with an active FP
                                  # context, the most

NVIC_ISER0, NVIC_ISPR0, FPCCR = 0xE000E100, 0xE000E200, 0xE000EF34
FPCCR_LSPEN = 1 << 30

RULERS_FPU = textwrap.dedent(f"""
    .syntax unified
    .thumb
    .fpu fpv4-sp-d16
    .section .vectors, "a"
    .type vectors, %object
    vectors:
    .word stack_top
    .word reset
    .rept 14
    .word hang
    .endr
    .word plain_handler          @ IRQ 0: uses no FPU instruction
    .word fp_handler             @ IRQ 1: its first instruction is an FPU one
    .size vectors, . - vectors

    .text
    .thumb_func
    hang: b hang

    .thumb_func
    plain_handler: bx lr

    .thumb_func
    fp_handler:
    vmov s0, r0                  @ the deferred store of the interrupted context, then the move
    vmov s1, r0                  @ nothing deferred left
    bx lr

    .thumb_func
    reset:
    ldr r0, =0xE000ED88          @ CPACR: CP10 and CP11 full access, the FPU on
    ldr r1, [r0]
    orr r1, r1, #(0xF << 20)
    str r1, [r0]
    dsb
    isb
    ldr r6, =data
    ldr r0, ={NVIC_ISER0:#x}
    movs r1, #3
    str r1, [r0]                 @ IRQs 0 and 1 enabled
    ldr r4, ={NVIC_ISPR0:#x}
    ldr r8, ={FPCCR:#x}
    vmov s0, r0                  @ thread mode has a floating-point context from here on (CONTROL.FPCA)
    loop:

    nop
    push_pop_from:
    vpush {{s16-s31}}
    vpop {{s16-s31}}
    push_pop_to:

    nop
    arithmetic_from:
    vadd.f32 s0, s1, s2
    vmul.f32 s3, s4, s5
    vmla.f32 s6, s7, s8
    vdiv.f32 s9, s10, s11
    arithmetic_to:

    nop
    result_used_from:
    vadd.f32 s0, s1, s2
    vmul.f32 s3, s0, s4          @ consumes the VADD's result
    vstr s3, [r6]                @ consumes the VMUL's
    result_used_to:

    nop
    load_store_from:
    vldr s0, [r6]
    vstr s1, [r6, #4]
    load_store_to:

    nop
    move_from:
    vmov s0, r1
    vmov r1, s1
    vmov s2, s3, r0, r1
    vmrs r1, fpscr
    vmsr fpscr, r1
    move_to:

    movs r5, #1
    nop
    lazy_from:
    nop
    str r5, [r4]                 @ IRQ 0 pending: entered with the FP context, which it never uses
    lazy_to:

    movs r5, #2
    nop
    deferred_from:
    nop
    str r5, [r4]                 @ IRQ 1 pending: its first FPU instruction stores the reserved context
    deferred_to:

    ldr r1, [r8]
    bic r1, r1, #{FPCCR_LSPEN:#x}
    str r1, [r8]                 @ lazy stacking off
    movs r5, #1
    nop
    stacked_from:
    nop
    str r5, [r4]                 @ IRQ 0 pending: the FP context stacked at entry, unstacked at return
    stacked_to:
    ldr r1, [r8]
    orr r1, r1, #{FPCCR_LSPEN:#x}
    str r1, [r8]                 @ lazy stacking on again

    b loop
    .ltorg

    .bss
    .align 3
    data: .space 64
    .space 2048
    stack_top:
""")


EXPECTED_FPU = [
    ("push_pop", total(VPUSH_VPOP_16, VPUSH_VPOP_16), "VPUSH {s16-s31} 1 + 16, VPOP {s16-s31} 1 + 16"),
    ("arithmetic", total(VADD, VMUL, VMLA, VDIV), "VADD 1, VMUL 1, VMLA 3, VDIV 14 (1 to 14), none using another's result"),
    ("result_used", total(VADD, VMUL, RESULT_USED, VSTR, RESULT_USED),
     "VADD 1; VMUL 1 + 1, it uses the VADD's result; VSTR 2 + 1, it stores the VMUL's"),
    ("load_store", total(VLDR, VSTR), "VLDR.32 2, VSTR.32 2"),
    ("move", total(VMOV_CORE, VMOV_CORE, VMOV_CORE_PAIR, VMRS_VMSR, VMRS_VMSR),
     "VMOV s0, r1 2 (1 to 2); VMOV r1, s1 2 (1 to 2); VMOV s2, s3, r0, r1 2; VMRS 1; VMSR 1"),
    ("lazy", total(NOP, STR_IMMEDIATE, LAZY_ENTRY, ALU, UNWRITTEN_EXIT),
     "NOP, STR (pends IRQ 0); entry reserving the FP context, 12; BX LR 1 without its refill; return with the "
     "FP part never written, 10 (to 27)"),
    ("deferred", total(NOP, STR_IMMEDIATE, LAZY_ENTRY, VMOV_CORE, LAZY_STORE, VMOV_CORE, ALU, FP_EXIT),
     "NOP, STR (pends IRQ 1); entry, 12; VMOV 2 and the deferred store of s0-s15 and FPSCR, 17 (to 18); VMOV 2; "
     "BX LR 1; return unstacking the FP context, 27"),
    ("stacked", total(NOP, STR_IMMEDIATE, FP_ENTRY, ALU, FP_EXIT),
     "NOP, STR (pends IRQ 0), lazy stacking off: entry stacking the FP context, 29; BX LR 1; return, 27"),
]


@pytest.fixture(scope="module")
def fpu_rulers(tmp_path_factory):
    return build(tmp_path_factory.mktemp("timing-rulers-fpu"), source=RULERS_FPU,
                 cpu=("-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"))


def measured(firmware, target: str, ruler: str) -> tuple[list, Cycles]:
    result = measure_elf(firmware, catalog.TARGETS[target], f"{ruler}_from", f"{ruler}_to", count=5, time_limit=30,
                         unit="cycles")
    assert result.unit == "cycles" and result.timing_model == catalog.TARGETS[target].timing_model
    least, most = result.bound_stats
    assert least.min == least.max and most.min == most.max, "the same instructions every time"
    return result.samples, Cycles(result.samples[0], least.min, most.min)


def test_the_target_is_the_cortex_m4f_model_on_the_an386_machine():
    target = catalog.TARGETS[M4F]
    assert (target.cpu, target.timing_model, target.simulated_machine) == ("cortex-m4f", "cortex-m4f", "mps2-an386")
    assert "-mfloat-abi=hard" in target.cflags and catalog.TARGETS["mps2-an386"].simulated_machine == "mps2-an386"


@pytest.mark.parametrize("ruler,expected,how", EXPECTED_FPU, ids=[row[0] for row in EXPECTED_FPU])
def test_each_fpu_ruler_measures_the_cycles_and_range_the_trm_gives(fpu_rulers, ruler, expected, how):
    samples, found = measured(fpu_rulers, M4F, ruler)
    assert samples == [expected.point] * 5 and found == expected, f"{ruler}: {how}"


@pytest.mark.parametrize("ruler", ["alu", "multiply", "long_multiply", "svc", "tail_chain", "pop_return"])
def test_without_fpu_instructions_the_m4f_model_is_the_m4s(rulers, ruler):  # noqa: F811
    """Code that never uses the FPU (and so has no FP context at an exception) costs on the M4F model what it
    costs on the M4's."""
    expected = dict((row[0], row[1]) for row in EXPECTED)[ruler]
    expected = expected["cortex-m4"] if isinstance(expected, dict) else expected
    _, found = measured(rulers, M4F, ruler)
    assert found == expected


def test_fpu_rulers_are_identical_run_to_run(fpu_rulers):
    first, second = (measure_elf(fpu_rulers, catalog.TARGETS[M4F], "push_pop_from", "stacked_to", count=10,
                                 time_limit=30, unit="cycles") for _ in range(2))
    assert first.samples == second.samples and len(set(first.samples)) == 1
    assert first.bounds == second.bounds
