/*
 * The Cortex-M cores (core=cortex-m0, cortex-m0plus, cortex-m3, cortex-m4 or
 * cortex-m4f): each instruction's cost, decided by cortex_m_timing.c when QEMU
 * translates it, is added inline; what only execution shows is charged in
 * callbacks: an IT block's failed condition, operand-dependent cycles, and,
 * when the next block starts (on_block), a taken conditional branch, the
 * exception entry, return and tail-chain, and the pipelining of a load across
 * a block boundary.
 */
#include <stdlib.h>
#include <string.h>

#include "switchscope_plugin.h"

#define MAX_NESTING 16
#define EXC_RETURN_BASE 0xFFFFFFF0u
#define EXC_RETURN_FP_BASE 0xFFFFFFE0u /* core=cortex-m4f: EXC_RETURN bit 4 clear, a frame with the FP context */

enum core_model cortex_m_core = CORE_CORTEX_M3;
static struct flow_costs flow; /* the core's exception flow and taken-branch costs (cortex_m_flow_costs) */
/* `nesting` as the translated code can test it: on_indirect is called only in a handler, since thread
 * mode returns from no exception, and most indirect branches are a function's return there */
static qemu_plugin_u64 in_handler;
static int condition_failed; /* the IT-block instruction now executing does not execute */

/* the flow between blocks (one vCPU) */
static const struct block *previous_block;
static int exception_returning;
static struct cost across; /* what the first instruction of the block now starting costs across its start */
static const struct block *interrupted[MAX_NESTING]; /* the block each nested exception interrupted */
static int nesting;

int cortex_m_argument(const char *arg)
{
    static const struct {
        const char *argument;
        enum core_model core;
    } cores[] = {
        {"core=cortex-m3", CORE_CORTEX_M3}, {"core=cortex-m4", CORE_CORTEX_M4}, {"core=cortex-m4f", CORE_CORTEX_M4F},
        {"core=cortex-m0", CORE_CORTEX_M0}, {"core=cortex-m0plus", CORE_CORTEX_M0PLUS},
    };
    for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++)
        if (!strcmp(arg, cores[i].argument)) {
            cortex_m_core = cores[i].core;
            return 1;
        }
    return 0;
}

void cortex_m_start(void)
{
    flow = cortex_m_flow_costs(cortex_m_core);
    in_handler = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0};
}

int skipped_by_condition(const struct insn_timing *timing)
{
    return timing->condition != CONDITION_ALWAYS && condition_failed;
}

/* An instruction of an IT block: when its condition fails it takes one cycle, whatever it is. */
static void on_conditional(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    condition_failed = !cortex_m_condition_holds(timing->condition, read_xpsr());
    if (condition_failed) /* takes back what the inline adds charged, less the one cycle */
        charge(vcpu_index, (int64_t)TIMING_CONDITION_FAILED - timing->cycles, -(int64_t)timing->below,
               -(int64_t)timing->above);
}

/* An instruction timed at translation as pipelined behind, or stalled by, the instruction before it,
 * which is conditional: when that one did not execute, neither applies (a condition-failed load has
 * no data phase, a condition-failed ALU operation writes nothing). Runs before the instruction's own
 * on_conditional, so condition_failed is still the previous instruction's. */
static void on_after_conditional(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    if (!condition_failed)
        return;
    if (timing->condition != CONDITION_ALWAYS && !cortex_m_condition_holds(timing->condition, read_xpsr()))
        return; /* it fails too: one cycle whatever it is, its on_conditional settles that */
    charge(vcpu_index, (int64_t)timing->pipelined - timing->address_stall - timing->fp_stall, 0, 0);
}

/* DIV and the long multiplies: their cycles depend on their operands. */
static void on_operands(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    if (skipped_by_condition(timing))
        return;
    uint32_t rn = read_register(timing->rn), rm = read_register(timing->rm);
    struct cost cost = cortex_m_operand_cycles(cortex_m_core, timing->operands, rn, rm);
    charge(vcpu_index, cost.cycles, cost.below, cost.above);
}

