/*
 * Ibex behind a slow RAM (ibex_fetch_ws=N, ibex_data_ws=M, ibex_ram=START:SIZE):
 * the stalls a memory with wait states adds to core=ibex-small's cycles, which
 * count a single-cycle RAM. The memory is the RTL harness's
 * (host/verilator-harness/wait_states.sv): a request held N cycles is granted,
 * and its word arrives the cycle after the grant. The rules, each stated once,
 * from Ibex's doc/03_reference/ unless marked measured (docs/measurement.md
 * holds them against the RTL; tests/run/test_ibex_model.py and
 * tests/run/test_ibex_slow_memory.py have the rulers):
 *
 *  F1 instruction_fetch.rst: "This buffer simply fetches instructions
 *     linearly until it is full", its FIFO "DEPTH ... 3": the next word's
 *     request goes out the cycle after the last grant, unless three words are
 *     fetched or under way and not yet taken by the ID/EX stage (a word is
 *     taken when the instruction holding its last halfword enters ID/EX).
 *  F2 One request at a time on the port (instruction_fetch.rst's interface
 *     table: instr_req_o "must stay high until instr_gnt_i is high"): a word
 *     presented in cycle c is granted in c + N and its instruction can be in
 *     ID/EX in c + N + 2, so at 0 wait states the single-cycle RAM's figures
 *     hold.
 *  F3 pipeline_details.rst: a jump stalls "to flush the prefetch counter and
 *     begin fetching from the new Program Counter", and so do a taken branch,
 *     a trap, mret and an interrupt: the request goes out two cycles before
 *     the target would enter ID/EX at 0 wait states (three for a 32-bit
 *     target 2 bytes past a word: instruction_fetch.rst, "two separate
 *     word-aligned instruction fetches").
 *  F4 measured: a request already presented holds the port until its grant,
 *     so the new program counter's request waits for it. The documentation's
 *     reading (core=ibex-small-documentation) sends it at once: in straight
 *     code a jump costs N + 2 by that reading, 2N + 2 on the RTL.
 *  D1 load_store_unit.rst: a load or store "will stall the ID/EX stage ... to
 *     await the response": an access to the slow RAM costs its M wait states
 *     on top (the rest of the machine's registers answer at once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_timing.h"
#include "switchscope_plugin.h"

int ibex_fetch_active;
static unsigned fetch_wait_states, data_wait_states;
static uint64_t slow_start, slow_end;
static int redirect_waits_for_grant = 1; /* F4; 0 in the documentation's reading */

#define FIFO_DEPTH 3
#define WORDS_KEPT 8 /* the stream's last words: F1 looks at the three most recently taken */
#define NOT_TAKEN INT64_MAX
struct fetched_word {
    uint64_t address;
    int64_t granted;
    int64_t taken; /* the cycle before the ID/EX stage took it (the FIFO's pop), NOT_TAKEN until then */
};
static struct fetched_word words[WORDS_KEPT];
static unsigned word_count;        /* words of the current stream in `words`, the oldest dropped past WORDS_KEPT */
static int64_t last_grant;
static uint64_t next_word, expected;
static int started;

int ibex_fetch_argument(const char *arg)
{
    char *end;
    if (!strncmp(arg, "ibex_fetch_ws=", 14) || !strncmp(arg, "ibex_data_ws=", 13)) {
        const char *value = strchr(arg, '=') + 1;
        unsigned long wait_states = strtoul(value, &end, 10);
        if (end == value || *end || wait_states > 255) {
            fprintf(stderr, "switchscope plugin: %s: 0 to 255 wait states\n", arg);
            return -1;
        }
        *(arg[5] == 'f' ? &fetch_wait_states : &data_wait_states) = (unsigned)wait_states;
        return 1;
    }
    if (!strncmp(arg, "ibex_ram=", 9)) {
        slow_start = strtoull(arg + 9, &end, 0);
        if (*end != ':' || (slow_end = slow_start + strtoull(end + 1, &end, 0)) <= slow_start || *end) {
            fprintf(stderr, "switchscope plugin: %s is not ibex_ram=START:SIZE\n", arg);
            return -1;
        }
        return 1;
    }
    return 0;
}

