/*
 * switchscope's QEMU plugin: counts every executed instruction and, through
 * the timing model of the core (cortex_m_timing.c), its cycles; writes a line
 * "<count> <name>" each time execution reaches one of the watched addresses
 * ("<cycles> <name> <instructions> <least> <most>" with unit=cycles: the
 * model's cycles, then the least and the most cycles the TRM allows for the
 * same instructions). The count is of the instructions, or cycles, before the
 * watched one.
 *
 *   -plugin libswitchscope.so,out=EVENTS,watch=0x1234:from,watch=0x1240:to
 *           [,unit=cycles,core=cortex-m3,handler=0x400,...][,stop=1000][,limit=N]
 *
 * core=ibex-small (RISC-V, ibex_timing.c; ibex-small-documentation: its costs as read from the documentation
 * alone) logs "<cycles> <name> <instructions>": the Ibex model has no range. Its handler= are the vector
 * tables' entries, and stamp_csr=CSR logs the probe's reads of that CSR ("csrr rd, mcycle" in its fixed
 * sequence) as "stamp".
 *
 * unit=cycles logs modelled cycles (core=cortex-m0, cortex-m0plus, cortex-m3, cortex-m4 or cortex-m4f); every
 * exception handler's address must then be given (handler=), since QEMU 10.0
 * reports no exception entry to plugins: an entry is a block that starts at
 * a handler without having been branched to. With stamp=ADDRESS (the probe's
 * timer register) every load of it whose address was formed by MOVW/MOVT, or
 * on ARMv6-M by a literal load, in the same block, as the probe's fixed
 * sequence does, is logged as "stamp". With stop=COUNT the plugin ends
 * QEMU once COUNT intervals are complete: a watch named "to" reached after
 * one named "from" (for firmware that never ends by itself). With limit=COUNT
 * it ends QEMU after that many events in all, so a watch reached in a tight
 * loop cannot fill the disk; the log then ends with "<count> limit". Watches
 * at one address are reported in the order given.
 *
 * With trace=PATH (and trace_window=K, default 0) the plugin writes, for the
 * K-th interval opened (by a watch named "from" or "open"), one line per
 * instruction executed in it, "<count> i <address>", the count before the
 * instruction; one per exception entry, return or tail-chain the timing model
 * charges, "<count> f <what> <cycles>"; and "<count> end" where a watch named
 * "to" or "close" ends it. An instruction's cost is the count of the next
 * line less its own, less the charges listed between.
 *
 * With latency_irq=N and latency_handler=ADDRESS (the irq-latency scenarios)
 * the plugin logs "<count> assert@<address>" where the external interrupt N
 * was asserted: before the first instruction at which the NVIC shows it
 * pending (read before every instruction while it is not), that
 * instruction's address; or, where it was taken at once, the count before its
 * exception entry and the address the entry stacked (the instruction it
 * interrupted). A watch at the handler then times its first instruction.
 * With latency_arm=ADDRESS (the function that arms the interrupt's timer,
 * its first argument the delay in timer counts) and latency_counts=NUM/DEN
 * (the timer's counts in one instruction of virtual time) the pending bit is
 * read only from a few instructions before the delay can have run out until
 * the assertion is logged: reading it before every instruction of a whole
 * run costs more than the run (a callback reading memory each time).
 *
 * With switch_word=ADDRESS (a kernel's current-task variable, FreeRTOS's
 * pxCurrentTCB) and unit=cycles the plugin logs the exception flow task
 * switches are made of, each with the variable's value (hex) then:
 *   "<count> entry@<handler>:<word>:<pc>:<lr>"  an exception taken from
 *                                          thread mode, the count before its
 *                                          entry, pc the instruction it
 *                                          interrupted and lr its link register
 *                                          (both stacked);
 *   "<count> nest@<handler>:<word>"        an exception taken in a handler;
 *   "<count> chain@<handler>:<word>"       a tail-chain into a handler, the
 *                                          count before it;
 *   "<count> resume@<address>:<word>[:<name>]"  the return to thread mode, the
 *                                          count before the first instruction
 *                                          there; with switch_name=OFFSET:BYTES
 *                                          the task's name, read at word+OFFSET
 *                                          (hex bytes up to its NUL).
 * stop=COUNT then ends QEMU after COUNT resumes whose word is not the one the
 * entry saw (COUNT switches). With switch_call=START:END (a kernel's switch
 * made by a function that task code calls, with no exception: FreeRTOS's
 * ss_software_switch, --config switch=software) a call of it from thread mode
 * is a flow too: "entry@<START>:<word>:<return>" (the address the call
 * returns to) as it starts, an exception taken inside it "nest@", and
 * "resume@" where it jumps out of [START, END) to a task (not by a call, not
 * back into itself after an interrupt).
 *
 * The counters are inline adds before every instruction rather than one per
 * translation block: when an I/O access forces QEMU to re-execute an
 * instruction, it does so without those adds, so nothing is counted twice.
 * They live in a scoreboard (one entry per vCPU; M-profile machines have one).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cortex_m_timing.h"
#include "ibex_timing.h"
#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = SWITCHSCOPE_QEMU_PLUGIN_API_VERSION;

GByteArray *g_byte_array_set_size(GByteArray *array, unsigned int length);

#define MAX_WATCHES 64
#define MAX_HANDLERS 256
#define MAX_NESTING 16
#define EXC_RETURN_BASE 0xFFFFFFF0u
#define EXC_RETURN_FP_BASE 0xFFFFFFE0u /* core=cortex-m4f: EXC_RETURN bit 4 clear, a frame with the FP context */

struct watch {
    uint64_t address;
    char name[24];
};

struct counters {
    uint64_t instructions;
    uint64_t cycles;
    uint64_t below, above; /* how far the TRM lets the cycles go down and up */
};

