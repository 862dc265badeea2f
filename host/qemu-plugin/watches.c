/*
 * watch=ADDRESS:NAME logs "<count> NAME" each time execution reaches the
 * address, the count of what ran before the instruction there. Watches at one
 * address are reported in the order given. A watch named "to" reached after
 * one named "from" completes an interval, which stop= counts. The scope pin's
 * edges are watches too, named pin1 and pin0, at the pin's two stores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchscope_plugin.h"

#define MAX_WATCHES 64

static struct watch watches[MAX_WATCHES];
static int watch_count;
static int interval_open;

static int parse_address_name(const char *text, uint64_t *address, char *name, size_t room)
{
    char *colon = NULL;
    *address = strtoull(text, &colon, 0);
    if (!colon || *colon != ':' || strlen(colon + 1) >= room)
        return -1;
    strcpy(name, colon + 1);
    return 0;
}

int watches_argument(const char *arg)
{
    if (strncmp(arg, "watch=", 6) || watch_count >= MAX_WATCHES)
        return 0;
    if (parse_address_name(arg + 6, &watches[watch_count].address, watches[watch_count].name,
                           sizeof watches[0].name)) {
        fprintf(stderr, "switchscope plugin: watch=ADDRESS:NAME expected, got %s\n", arg);
        return -1;
    }
    watch_count++;
    return 1;
}

void on_watched(unsigned int vcpu_index, void *userdata)
{
    const struct watch *watch = userdata;
    /* registered before the instruction's own adds: the count is of what ran before it */
    uint64_t before = logged_count(vcpu_index);
    struct counters now = counters_now(vcpu_index);
    log_event(watch->name, "", &now);
    trace_at_watch(watch->name, before);
    if (!strcmp(watch->name, "from")) {
        interval_open = 1;
    } else if (interval_open && !strcmp(watch->name, "to")) {
        interval_open = 0;
        if (stop_reached())
            finish("end", before);
    }
}

/* The watches on the instruction at `address`, logging the count before it: returns 1 if any. */
int register_watches(struct qemu_plugin_insn *insn, uint64_t address)
{
    int watched = 0;
    for (int w = 0; w < watch_count; w++)
        if (watches[w].address == address) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_watched, QEMU_PLUGIN_CB_NO_REGS, &watches[w]);
            watched = 1;
        }
    return watched;
}
