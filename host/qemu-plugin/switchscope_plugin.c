/*
 * switchscope's QEMU plugin: counts every executed instruction and writes a
 * line "<count> <name>" each time execution reaches one of the watched
 * addresses. The count is of the instructions executed before the watched one.
 *
 *   -plugin libswitchscope.so,out=EVENTS,watch=0x1234:from,watch=0x1240:to[,stop=1000]
 *
 * With stop=COUNT the plugin ends QEMU once COUNT intervals are complete: a
 * watch named "to" reached after one named "from" (for firmware that never
 * ends by itself). With limit=COUNT it ends QEMU after that many events in
 * all, so a watch reached in a tight loop cannot fill the disk; the log then
 * ends with "<count> limit". Watches at one address are reported in the order given.
 *
 * The counter is an inline add before every instruction rather than one per
 * translation block: when an I/O access forces QEMU to re-execute an
 * instruction, it does so without those adds, so nothing is counted twice.
 * It lives in a scoreboard (one entry per vCPU; M-profile machines have one).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = SWITCHSCOPE_QEMU_PLUGIN_API_VERSION;

#define MAX_WATCHES 64

struct watch {
    uint64_t address;
    char name[24];
};

static qemu_plugin_u64 executed;
static struct watch watches[MAX_WATCHES];
static int watch_count;
static FILE *events;
static uint64_t stop_count, stop_seen, event_limit, events_written;
static int interval_open;

static void on_watched(unsigned int vcpu_index, void *userdata)
{
    const struct watch *watch = userdata;
    /* the inline add for this instruction has already run */
    uint64_t before = qemu_plugin_u64_get(executed, vcpu_index) - 1;
    fprintf(events, "%" PRIu64 " %s\n", before, watch->name);
    if (event_limit && ++events_written == event_limit) {
        fprintf(events, "%" PRIu64 " limit\n", before);
        fclose(events);
        _exit(0);
    }
    if (!strcmp(watch->name, "from"))
        interval_open = 1;
    if (stop_count && interval_open && !strcmp(watch->name, "to") && (interval_open = 0, ++stop_seen == stop_count)) {
        fprintf(events, "%" PRIu64 " end\n", before);
        fclose(events);
        _exit(0); /* nothing of QEMU's needs saving: the run is complete */
    }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t count = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < count; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, executed, 1);
        uint64_t address = qemu_plugin_insn_vaddr(insn);
        for (int w = 0; w < watch_count; w++)
            if (watches[w].address == address)
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_watched, QEMU_PLUGIN_CB_NO_REGS, &watches[w]);
    }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    fprintf(events, "%" PRIu64 " end\n", qemu_plugin_u64_get(executed, 0));
    fclose(events);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    const char *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "out=", 4)) {
            out = argv[i] + 4;
        } else if (!strncmp(argv[i], "stop=", 5)) {
            stop_count = strtoull(argv[i] + 5, NULL, 0);
        } else if (!strncmp(argv[i], "limit=", 6)) {
            event_limit = strtoull(argv[i] + 6, NULL, 0);
        } else if (!strncmp(argv[i], "watch=", 6) && watch_count < MAX_WATCHES) {
            char *colon = NULL;
            watches[watch_count].address = strtoull(argv[i] + 6, &colon, 0);
            if (!colon || *colon != ':' || strlen(colon + 1) >= sizeof watches[0].name) {
                fprintf(stderr, "switchscope plugin: watch=ADDRESS:NAME expected, got %s\n", argv[i]);
                return -1;
            }
            strcpy(watches[watch_count].name, colon + 1);
            watch_count++;
        } else {
            fprintf(stderr, "switchscope plugin: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    events = fopen(out ? out : "/dev/null", "w");
    if (!events) {
        fprintf(stderr, "switchscope plugin: cannot write %s\n", out);
        return -1;
    }
    setvbuf(events, NULL, _IOFBF, 1 << 20);
    executed = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0};
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
