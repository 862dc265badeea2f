/*
 * The event log (out=): a line "<count> <name>" per event, the count before
 * it of instructions, or with unit=cycles "<cycles> <name> <instructions>
 * <least> <most>": the model's cycles, then the least and the most cycles the
 * TRM allows for the same instructions. The log ends with "<count> end".
 *
 * With limit=COUNT the plugin ends QEMU after that many events in all, so a
 * watch reached in a tight loop cannot fill the disk; the log then ends with
 * "<count> limit". With stop=COUNT it ends QEMU once COUNT intervals
 * (watches.c) or switches (switches.c) are complete, for firmware that never
 * ends by itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "switchscope_plugin.h"

static const char *events_path;
static FILE *events;
static uint64_t stop_count, stop_seen, event_limit, events_written;

int event_log_argument(const char *arg)
{
    if (!strncmp(arg, "out=", 4))
        events_path = arg + 4;
    else if (!strncmp(arg, "stop=", 5))
        stop_count = strtoull(arg + 5, NULL, 0);
    else if (!strncmp(arg, "limit=", 6))
        event_limit = strtoull(arg + 6, NULL, 0);
    else
        return 0;
    return 1;
}

int event_log_open(void)
{
    events = fopen(events_path ? events_path : "/dev/null", "w");
    if (!events) {
        fprintf(stderr, "switchscope plugin: cannot write %s\n", events_path);
        return -1;
    }
    setvbuf(events, NULL, _IOFBF, 1 << 20);
    return 0;
}

void log_event(const char *name, const char *suffix, const struct counters *at)
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

int stop_reached(void) { return stop_count && ++stop_seen == stop_count; }

void close_logs(const char *word, uint64_t count)
{
    fprintf(events, "%" PRIu64 " %s\n", count, word);
    fclose(events);
    trace_close();
}

void finish(const char *word, uint64_t count)
{
    close_logs(word, count);
    _exit(0); /* nothing of QEMU's needs saving: the run is complete */
}
