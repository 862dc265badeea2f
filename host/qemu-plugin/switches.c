/*
 * measure --switches: with switch_word=ADDRESS (a kernel's current-task
 * variable, FreeRTOS's pxCurrentTCB) and unit=cycles the plugin logs the
 * exception flow task switches are made of, each with the variable's value
 * (hex) then:
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
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchscope_plugin.h"

#define MAX_SWITCH_CALLS 8

static uint64_t switch_word;
static uint32_t switch_name_offset, switch_name_bytes;
static uint32_t entry_word; /* the word the entry saw */
static uint64_t switch_calls[MAX_SWITCH_CALLS][2]; /* [start, end) of each switching function */
static int switch_call_count;
static int call_flow; /* 1 + the switch_calls index of the switching function a task has called; 0: none */

int switches_argument(const char *arg)
{
    if (!strncmp(arg, "switch_word=", 12)) {
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
    } else {
        return 0;
    }
    return 1;
}

int switches_active(void) { return switch_word != 0; }

static int in_switch_call(uint64_t address)
{
    return call_flow && address >= switch_calls[call_flow - 1][0] && address < switch_calls[call_flow - 1][1];
}

/* A flow event, with the current-task variable's value. */
static void log_switch_flow(const char *what, uint64_t address, const char *more, const struct counters *at)
{
    char suffix[96];
    snprintf(suffix, sizeof suffix, "@%" PRIx64 ":%" PRIx32 "%s", address, read_word((uint32_t)switch_word), more);
    log_event(what, suffix, at);
}

/* The return to thread mode, with the name of the task it returns to. */
static void log_resume(unsigned int vcpu_index, uint64_t address)
{
    uint32_t word = read_word((uint32_t)switch_word);
    char more[2 + 2 * 32] = "";
    GByteArray *name = switch_name_bytes ? read_memory(word + switch_name_offset, switch_name_bytes) : NULL;
    if (name) {
        char *at = more;
        at += sprintf(at, ":");
        for (unsigned i = 0; i < name->len && name->data[i]; i++)
            at += sprintf(at, "%02x", name->data[i]);
    }
    struct counters now = counters_now(vcpu_index);
    log_switch_flow("resume", address, more, &now);
    if (word != entry_word && stop_reached())
        finish("end", count_cycles ? now.cycles : now.instructions);
}

void switch_at_entry(uint64_t handler, int nesting)
{
    if (!switch_word)
        return;
    if (nesting == 0 && !call_flow) {
        char more[24];
        uint32_t frame = stacked_frame();
        snprintf(more, sizeof more, ":%" PRIx32 ":%" PRIx32, read_word(frame + 24u), read_word(frame + 20u));
        entry_word = read_word((uint32_t)switch_word);
        log_switch_flow("entry", handler, more, &before_flow);
    } else {
        log_switch_flow("nest", handler, "", &before_flow);
    }
}

void switch_at_chain(uint64_t handler)
{
    if (switch_word)
        log_switch_flow("chain", handler, "", &before_flow);
}

/* An exception return to `address`, `nesting` exceptions still under way; an interrupt inside the
 * switching function returns into it, and its flow goes on. */
void switch_at_thread_return(unsigned int vcpu_index, uint64_t address, int nesting)
{
    if (switch_word && nesting == 0 && !in_switch_call(address)) {
        call_flow = 0; /* back in a task */
        log_resume(vcpu_index, address);
    }
}

/* switch_call=: in thread mode, a block starting at a switching function opens its flow; one reached
 * from inside it by a jump that is neither a call nor its own flow (its last `ldr pc`) closes it. */
void switch_at_block(unsigned int vcpu_index, const struct block *previous, uint64_t address, int nesting)
{
    if (!switch_call_count || nesting != 0)
        return;
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
