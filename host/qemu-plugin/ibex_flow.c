/*
 * core=ibex-small (RISC-V, ibex_timing.c; ibex-small-documentation: its costs
 * as read from the documentation alone). Each instruction's own cost is added
 * inline; what only the flow shows is charged when the next block starts
 * (on_ibex_block): a taken branch, the fetch of a 32-bit instruction that a
 * jump, branch, trap or mret lands on 2 bytes past a word boundary, and an
 * interrupt's entry. The handlers are the vector tables' entries (handler=): a
 * block starting at one that its predecessor did not branch to is a trap's
 * entry; QEMU takes interrupts between blocks, so the whole block before it
 * has run. The log has no range: "<cycles> <name> <instructions>".
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_timing.h"
#include "switchscope_plugin.h"

int ibex_core;
int ibex_documentation_reading;
static struct ibex_costs ibex_costs = IBEX_COSTS_MEASURED;

struct ibex_block {
    uint64_t start, end;
    struct ibex_timing last;
    uint8_t first_size;
    int starts_handler;
};
static const struct ibex_block *previous_ibex_block;

int ibex_argument(const char *arg)
{
    if (strcmp(arg, "core=ibex-small") && strcmp(arg, "core=ibex-small-documentation"))
        return 0;
    ibex_core = 1;
    ibex_documentation_reading = !strcmp(arg, "core=ibex-small-documentation");
    if (ibex_documentation_reading)
        ibex_costs = (struct ibex_costs)IBEX_COSTS_DOCUMENTED;
    return 1;
}

/* DIV, DIVU, REM, REMU: by zero, the short stall instead of the long division charged. */
static void on_ibex_divide(unsigned int vcpu_index, void *userdata)
{
    const struct ibex_timing *timing = userdata;
    if (read_ibex_register(timing->divisor) == 0)
        charge(vcpu_index, (int64_t)IBEX_DIVIDE_BY_ZERO - ibex_costs.divide, 0, 0);
}

static void on_ibex_block(unsigned int vcpu_index, void *userdata)
{
    const struct ibex_block *block = userdata, *previous = previous_ibex_block;
    previous_ibex_block = block;
    if (!previous)
        return;
    uint64_t start = block->start;
    const struct ibex_timing *last = &previous->last;
    int targeted = (last->flow == IBEX_FLOW_BRANCH || last->flow == IBEX_FLOW_JUMP) && start == last->target;
    if (start > previous->start && start < previous->end && !targeted && last->flow != IBEX_FLOW_INDIRECT)
        return; /* the rest of the block before, restarted at an I/O access (-icount): no flow of its own */
    int64_t split = ibex_split_fetch(start, block->first_size) ? IBEX_SPLIT_FETCH : 0;
    int by_flow = start == previous->end || targeted;
    if (block->starts_handler && !by_flow && last->flow != IBEX_FLOW_TRAP) {
        /* an interrupt between the block before and the instruction mepc holds: a branch that ended that
         * block was taken if mepc is its target */
        uint32_t mepc = read_mepc();
        if (last->flow == IBEX_FLOW_BRANCH && mepc == last->target && mepc != previous->end)
            charge(vcpu_index, IBEX_TAKEN_BRANCH_EXTRA, 0, 0);
        charge_flow(vcpu_index, "interrupt-entry", ibex_costs.interrupt_entry + split);
        return;
    }
    if (start == previous->end && last->flow != IBEX_FLOW_JUMP && last->flow != IBEX_FLOW_INDIRECT &&
        last->flow != IBEX_FLOW_TRAP && last->flow != IBEX_FLOW_MRET)
        return; /* straight on (a branch not taken, or a block QEMU ended early) */
    if (last->flow == IBEX_FLOW_BRANCH)
        charge(vcpu_index, IBEX_TAKEN_BRANCH_EXTRA, 0, 0);
    if (split)
        charge_flow(vcpu_index, "split-fetch", split);
}

void ibex_translate(struct qemu_plugin_tb *tb)
{
    size_t count = qemu_plugin_tb_n_insns(tb);
    struct ibex_block *block = count_cycles ? calloc(1, sizeof *block) : NULL;
    for (size_t i = 0; i < count; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t address = qemu_plugin_insn_vaddr(insn);
        size_t size = qemu_plugin_insn_size(insn);
        uint32_t word = 0;
        qemu_plugin_insn_data(insn, &word, size < 4 ? size : 4);
        struct ibex_timing timing;
        ibex_timing(&ibex_costs, (uint32_t)address, word, &timing);
        register_ibex_fetch(insn, address, timing.size); /* the instruction starts once fetched */
        register_watches(insn, address);
        register_ibex_stamp(insn, address, word, timing.reads_csr);
        register_counting(insn, address);
        if (!count_cycles)
            continue;
        register_cycles(insn, timing.cycles);
        register_ibex_access(insn, &timing);
        if (timing.divides) {
            struct ibex_timing *kept = malloc(sizeof *kept); /* lives as long as the translation */
            *kept = timing;
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_ibex_divide, QEMU_PLUGIN_CB_R_REGS, kept);
        }
        if (i == 0)
            block->first_size = timing.size;
        block->last = timing;
        block->end = address + size;
    }
    if (count_cycles) {
        block->start = qemu_plugin_tb_vaddr(tb);
        block->starts_handler = is_handler(block->start);
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_ibex_block,
                                             block->starts_handler ? QEMU_PLUGIN_CB_R_REGS : QEMU_PLUGIN_CB_NO_REGS,
                                             block);
    }
}
