/*
 * With trace=PATH (and trace_window=K, default 0) the plugin writes, for the
 * K-th interval opened (by a watch named "from" or "open"), one line per
 * instruction executed in it, "<count> i <address>", the count before the
 * instruction; one per exception entry, return or tail-chain the timing model
 * charges, "<count> f <what> <cycles>"; and "<count> end" where a watch named
 * "to" or "close" ends it. An instruction's cost is the count of the next
 * line less its own, less the charges listed between.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchscope_plugin.h"

static FILE *trace;
static uint64_t trace_window; /* which interval, counted from 0 */
static uint64_t intervals_opened;
static int tracing;

int trace_argument(const char *arg)
{
    if (!strncmp(arg, "trace=", 6)) {
        trace = fopen(arg + 6, "w");
        if (!trace) {
            fprintf(stderr, "switchscope plugin: cannot write %s\n", arg + 6);
            return -1;
        }
    } else if (!strncmp(arg, "trace_window=", 13)) {
        trace_window = strtoull(arg + 13, NULL, 0);
    } else {
        return 0;
    }
    return 1;
}

int trace_enabled(void) { return trace != NULL; }

/* A watch reached, `before` the count before it: it may open or close the traced interval. */
void trace_at_watch(const char *name, uint64_t before)
{
    if (!trace)
        return;
    int opens = !strcmp(name, "from") || !strcmp(name, "open");
    if (tracing && (!strcmp(name, "to") || !strcmp(name, "close"))) {
        fprintf(trace, "%" PRIu64 " end\n", before);
        fflush(trace);
        tracing = 0;
    } else if (opens && intervals_opened++ == trace_window) {
        tracing = 1;
    }
}

/* An instruction of the traced interval, its count before it (registered after the watches). */
static void on_traced(unsigned int vcpu_index, void *userdata)
{
    if (tracing)
        fprintf(trace, "%" PRIu64 " i %" PRIx64 "\n", logged_count(vcpu_index), (uint64_t)(uintptr_t)userdata);
}

void trace_register(struct qemu_plugin_insn *insn, uint64_t address)
{
    if (trace)
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_traced, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)address);
}

void trace_flow(uint64_t count, const char *what, int64_t cycles_added)
{
    if (tracing)
        fprintf(trace, "%" PRIu64 " f %s %" PRId64 "\n", count, what, cycles_added);
}

void trace_close(void)
{
    if (trace)
        fclose(trace);
}
