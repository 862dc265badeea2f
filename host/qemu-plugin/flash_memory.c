/*
 * The chip's flash and the accelerator in front of it (flash=, with unit=cycles on a Cortex-M core):
 * what each instruction fetch, literal load and load from the flash costs beyond the core's own
 * cycles, which the core's model counts at zero wait states. Without flash= nothing here registers
 * a callback.
 *
 *   flash=START:SIZE:READ_BYTES   the region, and what one flash read gives
 *   flash_ws=N                    the wait states (without flash_register=, or forced)
 *   flash_force_ws=1              flash_ws, whatever the firmware programs
 *   flash_prefetch=1              a prefetch buffer of the next sequential read
 *   flash_icache=LINES:BYTES:WAYS, flash_dcache=LINES:BYTES:WAYS   the caches (set-associative, LRU)
 *   flash_register=ADDRESS:LAYOUT:RESET  the control register (FLASH_ACR) whose stores the plugin
 *                                 follows: stm32f4 (RM0090, RM0394) or stm32f1 (RM0008); the chip
 *                                 leaves reset with the register at RESET (0 on the F4: 0 WS, every
 *                                 part off; 0x600 on the L4: both caches on; 0x30 on the F1: prefetch on)
 *   flash_accelerator=on|off      every part present forced on, or all off
 *
 * The rules, each once with its source (docs/measurement.md, "The flash and its accelerator", has the
 * same table). RM0090 3.5.2 is the STM32F405/407's ART accelerator; the STM32L4's and the F1's words are
 * quoted from the manuals of the same flash interface (RM0440's ART, RM0364's prefetch buffer) where the
 * text at hand was theirs. WS: the wait states in force; a read: READ_BYTES aligned.
 *
 * | rule | point | range | source |
 * |---|---|---|---|
 * | one read gives READ_BYTES | 16 (F4), 8 (L4, F1) | - | RM0090: "Each flash memory read operation provides 128 bits from either four instructions of 32 bits or 8 instructions of 16 bits" |
 * | an instruction within the read being served costs nothing more | 0 | 0 | the same: the line "provides" every instruction in it; RM0440: "If a loop is present in the current buffer, no new flash access is performed" |
 * | a 32-bit instruction across two reads | both reads, one after the other | - | the model's: it needs both halves |
 * | a read that is neither the current one, nor prefetched, nor cached (a miss) | WS | WS; after a branch + what a prefetch in flight still needs | RM0090: "the penalty in terms of number of cycles is at least equal to the number of wait states"; the point: the branch's read starts at once (the prefetch abandoned), the most: it waits for the prefetch |
 * | the next sequential read, no prefetch | WS, the read asked when the instruction that needs it starts | 0 to WS | the model's: when the core's prefetch unit asks for a sequential read the manuals do not say; at the earliest it hides it all |
 * | prefetch | the next read starts when the current one is delivered, ready 1 + WS cycles later; the instruction that needs it waits what is left | - | RM0090: "Prefetch on the I-Code bus can be used to read the next sequential instruction line from the flash memory while the current instruction line is being requested by the CPU"; "in case of sequential code, at least four CPU cycles are needed to execute the previous read instruction line" |
 * | I-cache hit | 0 | - | RM0090: "If some data contained in the instruction cache memory are requested by the CPU, they are provided without inserting any delay" |
 * | I-cache fill | only on a miss; a read the prefetch gave is not copied | - | RM0090: "Each time a miss occurs (requested data not present in the currently used instruction line, in the prefetched instruction line or in the instruction cache memory), the line read is copied into the instruction cache memory" |
 * | I-cache replacement | least recently used, per set | - | RM0090: "Once all the instruction cache memory lines have been filled, the LRU (least recently used) policy is used" |
 * | a cache line of several reads (STM32L4: 4 x 64 bits) | one line a LINE_BYTES-aligned block, each read in it valid once read: a miss reads one read, not the four | - | RM0440 (the L4's ART): "it is possible to retain 32 lines of 4 x 64 bits"; how the four are filled is not said: the model's choice |
 * | literal load (LDR, LDRD, VLDR from [pc]), any other load from the flash | WS unless the D-cache holds it | - | RM0090: "Literal pools are fetched from flash memory through the D-Code bus during the execution stage of the CPU pipeline. The CPU pipeline is consequently stalled until the requested literal pool is provided." |
 * | a data read while a prefetch is in flight | the prefetch finishes 1 + WS later | - | RM0090: "accesses through the AHB databus D-Code have priority over accesses through the AHB instruction bus I-Code" |
 * | D-cache | as the I-cache, filled by data reads that miss | - | RM0090: "This feature works like the instruction cache memory, but the retained data size is limited to 8 rows of 128 bits" |
 * | exception entry: the vector read | hidden behind the stacking | + WS | Cortex-M4 Devices Generic User Guide, exception entry: "In parallel with the stacking operation, the processor performs a vector fetch that reads the exception handler start address from the vector table"; the most: its wait states not hidden |
 * | exception entry: the handler's first read | as any read (WS on a miss) | 0 to that | the same: "When stacking is complete, the processor starts executing the exception handler"; whether its read starts before, inside the TRM's twelve cycles, is not said: the model's |
 * | FLASH_ACR (stm32f4) | LATENCY 3:0, PRFTEN 8, ICEN 9, DCEN 10; ICRST 11, DCRST 12 empty that cache | - | RM0090 3.9.1 (reset value 0: 0 WS, every part off); RM0394's FLASH_ACR resets to 0x600 (both caches on) |
 * | FLASH_ACR (stm32f1) | LATENCY 2:0, PRFTBE 4; HLFCYA 3 changes nothing timed | - | RM0008 3.3.3; the F1's prefetch buffer is the current read and the next: RM0364: "The prefetch buffer is 2 blocks wide where each block consists of 8 bytes" |
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "switchscope_plugin.h"

#define NO_READ UINT64_MAX
#define SP 13
#define PC 15

struct flash_cache {
    unsigned lines, line_bytes, ways, sets;
    uint64_t *blocks;   /* the line-aligned block each line holds */
    uint32_t *valid;    /* which reads of the line are in it (bit per read) */
    uint64_t *used;     /* when each line was last used: LRU */
    uint64_t clock;
};