/* What the model needs to know of a block when the next one starts. */
struct block {
    uint64_t start, end;           /* end: the address after its last instruction */
    enum insn_flow last_flow;      /* how its last instruction leaves it */
    uint64_t last_target;
    struct insn_timing first, last; /* for loads pipelining across a block boundary */
    enum {                          /* its first instruction may cost across the boundary: charged */
        ACROSS_NONE,
        ACROSS_AT_START,            /* by on_block (nothing looks at the counts before that instruction) */
        ACROSS_AFTER_WATCHES,       /* by on_first_of_block, after a watch has logged the count before it */
    } first_across;
    int starts_handler;            /* it starts at an exception handler */
};

static struct watch watches[MAX_WATCHES];
static int watch_count;
static uint64_t handlers[MAX_HANDLERS];
static int handler_count;
static FILE *events;
static uint64_t stop_count, stop_seen, event_limit, events_written;
static int interval_open;
static int count_cycles;
static uint64_t stamp_register; /* 0: none */
static struct watch stamp_watch = {0, "stamp"};
static enum core_model core = CORE_CORTEX_M3;
static int ibex_core;       /* core=ibex-small[-documentation]: RISC-V, timed by ibex_timing.c */
static struct ibex_costs ibex_costs = IBEX_COSTS_MEASURED;
static uint16_t stamp_csr;  /* stamp_csr=: the probe reads this CSR (csrr rd, mcycle) instead of a timer register */
static struct flow_costs flow; /* the core's exception flow and taken-branch costs (cortex_m_flow_costs) */
static FILE *trace;           /* trace=PATH: every instruction of one interval */
static uint64_t trace_window; /* which interval, counted from 0 */
static uint64_t intervals_opened;
static int tracing;

static struct qemu_plugin_scoreboard *board;
static qemu_plugin_u64 instructions, cycles, below, above;
static qemu_plugin_u64 logged; /* the counter the log reports */
/* `nesting` as the translated code can test it: on_indirect is called only in a handler, since thread
 * mode returns from no exception, and most indirect branches are a function's return there */
static struct qemu_plugin_scoreboard *flow_board;
static qemu_plugin_u64 in_handler;
/* core=cortex-m4f: an exception entry reserved the space of a floating-point context and left it to be
 * written (FPCCR.LSPACT): the next FPU instruction makes the deferred store (its callback is conditional
 * on this, so an FPU instruction costs no callback otherwise) */
static qemu_plugin_u64 lazy_pending;
static int returning_extended, returning_lazy; /* the frame the exception return now under way unstacks */
/* the ranges' run-time parts (taken branches, returns, operands): plain sums, cheaper than a
 * scoreboard add in every callback; the inline adds at translation go to `below` and `above` */
static int64_t run_time_below, run_time_above;

static struct qemu_plugin_register *registers[16];
static struct qemu_plugin_register *xpsr_register;
static int condition_failed; /* the IT-block instruction now executing does not execute */
static GByteArray *register_buffer;

/* the flow between blocks (one vCPU) */
static const struct block *previous_block;
static int exception_returning;
static struct cost across; /* what the first instruction of the block now starting costs across its start */
static const struct block *interrupted[MAX_NESTING]; /* the block each nested exception interrupted */
static int nesting;

/* latency_irq=: the interrupt whose assertion is logged */
#define NVIC_ISPR0 0xE000E200u
static int latency_irq = -1;
static uint64_t latency_handler;
static int latency_seen;            /* its assertion is logged, its handler not yet entered */
static uint64_t latency_arm;        /* latency_arm=: where the timer is armed; 0: poll always */
static uint64_t latency_counts_num = 1, latency_counts_den = 1; /* latency_counts=: timer counts per instruction */
/* Instructions until the pending bit is read, counted down by one at each instruction: from below 2^63
 * (not yet) through 0 to above it (read it). Set at an arming to the instructions the delay surely lasts,
 * to IDLE (no timer running) once the assertion is logged. */
static qemu_plugin_u64 latency_countdown;
#define LATENCY_IDLE (UINT64_C(1) << 62)
#define LATENCY_POLLING_FROM ((UINT64_C(1) << 63) - 1) /* the countdown above this: read the pending bit */
#define LATENCY_EARLY_INSTRUCTIONS 4 /* read it this much before the delay's instructions have run */
static struct counters before_flow; /* the counters before the last exception entry or tail-chain */
static struct watch assert_watch = {0, "assert"};
static struct qemu_plugin_register *psp_register;

/* switch_word=: the current-task variable, the name's place in a task, the word the entry saw */
static uint64_t switch_word;
static uint32_t switch_name_offset, switch_name_bytes;
static uint32_t entry_word;
#define MAX_SWITCH_CALLS 8
static uint64_t switch_calls[MAX_SWITCH_CALLS][2]; /* switch_call=: [start, end) of each switching function */
static int switch_call_count;
static int call_flow; /* 1 + the switch_calls index of the switching function a task has called; 0: none */

static int in_switch_call(uint64_t address)
{
    return call_flow && address >= switch_calls[call_flow - 1][0] && address < switch_calls[call_flow - 1][1];
}

static void finish(const char *word, uint64_t count)
{
    fprintf(events, "%" PRIu64 " %s\n", count, word);
    fclose(events);
    if (trace)
        fclose(trace);
    _exit(0); /* nothing of QEMU's needs saving: the run is complete */
}

/* One line of the event log: the counters at the event (cycles, or instructions, first). */
static void log_event(const char *name, const char *suffix, const struct counters *at)
{
    uint64_t before = count_cycles ? at->cycles : at->instructions;
    if (count_cycles && ibex_core) /* Ibex's documentation bounds no cost but by the memories' latency,
                                    * which its simple_system fixes at one cycle: no range */
        fprintf(events, "%" PRIu64 " %s%s %" PRIu64 "\n", before, name, suffix, at->instructions);
    else if (count_cycles)
        fprintf(events, "%" PRIu64 " %s%s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", before, name, suffix,
                at->instructions, before - at->below, before + at->above);
    else
        fprintf(events, "%" PRIu64 " %s%s\n", before, name, suffix);
    if (event_limit && ++events_written == event_limit)
        finish("limit", before);
}

