/*
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
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchscope_plugin.h"

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
static const char assert_name[] = "assert";

int latency_argument(const char *arg)
{
    if (!strncmp(arg, "latency_irq=", 12)) {
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
    } else {
        return 0;
    }
    return 1;
}

int latency_active(void) { return latency_irq >= 0; }

int latency_check(void)
{
    if (latency_irq >= 0 && (latency_irq > 479 || !latency_handler)) {
        fprintf(stderr, "switchscope plugin: latency_irq= takes 0 to 479, with latency_handler=ADDRESS\n");
        return -1;
    }
    return 0;
}

void latency_start(void) { latency_countdown = (qemu_plugin_u64){qemu_plugin_scoreboard_new(sizeof(uint64_t)), 0}; }

void latency_vcpu_init(unsigned int vcpu_index)
{
    if (latency_arm)
        qemu_plugin_u64_set(latency_countdown, vcpu_index, LATENCY_IDLE);
}

/* Before every instruction while latency_countdown says the timer may be running and its assertion is not
 * logged yet (registered first); at the handler's first instruction always. */
static void on_latency_poll(unsigned int vcpu_index, void *userdata)
{
    uint64_t address = (uint64_t)(uintptr_t)userdata;
    char suffix[24];
    if (address == latency_handler) {
        if (!latency_seen) { /* taken at once: asserted where the entry began, at the address it stacked */
            struct counters at = count_cycles ? before_flow : counters_now(vcpu_index);
            snprintf(suffix, sizeof suffix, "@%" PRIx32, stacked_pc());
            log_event(assert_name, suffix, &at);
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
        log_event(assert_name, suffix, &now);
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

/* First of an instruction's callbacks: the assertion comes before any watch on the same instruction.
 * Returns 1 when it logs the count before the instruction. */
int register_latency(struct qemu_plugin_insn *insn, uint64_t address)
{
    if (latency_irq < 0)
        return 0;
    void *at = (void *)(uintptr_t)address;
    if (latency_arm && address == latency_arm)
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_latency_arm, QEMU_PLUGIN_CB_R_REGS, NULL);
    if (!latency_arm || address == latency_handler)
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_latency_poll, QEMU_PLUGIN_CB_R_REGS, at);
    else
        qemu_plugin_register_vcpu_insn_exec_cond_cb(insn, on_latency_poll, QEMU_PLUGIN_CB_R_REGS,
                                                    QEMU_PLUGIN_COND_GT, latency_countdown, LATENCY_POLLING_FROM, at);
    if (latency_arm)
        qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(insn, QEMU_PLUGIN_INLINE_ADD_U64, latency_countdown,
                                                            UINT64_MAX);
    return 1;
}