enum layout { LAYOUT_NONE, LAYOUT_STM32F4, LAYOUT_STM32F1 };

int flash_active;
static int flash_given;
static uint64_t flash_base, flash_size;
static unsigned read_bytes;
static unsigned ws_argument, wait_states;
static int force_ws, has_prefetch, forced_accelerator = -1;
static struct flash_cache icache, dcache;
static uint64_t register_address;
static enum layout register_layout;
static uint32_t register_reset; /* the register's value out of reset */
/* the parts in force, as the register (or the arguments) set them */
static int prefetch_on, icache_on, dcache_on;
/* the I-Code side: the read being served, and the one the prefetch brings */
static uint64_t current_read = NO_READ, prefetch_read = NO_READ, prefetch_ready;
static int entering; /* an exception entry's handler is about to be fetched */

static int parse_cache(const char *text, struct flash_cache *cache)
{
    if (sscanf(text, "%u:%u:%u", &cache->lines, &cache->line_bytes, &cache->ways) != 3 || !cache->lines ||
        !cache->ways || cache->lines % cache->ways || !cache->line_bytes)
        return -1;
    cache->sets = cache->lines / cache->ways;
    cache->blocks = calloc(cache->lines, sizeof *cache->blocks);
    cache->valid = calloc(cache->lines, sizeof *cache->valid);
    cache->used = calloc(cache->lines, sizeof *cache->used);
    return 0;
}

