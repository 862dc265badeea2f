/*
 * core=cortex-m4f: the floating-point context at exceptions. An entry from
 * code with an FP context (CONTROL.FPCA) makes an extended frame; with lazy
 * stacking (FPCCR.LSPEN, on from reset) it only reserves the context's space
 * and leaves it to be written (FPCCR.LSPACT): the next FPU instruction makes
 * the deferred store. The return from an extended frame unstacks the context
 * where it was written.
 */
#include <stdlib.h>

#include "switchscope_plugin.h"

/* an entry left the FP context's space to be written: the FPU instructions' callbacks are conditional on
 * this, so an FPU instruction costs no callback otherwise */
static qemu_plugin_u64 lazy_pending;
static int returning_extended, returning_lazy; /* the frame the exception return now under way unstacks */

void lazy_fp_start(void) { lazy_pending = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0}; }

/* At an exception entry or return: whether the FP context's space is reserved but not yet written
 * (FPCCR.LSPACT), as QEMU keeps it. */
static int lazy_state_active(void) { return (read_word(FPCCR_ADDRESS) & FPCCR_LSPACT) != 0; }

/* At a handler's first instruction, an exception entry: charges it where the frame is an extended one
 * (returns 1); the basic frame's entry is the caller's to charge. */
int lazy_fp_entry(unsigned int vcpu_index)
{
    if (cortex_m_core != CORE_CORTEX_M4F || (read_register(14) & EXC_RETURN_BASIC_FRAME))
        return 0;
    /* the interrupted code had an FP context (CONTROL.FPCA): an extended frame. With lazy stacking the
     * entry reserves its space and leaves LSPACT set: 12 cycles, the deferred store comes at the first FPU
     * instruction (on_lazy_store); without, 29 (3.9.1) */
    if (lazy_state_active()) {
        charge_flow(vcpu_index, "exception-entry-fp-reserved", TIMING_EXCEPTION_ENTRY);
        qemu_plugin_u64_set(lazy_pending, vcpu_index, 1);
    } else {
        charge_flow(vcpu_index, "exception-entry-fp", TIMING_FP_ENTRY);
    }
    return 1;
}

/* An exception return begins, to `exc_return`: the frame it will unstack. */
void lazy_fp_return_branch(uint32_t exc_return)
{
    returning_extended = cortex_m_core == CORE_CORTEX_M4F && !(exc_return & EXC_RETURN_BASIC_FRAME);
    returning_lazy = returning_extended && lazy_state_active();
}

/* Where the exception return ends: charges it from an extended frame (returns 1); the basic frame's
 * return is the caller's to charge. */
int lazy_fp_return(unsigned int vcpu_index)
{
    if (!returning_extended)
        return 0;
    /* 3.9.1's 27 cycles where s0-s15 and FPSCR were stacked. Where they never were (the handler used no
     * FPU instruction: LSPACT still set), the return clears LSPACT and unstacks only the 8 registers
     * (ARMv7-M ARM, ExceptionReturn): 10, though 3.9.1 names 27 for any frame with an active FP context:
     * the range takes that */
    qemu_plugin_u64_set(lazy_pending, vcpu_index, 0);
    if (returning_lazy) {
        charge_flow(vcpu_index, "exception-return-fp-unwritten", TIMING_EXCEPTION_EXIT);
        charge(vcpu_index, 0, 0, TIMING_FP_EXIT - TIMING_EXCEPTION_EXIT);
    } else {
        charge_flow(vcpu_index, "exception-return-fp", TIMING_FP_EXIT);
    }
    return 1;
}

/* The first FPU instruction since an entry reserved a floating-point context's space: it stalls while
 * s0-s15 and FPSCR are written there (the deferred, lazy, store). */
static void on_lazy_store(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    if (skipped_by_condition(timing))
        return; /* a skipped instruction makes no FP check */
    qemu_plugin_u64_set(lazy_pending, vcpu_index, 0);
    trace_flow(logged_count(vcpu_index), "fp-lazy-store", TIMING_FP_LAZY_STORE);
    charge(vcpu_index, TIMING_FP_LAZY_STORE, 0, TIMING_FP_LAZY_STORE_MOST - TIMING_FP_LAZY_STORE);
}

void register_lazy_store(struct qemu_plugin_insn *insn, const struct insn_timing *timing)
{
    struct insn_timing *kept = malloc(sizeof *kept); /* lives as long as the translation */
    *kept = *timing;
    qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_lazy_store, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_COND_NE,
                                                lazy_pending, 0, kept);
}