static struct counters counters_now(unsigned int vcpu_index)
{
    return (struct counters){qemu_plugin_u64_get(instructions, vcpu_index), qemu_plugin_u64_get(cycles, vcpu_index),
                             qemu_plugin_u64_get(below, vcpu_index) + (uint64_t)run_time_below,
                             qemu_plugin_u64_get(above, vcpu_index) + (uint64_t)run_time_above};
}

static void on_watched(unsigned int vcpu_index, void *userdata)
{
    const struct watch *watch = userdata;
    /* registered before the instruction's own adds: the count is of what ran before it */
    uint64_t before = qemu_plugin_u64_get(logged, vcpu_index);
    struct counters now = counters_now(vcpu_index);
    log_event(watch->name, "", &now);
    if (trace) {
        int opens = !strcmp(watch->name, "from") || !strcmp(watch->name, "open");
        if (tracing && (!strcmp(watch->name, "to") || !strcmp(watch->name, "close"))) {
            fprintf(trace, "%" PRIu64 " end\n", before);
            fflush(trace);
            tracing = 0;
        } else if (opens && intervals_opened++ == trace_window) {
            tracing = 1;
        }
    }
    if (!strcmp(watch->name, "from"))
        interval_open = 1;
    if (stop_count && interval_open && !strcmp(watch->name, "to") && (interval_open = 0, ++stop_seen == stop_count))
        finish("end", before);
}

static uint32_t read_register(unsigned number);
static uint32_t read_word(uint32_t address);

/* In a handler's first instruction: where the exception entry stacked its frame, on the process stack
 * or the main one as EXC_RETURN says. */
static uint32_t stacked_frame(void)
{
    uint32_t exc_return = read_register(14), frame = read_register(13);
    if ((exc_return & 4u) && psp_register) { /* the frame went onto the process stack */
        g_byte_array_set_size(register_buffer, 0);
        if (qemu_plugin_read_register(psp_register, register_buffer) >= 4)
            memcpy(&frame, register_buffer->data, 4);
    }
    return frame;
}

/* The address the entry stacked: the instruction it interrupted. */
static uint32_t stacked_pc(void) { return read_word(stacked_frame() + 24u); }

/* latency_irq=: before every instruction while latency_polling says the timer may be running and its assertion
 * is not logged yet (registered first); at the handler's first instruction always. */
static void on_latency_poll(unsigned int vcpu_index, void *userdata)
{
    uint64_t address = (uint64_t)(uintptr_t)userdata;
    char suffix[24];
    if (address == latency_handler) {
        if (!latency_seen) { /* taken at once: asserted where the entry began, at the address it stacked */
            struct counters at = count_cycles ? before_flow : counters_now(vcpu_index);
            snprintf(suffix, sizeof suffix, "@%" PRIx32, stacked_pc());
            log_event(assert_watch.name, suffix, &at);
        }
        latency_seen = 0;
        if (latency_arm)
            qemu_plugin_u64_set(latency_countdown, vcpu_index, LATENCY_IDLE);
        return;
    }
    if (latency_seen)
        return;
    uint32_t pending = read_word(NVIC_ISPR0 + 4u * (uint32_t)(latency_irq / 32));
    if (pending >> (latency_irq % 32) & 1u) {
        struct counters now = counters_now(vcpu_index);
        snprintf(suffix, sizeof suffix, "@%" PRIx64, address);
        log_event(assert_watch.name, suffix, &now);
        latency_seen = 1;
        if (latency_arm)
            qemu_plugin_u64_set(latency_countdown, vcpu_index, LATENCY_IDLE);
    }
}

/* latency_arm=: the timer is being armed with r0 counts: it cannot expire before that many counts' instructions. */
static void on_latency_arm(unsigned int vcpu_index, void *userdata)
{
    (void)userdata;
    uint64_t instructions = (uint64_t)read_register(0) * latency_counts_den / latency_counts_num;
    uint64_t wait = instructions > LATENCY_EARLY_INSTRUCTIONS ? instructions - LATENCY_EARLY_INSTRUCTIONS : 0;
    qemu_plugin_u64_set(latency_countdown, vcpu_index, wait);
}

/* trace=: an instruction of the traced interval, its count before it (registered after the watches). */
static void on_traced(unsigned int vcpu_index, void *userdata)
{
    if (tracing)
        fprintf(trace, "%" PRIu64 " i %" PRIx64 "\n", qemu_plugin_u64_get(logged, vcpu_index), (uint64_t)(uintptr_t)userdata);
}

/* A cost of the flow itself (exception entry, return, tail-chain), charged now. */
static void charge_flow(unsigned int vcpu_index, const char *what, int64_t cycles_added)
{
    before_flow = (struct counters){qemu_plugin_u64_get(instructions, vcpu_index),
                                    qemu_plugin_u64_get(cycles, vcpu_index),
                                    qemu_plugin_u64_get(below, vcpu_index) + (uint64_t)run_time_below,
                                    qemu_plugin_u64_get(above, vcpu_index) + (uint64_t)run_time_above};
    if (tracing)
        fprintf(trace, "%" PRIu64 " f %s %" PRId64 "\n", qemu_plugin_u64_get(logged, vcpu_index), what, cycles_added);
    qemu_plugin_u64_add(cycles, vcpu_index, (uint64_t)cycles_added);
}

/* A register's 32-bit value; 0 where QEMU has no such register. */
static uint32_t read_handle(struct qemu_plugin_register *handle)
{
    uint32_t value = 0;
    g_byte_array_set_size(register_buffer, 0);
    if (handle && qemu_plugin_read_register(handle, register_buffer) >= 4)
        memcpy(&value, register_buffer->data, 4);
    return value;
}

static uint32_t read_register(unsigned number) { return number > 15 ? 0 : read_handle(registers[number]); }