int flash_argument(const char *arg)
{
    char layout[16] = "";
    int bad = 0;
    if (!strncmp(arg, "flash=", 6)) {
        flash_given = 1;
        bad = sscanf(arg + 6, "%" SCNx64 ":%" SCNx64 ":%u", &flash_base, &flash_size, &read_bytes) != 3 || !read_bytes;
    } else if (!strncmp(arg, "flash_ws=", 9)) {
        ws_argument = (unsigned)strtoul(arg + 9, NULL, 0);
    } else if (!strcmp(arg, "flash_force_ws=1")) {
        force_ws = 1;
    } else if (!strcmp(arg, "flash_prefetch=1")) {
        has_prefetch = 1;
    } else if (!strncmp(arg, "flash_icache=", 13)) {
        bad = parse_cache(arg + 13, &icache);
    } else if (!strncmp(arg, "flash_dcache=", 13)) {
        bad = parse_cache(arg + 13, &dcache);
    } else if (!strncmp(arg, "flash_register=", 15)) {
        bad = sscanf(arg + 15, "%" SCNx64 ":%15[^:]:%" SCNx32, &register_address, layout, &register_reset) != 3;
        register_layout = !strcmp(layout, "stm32f4") ? LAYOUT_STM32F4 : !strcmp(layout, "stm32f1") ? LAYOUT_STM32F1
                                                                                                  : LAYOUT_NONE;
        bad |= register_layout == LAYOUT_NONE;
    } else if (!strcmp(arg, "flash_accelerator=on") || !strcmp(arg, "flash_accelerator=off")) {
        forced_accelerator = !strcmp(arg, "flash_accelerator=on");
    } else {
        return 0;
    }
    if (bad) {
        fprintf(stderr, "switchscope plugin: %s is not what flash_memory.c's arguments say\n", arg);
        return -1;
    }
    return 1;
}

static void empty(struct flash_cache *cache)
{
    if (cache->lines)
        memset(cache->valid, 0, cache->lines * sizeof *cache->valid);
}

/* What the register (or the arguments, or a forced setting) puts in force. */
static void set_parts(unsigned programmed_ws, int prefetch, int instruction_cache, int data_cache)
{
    wait_states = force_ws ? ws_argument : programmed_ws;
    if (forced_accelerator >= 0)
        prefetch = instruction_cache = data_cache = forced_accelerator;
    prefetch_on = prefetch && has_prefetch;
    icache_on = instruction_cache && icache.lines;
    dcache_on = data_cache && dcache.lines;
    if (!prefetch_on)
        prefetch_read = NO_READ;
}

static void follow_register(uint32_t value);

/* A cache's line holds whole reads, at most 32 of them (a bit each). */
static int fits(const struct flash_cache *cache)
{
    return !cache->lines || (cache->line_bytes % read_bytes == 0 && cache->line_bytes / read_bytes <= 32);
}

int flash_start(void)
{
    flash_active = flash_given && count_cycles && !ibex_core;
    if (!flash_active)
        return 0;
    if (!fits(&icache) || !fits(&dcache)) {
        fprintf(stderr, "switchscope plugin: a flash cache's line must hold 1 to 32 whole reads of %u bytes\n",
                read_bytes);
        return -1;
    }
    if (register_layout != LAYOUT_NONE)
        follow_register(register_reset); /* out of reset, until the firmware programs it */
    else
        set_parts(ws_argument, 1, 1, 1);
    return 0;
}

static int in_flash(uint64_t address) { return address >= flash_base && address - flash_base < flash_size; }

/* Whether the cache holds the read at `address`; a hit becomes the most recently used. */
static int cache_hit(struct flash_cache *cache, uint64_t address)
{
    uint64_t block = address / cache->line_bytes;
    uint32_t bit = 1u << ((address % cache->line_bytes) / read_bytes);
    unsigned first = (unsigned)(block % cache->sets) * cache->ways;
    for (unsigned way = first; way < first + cache->ways; way++)
        if (cache->blocks[way] == block && (cache->valid[way] & bit)) {
            cache->used[way] = ++cache->clock;
            return 1;
        }
    return 0;
}

/* The read at `address` copied in: into its block's line if it has one, else the least recently used line. */
static void cache_fill(struct flash_cache *cache, uint64_t address)
{
    uint64_t block = address / cache->line_bytes;
    uint32_t bit = 1u << ((address % cache->line_bytes) / read_bytes);
    unsigned first = (unsigned)(block % cache->sets) * cache->ways, chosen = first;
    for (unsigned way = first; way < first + cache->ways; way++) {
        if (cache->valid[way] && cache->blocks[way] == block) {
            chosen = way;
            break;
        }
        if (!cache->valid[way] ? cache->valid[chosen] || cache->used[way] < cache->used[chosen]
                               : cache->valid[chosen] && cache->used[way] < cache->used[chosen])
            chosen = way;
    }
    if (cache->blocks[chosen] != block || !cache->valid[chosen])
        cache->valid[chosen] = 0;
    cache->blocks[chosen] = block;
    cache->valid[chosen] |= bit;
    cache->used[chosen] = ++cache->clock;
}