/* A branch to a register or a loaded value: an EXC_RETURN value there returns from an exception. */
static void on_indirect(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    uint32_t target;
    if (skipped_by_condition(timing))
        return;
    if (timing->indirect_register != 0xFF)
        target = read_register(timing->indirect_register);
    else if (timing->pops_pc_from_sp)
        target = read_word(read_register(13) + 4u * (timing->pops_pc_from_sp - 1u));
    else
        return;
    if (target >= (cortex_m_core == CORE_CORTEX_M4F ? EXC_RETURN_FP_BASE : EXC_RETURN_BASE)) {
        /* Figure 5-5: the unstacking starts after the return's last fetch and then fetches the
         * return target: it replaces the refill the branch was charged with */
        exception_returning = 1;
        lazy_fp_return_branch(target);
        charge(vcpu_index, -(int64_t)timing->refill, -(int64_t)timing->refill_below, -(int64_t)timing->refill_above);
    }
}

int flows_to(const struct block *block, uint64_t address)
{
    if (!block)
        return 0;
    if (address == block->end || (address >= block->start && address < block->end))
        return 1; /* fall-through, or a block restarted inside after an I/O access */
    return (block->last_flow == FLOW_DIRECT || block->last_flow == FLOW_CONDITIONAL) && block->last_target == address;
}

/* A conditional branch that ended `block` was taken if execution went on elsewhere. */
static void settle_branch(unsigned int vcpu_index, const struct block *block, uint64_t next)
{
    if (block && block->last_flow == FLOW_CONDITIONAL && next != block->end && next == block->last_target)
        charge(vcpu_index, flow.taken_branch.cycles, flow.taken_branch.below, flow.taken_branch.above);
}

static void charge_flow_cost(unsigned int vcpu_index, const char *what, struct cost cost)
{
    charge_flow(vcpu_index, what, cost.cycles);
    charge(vcpu_index, 0, cost.below, cost.above);
}

/* Every block start: exception entry, return, tail-chaining, and taken conditional branches. */
static void on_block(unsigned int vcpu_index, void *userdata)
{
    const struct block *block = userdata;
    const struct block *previous = previous_block;
    previous_block = block;
    if (exception_returning) {
        exception_returning = 0;
        if (block->starts_handler) { /* a pending exception taken at the return */
            flash_exception_entry();
            charge_flow_cost(vcpu_index, "tail-chain", flow.tail_chain);
            switch_at_chain(block->start);
            return;
        }
        if (!lazy_fp_return(vcpu_index))
            charge_flow_cost(vcpu_index, "exception-return", flow.exit);
        if (nesting > 0) {
            settle_branch(vcpu_index, interrupted[--nesting], block->start);
            qemu_plugin_u64_set(in_handler, vcpu_index, (uint64_t)nesting);
        }
        switch_at_thread_return(vcpu_index, block->start, nesting);
        return;
    }
    if (block->starts_handler && !flows_to(previous, block->start)) {
        flash_exception_entry();
        if (!lazy_fp_entry(vcpu_index))
            charge_flow_cost(vcpu_index, "exception-entry", flow.entry);
        switch_at_entry(block->start, nesting);
        if (nesting < MAX_NESTING) {
            interrupted[nesting++] = previous; /* its branch is settled where execution resumes */
            qemu_plugin_u64_set(in_handler, vcpu_index, (uint64_t)nesting);
        }
        return;
    }
    settle_branch(vcpu_index, previous, block->start);
    switch_at_block(vcpu_index, previous, block->start, nesting);
    /* QEMU also ends blocks where the code runs straight on (1 KB pages, I/O): a load
     * there still pipelines behind, or waits for, the instruction before it, as within a
     * block, unless that one was skipped by its IT condition. That is the load's own cost:
     * where a watch on the load logs the count before it, charged after that by
     * on_first_of_block, as the inline adds of a load within a block are; otherwise here. */
    across = (struct cost){0, 0, 0};
    if (block->first_across && previous && block->start == previous->end && !skipped_by_condition(&previous->last))
        across = cortex_m_across(&previous->last, &block->first);
    if (block->first_across == ACROSS_AT_START) { /* no callback for the load itself: a callback costs */
        charge(vcpu_index, across.cycles, across.below, across.above);
        across = (struct cost){0, 0, 0};
    }
}

/* The first instruction of a block, a load or store: its cost across the block boundary (on_block). */
static void on_first_of_block(unsigned int vcpu_index, void *userdata)
{
    (void)userdata;
    charge(vcpu_index, across.cycles, across.below, across.above);
    across = (struct cost){0, 0, 0};
}