static uint32_t read_word(uint32_t address)
{
    g_byte_array_set_size(register_buffer, 0);
    uint32_t value = 0;
    if (qemu_plugin_read_memory_vaddr(address, register_buffer, 4) && register_buffer->len >= 4)
        memcpy(&value, register_buffer->data, 4);
    return value;
}

/* core=cortex-m4f, at an exception entry or return: whether the FP context's space is reserved but not
 * yet written (FPCCR.LSPACT), as QEMU keeps it */
static int lazy_state_active(void) { return (read_word(FPCCR_ADDRESS) & FPCCR_LSPACT) != 0; }

static uint32_t read_xpsr(void) { return read_handle(xpsr_register); }

/* Adds a cost and its range to the counters (the cycles modulo 2^64, so a negative one takes back). */
static void charge(unsigned int vcpu_index, int64_t cycles_added, int64_t below_added, int64_t above_added)
{
    if (cycles_added)
        qemu_plugin_u64_add(cycles, vcpu_index, (uint64_t)cycles_added);
    run_time_below += below_added;
    run_time_above += above_added;
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

/* core=cortex-m4f: the first FPU instruction since an entry reserved a floating-point context's space:
 * it stalls while s0-s15 and FPSCR are written there (the deferred, lazy, store). */
static void on_lazy_store(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    if (timing->condition != CONDITION_ALWAYS && condition_failed)
        return; /* a skipped instruction makes no FP check */
    qemu_plugin_u64_set(lazy_pending, vcpu_index, 0);
    if (tracing)
        fprintf(trace, "%" PRIu64 " f fp-lazy-store %d\n", qemu_plugin_u64_get(logged, vcpu_index),
                TIMING_FP_LAZY_STORE);
    charge(vcpu_index, TIMING_FP_LAZY_STORE, 0, TIMING_FP_LAZY_STORE_MOST - TIMING_FP_LAZY_STORE);
}

/* DIV and the long multiplies: their cycles depend on their operands. */
static void on_operands(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    if (timing->condition != CONDITION_ALWAYS && condition_failed)
        return;
    uint32_t rn = read_register(timing->rn), rm = read_register(timing->rm);
    struct cost cost = cortex_m_operand_cycles(core, timing->operands, rn, rm);
    charge(vcpu_index, cost.cycles, cost.below, cost.above);
}

/* A branch to a register or a loaded value: an EXC_RETURN value there returns from an exception. */
static void on_indirect(unsigned int vcpu_index, void *userdata)
{
    const struct insn_timing *timing = userdata;
    uint32_t target;
    if (timing->condition != CONDITION_ALWAYS && condition_failed)
        return;
    if (timing->indirect_register != 0xFF)
        target = read_register(timing->indirect_register);
    else if (timing->pops_pc_from_sp)
        target = read_word(read_register(13) + 4u * (timing->pops_pc_from_sp - 1u));
    else
        return;
    if (target >= (core == CORE_CORTEX_M4F ? EXC_RETURN_FP_BASE : EXC_RETURN_BASE)) {
        /* Figure 5-5: the unstacking starts after the return's last fetch and then fetches the
         * return target: it replaces the refill the branch was charged with */
        exception_returning = 1;
        returning_extended = core == CORE_CORTEX_M4F && !(target & EXC_RETURN_BASIC_FRAME);
        returning_lazy = returning_extended && lazy_state_active();
        charge(vcpu_index, -(int64_t)timing->refill, -(int64_t)timing->refill_below, -(int64_t)timing->refill_above);
    }
}

static int is_handler(uint64_t address)
{
    for (int i = 0; i < handler_count; i++)
        if (handlers[i] == address)
            return 1;
    return 0;
}

/* Whether `block` went on to `address` by its own flow (fall-through or branch). */
static int flows_to(const struct block *block, uint64_t address)
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

/* switch_word=: a flow event, with the current-task variable's value. */
static void log_switch_flow(const char *what, uint64_t address, const char *more, const struct counters *at)
{
    char suffix[96];
    snprintf(suffix, sizeof suffix, "@%" PRIx64 ":%" PRIx32 "%s", address, read_word((uint32_t)switch_word), more);
    log_event(what, suffix, at);
}

/* switch_word=: the return to thread mode, with the name of the task it returns to. */
static void log_resume(unsigned int vcpu_index, uint64_t address)
{
    uint32_t word = read_word((uint32_t)switch_word);
    char more[2 + 2 * 32] = "";
    if (switch_name_bytes) {
        g_byte_array_set_size(register_buffer, 0);
        if (qemu_plugin_read_memory_vaddr(word + switch_name_offset, register_buffer, switch_name_bytes)) {
            char *at = more;
            at += sprintf(at, ":");
            for (unsigned i = 0; i < register_buffer->len && register_buffer->data[i]; i++)
                at += sprintf(at, "%02x", register_buffer->data[i]);
        }
    }
    struct counters now = counters_now(vcpu_index);
    log_switch_flow("resume", address, more, &now);
    if (stop_count && word != entry_word && ++stop_seen == stop_count)
        finish("end", count_cycles ? now.cycles : now.instructions);
}

/* switch_call=: in thread mode, a block starting at a switching function opens its flow; one reached
 * from inside it by a jump that is neither a call nor its own flow (its last `ldr pc`) closes it. */
static void follow_switch_call(unsigned int vcpu_index, const struct block *previous, uint64_t address)
{
    if (call_flow) {
        if (previous && in_switch_call(previous->start) && !in_switch_call(address) && !flows_to(previous, address)) {
            call_flow = 0;
            log_resume(vcpu_index, address);
        }
        return;
    }
    for (int i = 0; i < switch_call_count; i++)
        if (address == switch_calls[i][0]) {
            char more[16];
            struct counters now = counters_now(vcpu_index);
            snprintf(more, sizeof more, ":%" PRIx32, read_register(14) & ~1u);
            entry_word = read_word((uint32_t)switch_word);
            call_flow = 1 + i;
            log_switch_flow("entry", address, more, &now);
            return;
        }
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
            charge_flow(vcpu_index, "tail-chain", flow.tail_chain.cycles);
            charge(vcpu_index, 0, flow.tail_chain.below, flow.tail_chain.above);
            if (switch_word)
                log_switch_flow("chain", block->start, "", &before_flow);
            return;
        }
        if (returning_extended) {
            /* a frame with the FP context: 3.9.1's 27 cycles where s0-s15 and FPSCR were stacked. Where
             * they never were (the handler used no FPU instruction: LSPACT still set), the return
             * clears LSPACT and unstacks only the 8 registers (ARMv7-M ARM, ExceptionReturn): 10, though
             * 3.9.1 names 27 for any frame with an active FP context: the range takes that */
            qemu_plugin_u64_set(lazy_pending, vcpu_index, 0);
            if (returning_lazy) {
                charge_flow(vcpu_index, "exception-return-fp-unwritten", TIMING_EXCEPTION_EXIT);
                charge(vcpu_index, 0, 0, TIMING_FP_EXIT - TIMING_EXCEPTION_EXIT);
            } else {
                charge_flow(vcpu_index, "exception-return-fp", TIMING_FP_EXIT);
            }
        } else {
            charge_flow(vcpu_index, "exception-return", flow.exit.cycles);
            charge(vcpu_index, 0, flow.exit.below, flow.exit.above);
        }
        if (nesting > 0) {
            settle_branch(vcpu_index, interrupted[--nesting], block->start);
            qemu_plugin_u64_set(in_handler, vcpu_index, (uint64_t)nesting);
        }
        if (switch_word && nesting == 0 && !in_switch_call(block->start)) {
            call_flow = 0; /* back in a task; an interrupt inside the switching function returns into it */
            log_resume(vcpu_index, block->start);
        }
        return;
    }
    if (block->starts_handler && !flows_to(previous, block->start)) {
        if (core == CORE_CORTEX_M4F && !(read_register(14) & EXC_RETURN_BASIC_FRAME)) {
            /* the interrupted code had an FP context (CONTROL.FPCA): an extended frame. With lazy stacking
             * (FPCCR.LSPEN, on from reset) the entry reserves its space and leaves LSPACT set: 12 cycles,
             * the deferred store comes at the first FPU instruction (on_lazy_store); without, 29 (3.9.1) */
            if (lazy_state_active()) {
                charge_flow(vcpu_index, "exception-entry-fp-reserved", TIMING_EXCEPTION_ENTRY);
                qemu_plugin_u64_set(lazy_pending, vcpu_index, 1);
            } else {
                charge_flow(vcpu_index, "exception-entry-fp", TIMING_FP_ENTRY);
            }
        } else {
            charge_flow(vcpu_index, "exception-entry", flow.entry.cycles);
            charge(vcpu_index, 0, flow.entry.below, flow.entry.above);
        }
        if (switch_word && nesting == 0 && !call_flow) {
            char more[24];
            uint32_t frame = stacked_frame();
            snprintf(more, sizeof more, ":%" PRIx32 ":%" PRIx32, read_word(frame + 24u), read_word(frame + 20u));
            entry_word = read_word((uint32_t)switch_word);
            log_switch_flow("entry", block->start, more, &before_flow);
        } else if (switch_word) {
            log_switch_flow("nest", block->start, "", &before_flow);
        }
        if (nesting < MAX_NESTING) {
            interrupted[nesting++] = previous; /* its branch is settled where execution resumes */
            qemu_plugin_u64_set(in_handler, vcpu_index, (uint64_t)nesting);
        }
        return;
    }
    settle_branch(vcpu_index, previous, block->start);
    if (switch_call_count && nesting == 0)
        follow_switch_call(vcpu_index, previous, block->start);
    /* QEMU also ends blocks where the code runs straight on (1 KB pages, I/O): a load
     * there still pipelines behind, or waits for, the instruction before it, as within a
     * block, unless that one was skipped by its IT condition. That is the load's own cost:
     * where a watch on the load logs the count before it, charged after that by
     * on_first_of_block, as the inline adds of a load within a block are; otherwise here. */
    across = (struct cost){0, 0, 0};
    if (block->first_across && previous && block->start == previous->end &&
        !(previous->last.condition != CONDITION_ALWAYS && condition_failed))
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

