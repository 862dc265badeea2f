/*
 * What the plugin's files share, each part under the file that owns it: only
 * that file writes it, the others read it or act through the functions named.
 * All else a file keeps is static to it.
 *
 * Each file that takes arguments of -plugin reads them with its own
 * *_argument(arg): 1 when the argument is its own and taken, 0 when it is not
 * its own (or no more of it fit), -1 when it is refused, the reason said on
 * stderr.
 */
#ifndef SWITCHSCOPE_PLUGIN_H
#define SWITCHSCOPE_PLUGIN_H

#include <stdint.h>

#include "cortex_m_timing.h"
#include "qemu_plugin_api.h"

/* counters.c: what has run, counted inline before every instruction, and what the flow charges at run time */
struct counters {
    uint64_t instructions;
    uint64_t cycles;
    uint64_t below, above; /* how far the TRM lets the cycles go down and up */
};
extern int count_cycles;             /* unit=cycles: the log counts modelled cycles */
extern struct counters before_flow;  /* the counters before the last exception entry or tail-chain */
int counters_argument(const char *arg);
void counters_start(void);
struct counters counters_now(unsigned int vcpu_index);
uint64_t logged_count(unsigned int vcpu_index); /* the counter the log reports: cycles or instructions */
/* Adds a cost and its range to the counters (the cycles modulo 2^64, so a negative one takes back). */
void charge(unsigned int vcpu_index, int64_t cycles_added, int64_t below_added, int64_t above_added);
/* A cost of the flow itself (exception entry, return, tail-chain), charged now, noted in before_flow. */
void charge_flow(unsigned int vcpu_index, const char *what, int64_t cycles_added);
/* After the watches (which log the count before it): the trace's line, then the instruction's count. */
void register_counting(struct qemu_plugin_insn *insn, uint64_t address);
void register_cycles(struct qemu_plugin_insn *insn, uint64_t cycles);
void register_range(struct qemu_plugin_insn *insn, uint64_t below, uint64_t above);

/* event_log.c: the log of events (out=), its limit (limit=) and the end of the run (stop=) */
int event_log_argument(const char *arg);
int event_log_open(void);
void log_event(const char *name, const char *suffix, const struct counters *at);
/* One more interval or switch complete: whether it is the last stop= asks for. */
int stop_reached(void);
void close_logs(const char *word, uint64_t count);
void finish(const char *word, uint64_t count) __attribute__((noreturn));

/* trace.c: every instruction of one interval (trace=, trace_window=) */
int trace_argument(const char *arg);
int trace_enabled(void);
void trace_at_watch(const char *name, uint64_t before);
void trace_register(struct qemu_plugin_insn *insn, uint64_t address);
void trace_flow(uint64_t count, const char *what, int64_t cycles_added);
void trace_close(void);

/* watches.c: the watched addresses (watch=), the scope pin's edges among them (pin1, pin0) */
struct watch {
    uint64_t address;
    char name[24];
};
int watches_argument(const char *arg);
int register_watches(struct qemu_plugin_insn *insn, uint64_t address);
void on_watched(unsigned int vcpu_index, void *userdata);

/* guest.c: the guest's registers and memory as the callbacks read them, and its handlers (handler=) */
int guest_argument(const char *arg);
void guest_find_registers(int riscv);
int is_handler(uint64_t address);
uint32_t read_register(unsigned number);      /* Cortex-M r0-r15 */
uint32_t read_xpsr(void);
uint32_t read_word(uint32_t address);
GByteArray *read_memory(uint64_t address, size_t bytes); /* NULL where it cannot be read */
uint32_t stacked_frame(void);
uint32_t stacked_pc(void);
uint32_t read_ibex_register(unsigned number); /* x1-x31; x0 reads 0 */
uint32_t read_mepc(void);

/* stamps.c: the probe's reads of its timer (stamp=, stamp_csr=), logged as "stamp" */
int stamps_argument(const char *arg);
int register_cortex_m_stamp(struct qemu_plugin_insn *insn, uint64_t address, uint16_t hw1, uint16_t hw2,
                            uint32_t known[16], uint16_t *valid);
