/*
 * switchscope's QEMU plugin: counts every executed instruction and, through
 * the timing model of the core, its cycles; writes a line "<count> <name>"
 * each time execution reaches one of the watched addresses, the count of what
 * ran before the watched instruction.
 *
 *   -plugin libswitchscope.so,out=EVENTS,watch=0x1234:from,watch=0x1240:to
 *           [,unit=cycles,core=cortex-m3,handler=0x400,...][,stop=1000][,limit=N]
 *
 * One concern a file, each with its arguments (said in full there):
 *   event_log.c         out=, limit=, stop=: the log's lines and the end of the run
 *   counters.c          unit=: instructions, or cycles through the core's timing model
 *   watches.c           watch=: the watched addresses, the scope pin's edges among them
 *   trace.c             trace=, trace_window=: every instruction of one interval
 *   guest.c             handler=: where exceptions enter; the registers and memory callbacks read
 *   stamps.c            stamp=, stamp_csr=: the probe's reads of its timer
 *   latency.c           latency_irq=, latency_handler=, latency_arm=, latency_counts=: irq-latency
 *   switches.c          switch_word=, switch_name=, switch_call=: measure --switches
 *   cortex_m_flow.c     core=cortex-m0, cortex-m0plus, cortex-m3, cortex-m4, cortex-m4f: the blocks and
 *                       the exception flow of a Cortex-M, timed by cortex_m_timing.c
 *   cortex_m_lazy_fp.c  core=cortex-m4f: the floating-point context at exceptions
 *   flash_memory.c      flash= and the rest: the chip's flash, its wait states, prefetch and caches
 *   ibex_flow.c         core=ibex-small, ibex-small-documentation: the blocks and traps of Ibex, timed
 *                       by ibex_timing.c
 *   ibex_fetch.c        ibex_fetch_ws=, ibex_data_ws=, ibex_ram=: Ibex's prefetch behind a slow RAM
 * switchscope_plugin.h says what they share and which of them owns it. This
 * file reads the arguments, hands each translated block to the core's file
 * and ends the log when QEMU exits.
 *
 * unit=cycles needs every exception handler's address (handler=). The
 * Cortex-M exception flow (switch_word=, latency_irq=) is not followed on Ibex.
 */
#include <stdio.h>

#include "switchscope_plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = SWITCHSCOPE_QEMU_PLUGIN_API_VERSION;

static int (*const argument_readers[])(const char *arg) = {
    event_log_argument, trace_argument, counters_argument, cortex_m_argument, ibex_argument,
    stamps_argument,    latency_argument, switches_argument, guest_argument, watches_argument, flash_argument,
    ibex_fetch_argument,
};

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    if (ibex_core)
        ibex_translate(tb);
    else
        cortex_m_translate(tb);
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
    (void)id;
    guest_find_registers(ibex_core);
    latency_vcpu_init(vcpu_index);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    close_logs("end", logged_count(0));
}

/* Each argument to the file that takes it: 1 taken, -1 refused (said), 0 when no file takes it. */
static int read_argument(const char *arg)
{
    for (size_t r = 0; r < sizeof argument_readers / sizeof argument_readers[0]; r++) {
        int taken = argument_readers[r](arg);
        if (taken)
            return taken;
    }
    fprintf(stderr, "switchscope plugin: unknown argument %s\n", arg);
    return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++)
        if (read_argument(argv[i]) < 0)
            return -1;
    if (event_log_open())
        return -1;
    counters_start();
    cortex_m_start();
    latency_start();
    lazy_fp_start();
    if (flash_start())
        return -1;
    ibex_fetch_start();
    if (latency_check())
        return -1;
    if (ibex_core && (switches_active() || latency_active())) {
        fprintf(stderr, "switchscope plugin: core=ibex-small follows no switch_word= or latency_irq= "
                        "(the Cortex-M exception flow): measure those on the RTL\n");
        return -1;
    }
    if (switches_active() && !count_cycles) {
        fprintf(stderr, "switchscope plugin: switch_word= follows the exception flow the timing model tracks: "
                        "add unit=cycles\n");
        return -1;
    }
    if (count_cycles || latency_active())
        qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
    return 0;
}