/* MOVW or MOVT: the register it writes and the half it sets. */
static int move_wide(uint16_t hw1, uint16_t hw2, unsigned *rd, uint32_t *imm16, int *top)
{
    if ((hw1 & 0xFBF0) != 0xF240 && (hw1 & 0xFBF0) != 0xF2C0)
        return 0;
    *rd = (hw2 >> 8) & 0xF;
    *imm16 = (hw1 & 0xF) << 12 | ((hw1 >> 10) & 1) << 11 | ((hw2 >> 12) & 7) << 8 | (hw2 & 0xFF);
    *top = (hw1 & 0x0080) != 0;
    return 1;
}

/* LDR rt, [pc, #imm] at `address`: the register it loads and the word it loads (the literal, read from
 * the image), as ARMv6-M forms an address where ARMv7-M has MOVW/MOVT. */
static int literal_load(uint64_t address, uint16_t hw1, unsigned *rd, uint32_t *value)
{
    if ((hw1 & 0xF800) != 0x4800)
        return 0;
    *rd = (hw1 >> 8) & 7;
    g_byte_array_set_size(register_buffer, 0);
    uint64_t literal = ((address + 4) & ~UINT64_C(3)) + 4u * (hw1 & 0xFF);
    if (!qemu_plugin_read_memory_vaddr(literal, register_buffer, 4) || register_buffer->len < 4)
        return 0;
    memcpy(value, register_buffer->data, 4);
    return 1;
}

/* The values MOVW and MOVT (ARMv7-M) or a literal load (ARMv6-M) put into
 * registers within a block, to recognise a load of the stamp timer: returns 1
 * when this instruction is such a load. When the block starts between the
 * address's forming and the load (QEMU ends blocks at 1 KB boundaries), the
 * instructions before it are read back. */