/* The callbacks an instruction's timing asks for beyond its inline adds, in the order they must run. */
static void register_run_time_costs(struct qemu_plugin_insn *insn, const struct insn_timing *timing,
                                    const struct insn_timing *previous)
{
    int conditional = timing->condition != CONDITION_ALWAYS;
    int after_conditional = previous && previous->condition != CONDITION_ALWAYS &&
                            (timing->pipelined || timing->address_stall || timing->fp_stall);
    if (conditional || after_conditional || timing->operands != OPERANDS_NONE || timing->flow == FLOW_INDIRECT) {
        struct insn_timing *kept = malloc(sizeof *kept); /* lives as long as the translation */
        *kept = *timing;
        if (after_conditional) /* before its own condition replaces the previous instruction's */
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_after_conditional, QEMU_PLUGIN_CB_R_REGS, kept);
        if (conditional) /* first of its own: the others need to know whether it executes */
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_conditional, QEMU_PLUGIN_CB_R_REGS, kept);
        if (timing->operands != OPERANDS_NONE)
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_operands, QEMU_PLUGIN_CB_R_REGS, kept);
        else if (timing->flow == FLOW_INDIRECT)
            qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_indirect, QEMU_PLUGIN_CB_R_REGS,
                                                        QEMU_PLUGIN_COND_NE, in_handler, 0, kept);
    }
    if (timing->is_fp) /* last: the deferred store is part of this instruction's own cost */
        register_lazy_store(insn, timing);
}

void cortex_m_translate(struct qemu_plugin_tb *tb)
{
    size_t count = qemu_plugin_tb_n_insns(tb);
    struct block *block = count_cycles ? calloc(1, sizeof *block) : NULL;
    struct insn_timing previous = {0}, timing = {0};
    uint32_t known[16];
    uint16_t valid = 0;
    struct it_state it = {0}; /* an IT block that a 1 KB page boundary cuts is timed unconditionally after the cut */
    uint64_t flash_read = UINT64_MAX; /* the last flash read of the instruction before */
    for (size_t i = 0; i < count; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t address = qemu_plugin_insn_vaddr(insn);
        uint16_t halfwords[2] = {0, 0};
        qemu_plugin_insn_data(insn, halfwords, qemu_plugin_insn_size(insn) < 4 ? 2 : 4);
        /* An interrupt found pending before this instruction was asserted before its fetch; the instruction
         * starts once fetched: its fetch's stall comes before anything that logs the count it starts at (a
         * watch, the trace, a stamp), so that a window or a latency ending at it holds the fetch of its last
         * instruction, and one starting at it leaves out the fetch of its first. */
        int watched = register_latency(insn, address);
        if (count_cycles)
            register_flash_fetch(insn, address, &flash_read);
        watched |= trace_enabled(); /* something logs the count before this instruction */
        watched |= register_watches(insn, address);
        watched |= register_cortex_m_stamp(insn, address, halfwords[0], halfwords[1], known, &valid);
        register_counting(insn, address);
        if (!count_cycles)
            continue;
        cortex_m_timing(cortex_m_core, (uint32_t)address, halfwords[0], halfwords[1], i ? &previous : NULL, &timing);
        timing.condition = cortex_m_it_condition(&it, halfwords[0]);
        register_cycles(insn, timing.cycles);
        if (i == 0 && (timing.is_memory || timing.address_mask)) {
            block->first_across = watched ? ACROSS_AFTER_WATCHES : ACROSS_AT_START;
            if (watched) /* after the watches: its own cost */
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_first_of_block, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        register_range(insn, timing.below, timing.above);
        register_run_time_costs(insn, &timing, i ? &previous : NULL);
        register_flash_data(insn, address, halfwords[0], halfwords[1], &timing);
        previous = timing;
        if (i == 0)
            block->first = timing;
        block->last = timing;
        block->end = address + qemu_plugin_insn_size(insn);
        block->last_flow = timing.flow;
        block->last_target = timing.target;
    }
    if (count_cycles) {
        block->start = qemu_plugin_tb_vaddr(tb);
        block->starts_handler = is_handler(block->start);
        /* switch_word= reads the stacked frame at an entry, the Cortex-M4F model EXC_RETURN at a handler's
         * start: the registers must be readable there */
        int reads = switches_active() || (cortex_m_core == CORE_CORTEX_M4F && block->starts_handler);
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, reads ? QEMU_PLUGIN_CB_R_REGS : QEMU_PLUGIN_CB_NO_REGS,
                                             block);
    }
}