/* The I-Code side serves `read` (a read's index) to an instruction at cycle `now`: the stall and its range. */
static struct cost serve_fetch(unsigned int vcpu_index, uint64_t read, uint64_t now)
{
    struct cost cost = {0, 0, 0};
    const char *what;
    int sequential = current_read != NO_READ && read == current_read + 1;
    if (icache_on && cache_hit(&icache, read * read_bytes)) {
        what = "flash-icache-hit";
    } else if (prefetch_on && read == prefetch_read) {
        what = "flash-prefetch";
        cost.cycles = prefetch_ready > now ? (int32_t)(prefetch_ready - now) : 0;
    } else {
        what = "flash-read";
        cost.cycles = (int32_t)wait_states;
        if (sequential)
            cost.below = wait_states;
        else if (prefetch_on && prefetch_read != NO_READ && prefetch_ready > now)
            cost.above = (uint32_t)(prefetch_ready - now); /* the branch's read waits for the prefetch */
        if (icache_on)
            cache_fill(&icache, read * read_bytes);
    }
    trace_flow(logged_count(vcpu_index), what, cost.cycles);
    current_read = read;
    if (prefetch_on) {
        prefetch_read = in_flash((read + 1) * read_bytes) ? read + 1 : NO_READ;
        prefetch_ready = now + (uint64_t)cost.cycles + 1 + wait_states;
    }
    return cost;
}

/* An instruction whose fetch starts a read other than the previous instruction's: its reads in turn. */
static void on_fetch(unsigned int vcpu_index, void *userdata)
{
    uintptr_t packed = (uintptr_t)userdata;
    uint64_t address = packed & ~(uintptr_t)1, end = address + ((packed & 1) ? 4 : 2);
    uint64_t now = counters_now(vcpu_index).cycles;
    struct cost total = {0, 0, 0};
    for (uint64_t read = address / read_bytes; read <= (end - 1) / read_bytes; read++) {
        if (read == current_read)
            continue;
        struct cost cost = serve_fetch(vcpu_index, read, now + (uint64_t)total.cycles);
        total.cycles += cost.cycles;
        total.below += cost.below;
        total.above += cost.above;
    }
    if (entering) { /* the handler's first read may hide in the entry; the vector read may not */
        entering = 0;
        total.below = (uint32_t)total.cycles;
        total.above += wait_states;
    }
    charge(vcpu_index, total.cycles, total.below, total.above);
}

/* A read through the D-Code bus (a literal, a constant, a table): the D-cache, or the flash before the I-Code. */
static void data_read(unsigned int vcpu_index, uint64_t address, unsigned bytes, const char *what)
{
    int32_t stall = 0;
    for (uint64_t read = address / read_bytes; read <= (address + bytes - 1) / read_bytes; read++) {
        if (dcache_on && cache_hit(&dcache, read * read_bytes)) {
            trace_flow(logged_count(vcpu_index), "flash-dcache-hit", 0);
            continue;
        }
        stall += (int32_t)wait_states;
        trace_flow(logged_count(vcpu_index), what, wait_states);
        if (dcache_on)
            cache_fill(&dcache, read * read_bytes);
        uint64_t now = counters_now(vcpu_index).cycles;
        if (prefetch_on && prefetch_read != NO_READ && prefetch_ready > now)
            prefetch_ready += 1 + wait_states; /* the D-Code read goes first */
    }
    if (stall)
        charge(vcpu_index, stall, 0, 0);
}

/* A load from [pc, #imm] whose address and size translation knew, and the instruction's timing (its IT condition). */
struct literal_load {
    uint64_t address;
    unsigned bytes;
    struct insn_timing timing;
};

static void on_literal(unsigned int vcpu_index, void *userdata)
{
    const struct literal_load *load = userdata;
    if (!skipped_by_condition(&load->timing))
        data_read(vcpu_index, load->address, load->bytes, "flash-literal");
}