static int loads_stamp_register(uint64_t address, uint16_t hw1, uint16_t hw2, uint32_t known[16], uint16_t *valid)
{
    unsigned rd, rn;
    uint32_t imm16, literal;
    int top;
    if (move_wide(hw1, hw2, &rd, &imm16, &top)) {
        known[rd] = top ? (known[rd] & 0xFFFF) | imm16 << 16 : imm16;
        *valid = top ? *valid : (uint16_t)(*valid | 1u << rd);
        return 0;
    }
    if (cortex_m_is_armv6m(core) && literal_load(address, hw1, &rd, &literal)) {
        known[rd] = literal;
        *valid = (uint16_t)(*valid | 1u << rd);
        return 0;
    }
    if ((hw1 & 0xFFC0) == 0x6800) /* LDR rt, [rn, #0] */
        rn = (hw1 >> 3) & 7;
    else if ((hw1 & 0xFFF0) == 0xF8D0 && (hw2 & 0x0FFF) == 0) /* LDR.W rt, [rn, #0] */
        rn = hw1 & 0xF;
    else
        return 0;
    if (*valid >> rn & 1)
        return known[rn] == stamp_register;
    g_byte_array_set_size(register_buffer, 0);
    if (address < 8 || !qemu_plugin_read_memory_vaddr(address - 8, register_buffer, 8) || register_buffer->len < 8)
        return 0;
    uint16_t before[4];
    memcpy(before, register_buffer->data, 8);
    if (cortex_m_is_armv6m(core) && literal_load(address - 2, before[3], &rd, &literal)) /* the one just before */
        return rd == rn && literal == stamp_register;
    uint32_t low, high;
    unsigned rd_low, rd_high;
    int top_low, top_high;
    return move_wide(before[0], before[1], &rd_low, &low, &top_low) && !top_low && rd_low == rn &&
           move_wide(before[2], before[3], &rd_high, &high, &top_high) && top_high && rd_high == rn &&
           (high << 16 | low) == stamp_register;
}

/* The watches on the instruction at `address`, logging the count before it: returns 1 if any. */
static int register_watches(struct qemu_plugin_insn *insn, uint64_t address)
{
    int watched = 0;
    for (int w = 0; w < watch_count; w++)
        if (watches[w].address == address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_watched, QEMU_PLUGIN_CB_NO_REGS, &watches[w]);
            watched = 1;
        }
    return watched;
}

/* After the watches (which log the count before it): the trace's line, then the instruction's count. */
static void register_counting(struct qemu_plugin_insn *insn, uint64_t address)
{
    if (trace)
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_traced, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)address);
    qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, instructions, 1);
}

/*
 * core=ibex-small (RISC-V). Each instruction's own cost is added inline; what
 * only the flow shows is charged when the next block starts (on_ibex_block):
 * a taken branch, the fetch of a 32-bit instruction that a jump, branch, trap
 * or mret lands on 2 bytes past a word boundary, and an interrupt's entry. The
 * handlers are the vector tables' entries (handler=): a block starting at one
 * that its predecessor did not branch to is a trap's entry; QEMU takes
 * interrupts between blocks, so the whole block before it has run.
 */
struct ibex_block {
    uint64_t start, end;
    struct ibex_timing last;
    uint8_t first_size;
    int starts_handler;
};
static const struct ibex_block *previous_ibex_block;
static struct qemu_plugin_register *mepc_register;

static struct qemu_plugin_register *ibex_registers[32]; /* x1-x31 by their ABI names; x0 reads 0 */

static uint32_t read_ibex_register(unsigned number) { return number < 32 ? read_handle(ibex_registers[number]) : 0; }

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
        uint32_t mepc = read_handle(mepc_register);
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

/* The csrr at `address` (`word`) with the instructions around it, read from the image (a block may start or
 * end between them), is the probe's stamp sequence. */
static int is_stamp_sequence(uint64_t address, uint32_t word)
{
    uint32_t around[3];
    g_byte_array_set_size(register_buffer, 0);
    if (address < 4 || !qemu_plugin_read_memory_vaddr(address - 4, register_buffer, 12) || register_buffer->len < 12)
        return 0;
    memcpy(around, register_buffer->data, 12);
    return ibex_is_stamp(around[0], word, around[2], stamp_csr);
}

