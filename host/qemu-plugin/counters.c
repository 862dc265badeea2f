/*
 * The counters: instructions and, through the core's timing model, cycles
 * with the least and the most the TRM allows for them.
 *
 * The counts are inline adds before every instruction rather than one per
 * translation block: when an I/O access forces QEMU to re-execute an
 * instruction, it does so without those adds, so nothing is counted twice.
 * They live in a scoreboard (one entry per vCPU; M-profile machines have one).
 */
#include <string.h>

#include "switchscope_plugin.h"

int count_cycles;
struct counters before_flow;

static struct qemu_plugin_scoreboard *board;
static qemu_plugin_u64 instructions, cycles, below, above;
static qemu_plugin_u64 logged;
/* the ranges' run-time parts (taken branches, returns, operands): plain sums, cheaper than a
 * scoreboard add in every callback; the inline adds at translation go to `below` and `above` */
static int64_t run_time_below, run_time_above;

int counters_argument(const char *arg)
{
    if (strcmp(arg, "unit=cycles") && strcmp(arg, "unit=instructions"))
        return 0;
    count_cycles = !strcmp(arg, "unit=cycles");
    return 1;
}

void counters_start(void)
{
    board = qemu_plugin_scoreboard_new(sizeof(struct counters));
    instructions = (qemu_plugin_u64){board, offsetof(struct counters, instructions)};
    cycles = (qemu_plugin_u64){board, offsetof(struct counters, cycles)};
    below = (qemu_plugin_u64){board, offsetof(struct counters, below)};
    above = (qemu_plugin_u64){board, offsetof(struct counters, above)};
    logged = count_cycles ? cycles : instructions;
}

struct counters counters_now(unsigned int vcpu_index)
{
    return (struct counters){qemu_plugin_u64_get(instructions, vcpu_index), qemu_plugin_u64_get(cycles, vcpu_index),
                             qemu_plugin_u64_get(below, vcpu_index) + (uint64_t)run_time_below,
                             qemu_plugin_u64_get(above, vcpu_index) + (uint64_t)run_time_above};
}

uint64_t logged_count(unsigned int vcpu_index) { return qemu_plugin_u64_get(logged, vcpu_index); }

void charge(unsigned int vcpu_index, int64_t cycles_added, int64_t below_added, int64_t above_added)
{
    if (cycles_added)
        qemu_plugin_u64_add(cycles, vcpu_index, (uint64_t)cycles_added);
    run_time_below += below_added;
    run_time_above += above_added;
}

void charge_flow(unsigned int vcpu_index, const char *what, int64_t cycles_added)
{
    before_flow = counters_now(vcpu_index);
    trace_flow(logged_count(vcpu_index), what, cycles_added);
    qemu_plugin_u64_add(cycles, vcpu_index, (uint64_t)cycles_added);
}

void register_counting(struct qemu_plugin_insn *insn, uint64_t address)
{
    trace_register(insn, address);
    qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, instructions, 1);
}

void register_cycles(struct qemu_plugin_insn *insn, uint64_t cycles_added)
{
    qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, cycles, cycles_added);
}

/* Only the parts that are not 0: an inline add costs at every execution. */
void register_range(struct qemu_plugin_insn *insn, uint64_t below_added, uint64_t above_added)
{
    if (below_added)
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, below, below_added);
    if (above_added)
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, above, above_added);
}