void register_ibex_stamp(struct qemu_plugin_insn *insn, uint64_t address, uint32_t word, uint16_t reads_csr);

/* latency.c: where the latency timer's interrupt was asserted (latency_irq= and the rest) */
int latency_argument(const char *arg);
int latency_active(void);
int latency_check(void);
void latency_start(void);
void latency_vcpu_init(unsigned int vcpu_index);
int register_latency(struct qemu_plugin_insn *insn, uint64_t address);

/* cortex_m_flow.c: the Cortex-M core, its blocks and its exception flow */
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
extern enum core_model cortex_m_core;
int cortex_m_argument(const char *arg);
void cortex_m_start(void);
void cortex_m_translate(struct qemu_plugin_tb *tb);
/* Whether `block` went on to `address` by its own flow (fall-through or branch). */
int flows_to(const struct block *block, uint64_t address);
/* Whether the instruction of an IT block now executing does not execute. */
int skipped_by_condition(const struct insn_timing *timing);

/* cortex_m_lazy_fp.c: core=cortex-m4f's floating-point context at exceptions, stored lazily */
void lazy_fp_start(void);
int lazy_fp_entry(unsigned int vcpu_index);
void lazy_fp_return_branch(uint32_t exc_return);
int lazy_fp_return(unsigned int vcpu_index);
void register_lazy_store(struct qemu_plugin_insn *insn, const struct insn_timing *timing);

/* switches.c: the exception flow task switches are made of (switch_word=, switch_name=, switch_call=) */
int switches_argument(const char *arg);
int switches_active(void);
void switch_at_entry(uint64_t handler, int nesting);
void switch_at_chain(uint64_t handler);
void switch_at_thread_return(unsigned int vcpu_index, uint64_t address, int nesting);
void switch_at_block(unsigned int vcpu_index, const struct block *previous, uint64_t address, int nesting);

/* flash_memory.c: the chip's flash, its wait states, prefetch and caches (flash= and the rest), charged
 * on top of the core's cycles; flash_active only with flash= and unit=cycles on a Cortex-M core */
extern int flash_active;
int flash_argument(const char *arg);
int flash_start(void);
/* For each instruction of a block in turn, before its cycles are added: a callback where its fetch starts a read
 * other than the previous instruction's (`previous_read`: that one's last read, carried from instruction to
 * instruction, UINT64_MAX at a block's start). */
void register_flash_fetch(struct qemu_plugin_insn *insn, uint64_t address, uint64_t *previous_read);
/* After its run-time costs: its literal load, its loads from the flash, its stores to the flash's register. */
void register_flash_data(struct qemu_plugin_insn *insn, uint64_t address, uint16_t hw1, uint16_t hw2,
                         const struct insn_timing *timing);
/* An exception entry or tail-chain: the next fetch is the handler's first. */
void flash_exception_entry(void);

/* ibex_flow.c: core=ibex-small (RISC-V), its blocks and its traps */
extern int ibex_core;
extern int ibex_documentation_reading; /* core=ibex-small-documentation */
int ibex_argument(const char *arg);
void ibex_translate(struct qemu_plugin_tb *tb);

/* ibex_fetch.c: Ibex's instruction fetch and data accesses behind a slow RAM (ibex_fetch_ws= and the rest),
 * charged on top of core=ibex-small's single-cycle RAM; ibex_fetch_active only with unit=cycles */
struct ibex_timing;
extern int ibex_fetch_active;
int ibex_fetch_argument(const char *arg);
void ibex_fetch_start(void);
/* Before the watches: the instruction's fetch stall, from the prefetch buffer's words under way. */
void register_ibex_fetch(struct qemu_plugin_insn *insn, uint64_t address, unsigned size);
/* A load's or store's wait states, where it reaches the slow RAM. */
void register_ibex_access(struct qemu_plugin_insn *insn, const struct ibex_timing *timing);

#endif