static void on_translate_ibex(struct qemu_plugin_tb *tb)
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
        register_watches(insn, address);
        if (stamp_csr && timing.reads_csr == stamp_csr && is_stamp_sequence(address, word))
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_watched, QEMU_PLUGIN_CB_NO_REGS, &stamp_watch);
        register_counting(insn, address);
        if (!count_cycles)
            continue;
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, cycles, timing.cycles);
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

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    if (ibex_core) {
        on_translate_ibex(tb);
        return;
    }
    size_t count = qemu_plugin_tb_n_insns(tb);
    struct block *block = count_cycles ? calloc(1, sizeof *block) : NULL;
    struct insn_timing previous = {0}, timing = {0};
    uint32_t known[16];
    uint16_t valid = 0;
    struct it_state it = {0}; /* an IT block that a 1 KB page boundary cuts is timed unconditionally after the cut */
    for (size_t i = 0; i < count; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t address = qemu_plugin_insn_vaddr(insn);
        uint16_t halfwords[2] = {0, 0};
        qemu_plugin_insn_data(insn, halfwords, qemu_plugin_insn_size(insn) < 4 ? 2 : 4);
        int watched = latency_irq >= 0 || trace; /* something logs the count before this instruction */
        if (latency_irq >= 0) { /* first: the assertion comes before any watch on the same instruction */
            void *at = (void *)(uintptr_t)address;
            if (latency_arm && address == latency_arm)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_latency_arm, QEMU_PLUGIN_CB_R_REGS, NULL);
            if (!latency_arm || address == latency_handler)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_latency_poll, QEMU_PLUGIN_CB_R_REGS, at);
            else
                qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_latency_poll, QEMU_PLUGIN_CB_R_REGS,
                                                            QEMU_PLUGIN_COND_GT, latency_countdown,
                                                            LATENCY_POLLING_FROM, at);
            if (latency_arm)
                qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                                    latency_countdown, UINT64_MAX);
        }
        watched |= register_watches(insn, address);
        if (stamp_register && loads_stamp_register(address, halfwords[0], halfwords[1], known, &valid)) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_watched, QEMU_PLUGIN_CB_NO_REGS, &stamp_watch);
            watched = 1;
        }
        register_counting(insn, address);
        if (!count_cycles)
            continue;
        cortex_m_timing(core, (uint32_t)address, halfwords[0], halfwords[1], i ? &previous : NULL, &timing);
        timing.condition = cortex_m_it_condition(&it, halfwords[0]);
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, cycles, timing.cycles);
        if (i == 0 && (timing.is_memory || timing.address_mask)) {
            block->first_across = watched ? ACROSS_AFTER_WATCHES : ACROSS_AT_START;
            if (watched) /* after the watches: its own cost */
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_first_of_block, QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        if (timing.below)
            qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, below, timing.below);
        if (timing.above)
            qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, above, timing.above);
        int conditional = timing.condition != CONDITION_ALWAYS;
        int after_conditional = i && previous.condition != CONDITION_ALWAYS &&
                                (timing.pipelined || timing.address_stall || timing.fp_stall);
        if (conditional || after_conditional || timing.operands != OPERANDS_NONE || timing.flow == FLOW_INDIRECT) {
            struct insn_timing *kept = malloc(sizeof *kept); /* lives as long as the translation */
            *kept = timing;
            if (after_conditional) /* before its own condition replaces the previous instruction's */
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_after_conditional, QEMU_PLUGIN_CB_R_REGS, kept);
            if (conditional) /* first of its own: the others need to know whether it executes */
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_conditional, QEMU_PLUGIN_CB_R_REGS, kept);
            if (timing.operands != OPERANDS_NONE)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_operands, QEMU_PLUGIN_CB_R_REGS, kept);
            else if (timing.flow == FLOW_INDIRECT)
                qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_indirect, QEMU_PLUGIN_CB_R_REGS,
                                                            QEMU_PLUGIN_COND_NE, in_handler, 0, kept);
        }
        if (timing.is_fp) { /* last: the deferred store is part of this instruction's own cost */
            struct insn_timing *kept = malloc(sizeof *kept);
            *kept = timing;
            qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_lazy_store, QEMU_PLUGIN_CB_NO_REGS,
                                                        QEMU_PLUGIN_COND_NE, lazy_pending, 0, kept);
        }
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
        int reads = switch_word || (core == CORE_CORTEX_M4F && block->starts_handler);
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, reads ? QEMU_PLUGIN_CB_R_REGS : QEMU_PLUGIN_CB_NO_REGS,
                                             block);
    }
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    (void)id;
    (void)vcpu_index;
    static const char *const names[16][2] = {
        {"r0", ""}, {"r1", ""}, {"r2", ""}, {"r3", ""}, {"r4", ""}, {"r5", ""}, {"r6", ""}, {"r7", ""},
        {"r8", ""}, {"r9", ""}, {"r10", ""}, {"r11", ""}, {"r12", ""}, {"sp", "r13"}, {"lr", "r14"}, {"pc", "r15"},
    };
    GArray *found = qemu_plugin_get_registers();
    const qemu_plugin_reg_descriptor *descriptors = (const qemu_plugin_reg_descriptor *)found->data;
    static const char *const abi_names[32] = {
        "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
        "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
    };
    for (unsigned i = 0; i < found->len; i++) {
        if (ibex_core) {
            if (!strcmp(descriptors[i].name, "mepc"))
                mepc_register = descriptors[i].handle;
            for (int r = 1; r < 32; r++)
                if (!strcmp(descriptors[i].name, abi_names[r]) || (r == 8 && !strcmp(descriptors[i].name, "s0")))
                    ibex_registers[r] = descriptors[i].handle;
            continue;
        }
        if (!strcmp(descriptors[i].name, "xpsr"))
            xpsr_register = descriptors[i].handle;
        if (!strcmp(descriptors[i].name, "psp"))
            psp_register = descriptors[i].handle;
        for (int r = 0; r < 16; r++)
            if (!registers[r] && (!strcmp(descriptors[i].name, names[r][0]) || !strcmp(descriptors[i].name, names[r][1])))
                registers[r] = descriptors[i].handle;
    }
    register_buffer = g_byte_array_new();
    if (latency_arm)
        qemu_plugin_u64_set(latency_countdown, vcpu_index, LATENCY_IDLE);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    fprintf(events, "%" PRIu64 " end\n", qemu_plugin_u64_get(logged, 0));
    fclose(events);
    if (trace)
        fclose(trace);
}