static void follow_register(uint32_t value)
{
    if (register_layout == LAYOUT_STM32F4) {
        if (value & 1u << 11)
            empty(&icache);
        if (value & 1u << 12)
            empty(&dcache);
        set_parts(value & 0xF, (value >> 8) & 1, (value >> 9) & 1, (value >> 10) & 1);
    } else {
        set_parts(value & 7, (value >> 4) & 1, 0, 0);
    }
}

static void on_memory(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
    (void)userdata;
    if (qemu_plugin_mem_is_store(info)) {
        if (register_layout != LAYOUT_NONE && vaddr == register_address) {
            qemu_plugin_mem_value value = qemu_plugin_mem_get_value(info);
            follow_register(value.type == QEMU_PLUGIN_MEM_VALUE_U32 ? value.data.u32
                            : value.type == QEMU_PLUGIN_MEM_VALUE_U16 ? value.data.u16 : value.data.u8);
        }
        return;
    }
    if (in_flash(vaddr))
        data_read(vcpu_index, vaddr, 1u << qemu_plugin_mem_size_shift(info), "flash-data");
}

/* A load from [pc, #imm]: its address and size, known at translation (0 when it is none). */
static unsigned literal(uint64_t address, uint16_t hw1, uint16_t hw2, uint64_t *at)
{
    uint64_t base = (address + 4) & ~(uint64_t)3;
    unsigned masked = hw1 & 0xFF7F, imm = hw2 & 0xFFF, up = hw1 & 0x80, size = 0;
    if ((hw1 & 0xF800) == 0x4800) {
        *at = base + (hw1 & 0xFFu) * 4;
        return 4;
    }
    if (masked == 0xF85F)
        size = 4;
    else if ((masked == 0xF81F || masked == 0xF91F) && (hw2 >> 12) != PC)
        size = 1;
    else if ((masked == 0xF83F || masked == 0xF93F) && (hw2 >> 12) != PC)
        size = 2;
    else if ((hw1 & 0xFE7F) == 0xE85F) /* LDRD */
        size = 8, imm = (hw2 & 0xFFu) * 4;
    else if ((hw1 & 0xFF3F) == 0xED1F && (hw2 & 0x0E00) == 0x0A00) /* VLDR */
        size = (hw2 & 0x100) ? 8 : 4, imm = (hw2 & 0xFFu) * 4;
    if (size)
        *at = up ? base + imm : base - imm;
    return size;
}

void register_flash_fetch(struct qemu_plugin_insn *insn, uint64_t address, uint64_t *previous_read)
{
    if (!flash_active)
        return;
    size_t size = qemu_plugin_insn_size(insn);
    uint64_t first = address / read_bytes, last = (address + size - 1) / read_bytes;
    if (in_flash(address) && (*previous_read == NO_READ || first != *previous_read || last != first))
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_fetch, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)(address | (size == 4)));
    *previous_read = last;
}

void register_flash_data(struct qemu_plugin_insn *insn, uint64_t address, uint16_t hw1, uint16_t hw2,
                         const struct insn_timing *timing)
{
    if (!flash_active)
        return;
    uint64_t at = 0;
    unsigned bytes = qemu_plugin_insn_size(insn) == 4 || (hw1 & 0xF800) == 0x4800 ? literal(address, hw1, hw2, &at)
                                                                                  : 0;
    if (bytes && in_flash(at)) { /* after the IT condition's callback: a skipped load reads nothing */
        struct literal_load *load = malloc(sizeof *load); /* lives as long as the translation */
        *load = (struct literal_load){at, bytes, *timing};
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_literal, QEMU_PLUGIN_CB_NO_REGS, load);
    } else if (!bytes && timing->address_mask && timing->address_mask != 1u << SP) {
        qemu_plugin_register_vcpu_mem_cb(insn, on_memory, QEMU_PLUGIN_CB_NO_REGS,
                                         register_layout != LAYOUT_NONE ? QEMU_PLUGIN_MEM_RW : QEMU_PLUGIN_MEM_R,
                                         NULL);
    }
}

void flash_exception_entry(void)
{
    if (flash_active)
        entering = 1;
}