void ibex_fetch_start(void)
{
    redirect_waits_for_grant = !ibex_documentation_reading;
    ibex_fetch_active = count_cycles && ibex_core && slow_end && (fetch_wait_states || data_wait_states);
}

static unsigned kept_words(void) { return word_count < WORDS_KEPT ? word_count : WORDS_KEPT; }

/* F1: the first cycle the next word's request may go out: the port free, and the third latest of the words
 * fetched or under way taken from the FIFO. */
static int64_t next_request_cycle(void)
{
    int64_t latest[FIFO_DEPTH]; /* the latest cycles a word was taken, latest first */
    for (unsigned rank = 0; rank < FIFO_DEPTH; rank++)
        latest[rank] = INT64_MIN;
    for (unsigned i = 0; i < kept_words(); i++) {
        int64_t taken = words[i].taken;
        for (unsigned rank = 0; rank < FIFO_DEPTH; rank++) /* in its place, the later ones moved down */
            if (taken > latest[rank]) {
                int64_t later = latest[rank];
                latest[rank] = taken;
                taken = later;
            }
    }
    int64_t third = latest[FIFO_DEPTH - 1];
    if (third == NOT_TAKEN)
        return NOT_TAKEN;
    int64_t room = third == INT64_MIN ? INT64_MIN : third + 1;
    return room > last_grant + 1 ? room : last_grant + 1;
}

static void request_next_word(int64_t cycle)
{
    struct fetched_word *word = &words[word_count++ % WORDS_KEPT];
    *word = (struct fetched_word){next_word, cycle + (int64_t)fetch_wait_states, NOT_TAKEN};
    last_grant = word->granted;
    next_word += 4;
}

static const struct fetched_word *requested(uint64_t address)
{
    for (unsigned i = 0; i < kept_words(); i++)
        if (words[i].address == address)
            return &words[i];
    return NULL;
}

/* F3, F4: the stream restarts at `address`, whose 0-wait-state cycle in ID/EX is `now`. */
static void redirect(uint64_t address, unsigned size, int64_t now)
{
    int64_t sent = now - 2 - (size == 4 && (address & 3u) == 2u);
    if (started) { /* the words the old stream asked for before the new program counter came */
        int64_t cycle;
        while ((cycle = next_request_cycle()) < sent)
            request_next_word(cycle);
    }
    if (started && redirect_waits_for_grant && last_grant >= sent)
        sent = last_grant + 1;
    word_count = 0;
    next_word = address & ~(uint64_t)3;
    last_grant = sent - 1;
}

static void on_ibex_fetch(unsigned int vcpu_index, void *userdata)
{
    uintptr_t packed = (uintptr_t)userdata;
    uint64_t address = packed & ~(uintptr_t)1;
    unsigned size = (packed & 1) ? 4 : 2;
    int64_t now = (int64_t)counters_now(vcpu_index).cycles;
    if (!started || address != expected)
        redirect(address, size, now);
    started = 1;
    uint64_t last = (address + size - 1) & ~(uint64_t)3;
    const struct fetched_word *word;
    while ((word = requested(last)) == NULL) {
        int64_t cycle = next_request_cycle();
        request_next_word(cycle == NOT_TAKEN ? last_grant + 1 : cycle);
    }
    int64_t ready = word->granted + 2, entered = ready > now ? ready : now;
    if (entered > now)
        charge(vcpu_index, entered - now, 0, 0);
    for (unsigned i = 0; i < kept_words(); i++)
        if (words[i].taken == NOT_TAKEN && words[i].address + 4 <= address + size)
            words[i].taken = entered - 1;
    expected = address + size;
}

/* D1: a load or store to the slow RAM. */
static void on_ibex_access(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    (void)info;
    (void)userdata;
    if (vaddr >= slow_start && vaddr < slow_end)
        charge(vcpu_index, data_wait_states, 0, 0);
}

void register_ibex_fetch(struct qemu_plugin_insn *insn, uint64_t address, unsigned size)
{
    if (ibex_fetch_active && fetch_wait_states)
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_ibex_fetch, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)(address | (size == 4)));
}

void register_ibex_access(struct qemu_plugin_insn *insn, const struct ibex_timing *timing)
{
    if (ibex_fetch_active && data_wait_states && timing->accesses_memory)
        qemu_plugin_register_vcpu_mem_cb(insn, on_ibex_access, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
}