static int parse_address_name(const char *text, uint64_t *address, char *name, size_t room)
{
    char *colon = NULL;
    *address = strtoull(text, &colon, 0);
    if (!colon || *colon != ':' || strlen(colon + 1) >= room)
        return -1;
    strcpy(name, colon + 1);
    return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strncmp(arg, "out=", 4)) {
            out = arg + 4;
        } else if (!strncmp(arg, "stop=", 5)) {
            stop_count = strtoull(arg + 5, NULL, 0);
        } else if (!strncmp(arg, "trace=", 6)) {
            trace = fopen(arg + 6, "w");
            if (!trace) {
                fprintf(stderr, "switchscope plugin: cannot write %s\n", arg + 6);
                return -1;
            }
        } else if (!strncmp(arg, "trace_window=", 13)) {
            trace_window = strtoull(arg + 13, NULL, 0);
        } else if (!strncmp(arg, "limit=", 6)) {
            event_limit = strtoull(arg + 6, NULL, 0);
        } else if (!strcmp(arg, "unit=cycles") || !strcmp(arg, "unit=instructions")) {
            count_cycles = !strcmp(arg, "unit=cycles");
        } else if (!strcmp(arg, "core=cortex-m3") || !strcmp(arg, "core=cortex-m4") || !strcmp(arg, "core=cortex-m4f") ||
                   !strcmp(arg, "core=cortex-m0") || !strcmp(arg, "core=cortex-m0plus")) {
            core = !strcmp(arg, "core=cortex-m4")       ? CORE_CORTEX_M4
                   : !strcmp(arg, "core=cortex-m4f")    ? CORE_CORTEX_M4F
                   : !strcmp(arg, "core=cortex-m0")     ? CORE_CORTEX_M0
                   : !strcmp(arg, "core=cortex-m0plus") ? CORE_CORTEX_M0PLUS
                                                        : CORE_CORTEX_M3;
        } else if (!strcmp(arg, "core=ibex-small") || !strcmp(arg, "core=ibex-small-documentation")) {
            ibex_core = 1;
            if (!strcmp(arg, "core=ibex-small-documentation"))
                ibex_costs = (struct ibex_costs)IBEX_COSTS_DOCUMENTED;
        } else if (!strncmp(arg, "stamp_csr=", 10)) {
            stamp_csr = (uint16_t)strtoul(arg + 10, NULL, 0);
        } else if (!strncmp(arg, "stamp=", 6)) {
            stamp_register = strtoull(arg + 6, NULL, 0);
        } else if (!strncmp(arg, "latency_irq=", 12)) {
            latency_irq = (int)strtol(arg + 12, NULL, 0);
        } else if (!strncmp(arg, "latency_arm=", 12)) {
            latency_arm = strtoull(arg + 12, NULL, 0) & ~1ull;
        } else if (!strncmp(arg, "latency_counts=", 15)) {
            char *slash = NULL;
            latency_counts_num = strtoull(arg + 15, &slash, 0);
            latency_counts_den = slash && *slash == '/' ? strtoull(slash + 1, NULL, 0) : 1;
            if (!latency_counts_num || !latency_counts_den) {
                fprintf(stderr, "switchscope plugin: latency_counts=NUM/DEN expected (both above 0), got %s\n", arg);
                return -1;
            }
        } else if (!strncmp(arg, "latency_handler=", 16)) {
            latency_handler = strtoull(arg + 16, NULL, 0) & ~1ull;
        } else if (!strncmp(arg, "switch_word=", 12)) {
            switch_word = strtoull(arg + 12, NULL, 0);
        } else if (!strncmp(arg, "switch_name=", 12)) {
            char *colon = NULL;
            switch_name_offset = (uint32_t)strtoul(arg + 12, &colon, 0);
            switch_name_bytes = colon && *colon == ':' ? (uint32_t)strtoul(colon + 1, NULL, 0) : 0;
            if (!switch_name_bytes || switch_name_bytes > 32) {
                fprintf(stderr, "switchscope plugin: switch_name=OFFSET:BYTES expected (1 to 32 bytes), got %s\n", arg);
                return -1;
            }
        } else if (!strncmp(arg, "switch_call=", 12) && switch_call_count < MAX_SWITCH_CALLS) {
            char *colon = NULL;
            uint64_t *range = switch_calls[switch_call_count++];
            range[0] = strtoull(arg + 12, &colon, 0) & ~1ull;
            range[1] = colon && *colon == ':' ? strtoull(colon + 1, NULL, 0) : 0;
            if (range[1] <= range[0]) {
                fprintf(stderr, "switchscope plugin: switch_call=START:END expected (END past START), got %s\n", arg);
                return -1;
            }
        } else if (!strncmp(arg, "handler=", 8) && handler_count < MAX_HANDLERS) {
            handlers[handler_count++] = strtoull(arg + 8, NULL, 0) & ~1ull;
        } else if (!strncmp(arg, "watch=", 6) && watch_count < MAX_WATCHES) {
            if (parse_address_name(arg + 6, &watches[watch_count].address, watches[watch_count].name,
                                   sizeof watches[0].name)) {
                fprintf(stderr, "switchscope plugin: watch=ADDRESS:NAME expected, got %s\n", arg);
                return -1;
            }
            watch_count++;
        } else {
            fprintf(stderr, "switchscope plugin: unknown argument %s\n", arg);
            return -1;
        }
    }
    flow = cortex_m_flow_costs(core);
    events = fopen(out ? out : "/dev/null", "w");
    if (!events) {
        fprintf(stderr, "switchscope plugin: cannot write %s\n", out);
        return -1;
    }
    setvbuf(events, NULL, _IOFBF, 1 << 20);
    board = qemu_plugin_scoreboard_new(sizeof(struct counters));
    instructions = (qemu_plugin_u64){board, offsetof(struct counters, instructions)};
    cycles = (qemu_plugin_u64){board, offsetof(struct counters, cycles)};
    below = (qemu_plugin_u64){board, offsetof(struct counters, below)};
    above = (qemu_plugin_u64){board, offsetof(struct counters, above)};
    logged = count_cycles ? cycles : instructions;
    flow_board = qemu_plugin_scoreboard_new(sizeof(uint64_t));
    in_handler = (qemu_plugin_u64){flow_board, 0};
    latency_countdown = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0};
    lazy_pending = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0};
    if (latency_irq >= 0 && (latency_irq > 479 || !latency_handler)) {
        fprintf(stderr, "switchscope plugin: latency_irq= takes 0 to 479, with latency_handler=ADDRESS\n");
        return -1;
    }
    if (ibex_core && (switch_word || latency_irq >= 0)) {
        fprintf(stderr, "switchscope plugin: core=ibex-small follows no switch_word= or latency_irq= "
                        "(the Cortex-M exception flow): measure those on the RTL\n");
        return -1;
    }
    if (switch_word && !count_cycles) {
        fprintf(stderr, "switchscope plugin: switch_word= follows the exception flow the timing model tracks: "
                        "add unit=cycles\n");
        return -1;
    }
    if (count_cycles || latency_irq >= 0)
        qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
