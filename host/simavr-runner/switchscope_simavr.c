/*
 * switchscope-simavr: runs an AVR firmware on libsimavr, as fast as the host
 * allows, and reports exactly what happened and when.
 *
 *   switchscope-simavr --mcu atmega328p --frequency 16000000 --firmware F.elf
 *       [--max-cycles N] [--parameters-at ADDR --parameters TEXT]
 *       [--pin B5 ...] [--pin-log FILE] [--exit-register ADDR]
 *       [--interrupt-entry-cycles N] [--watch ADDR:NAME ... --watch-log FILE [--stop COUNT] [--limit COUNT]]
 *       [--latency-vector N --latency-timer T]
 *       [--switch-word ADDR [--switch-name OFFSET:BYTES] --switch-path ADDR ...]
 *
 * UART0 output goes to stdout, byte for byte. Every change of a watched pin is
 * appended to the pin log as "<cycle> <pin> <level>". Each time the program
 * counter reaches a watched code address (a byte address, as in the ELF), the
 * watch log gets "<cycle> <name>": the cycle at which that instruction starts.
 * With --stop the run ends once COUNT intervals are complete: a watch named
 * "to" reached after one named "from". With --limit the run ends after that
 * many watch events in all (the log then ends "<cycle> limit"), so a watch
 * reached in a tight loop cannot fill the disk. With --latency-vector (the
 * irq-latency scenarios: the vector of the compare unit A of timer T, T being
 * simavr's name for it, e.g. 1) the watch log also gets
 * "<cycle> assert@<address>" each time that interrupt is raised while
 * enabled: the cycle at which the timer set its flag, and the byte address of
 * the instruction executing then. With --switch-word (a kernel's current-task
 * variable, a data address: FreeRTOS's pxCurrentTCB) the watch log gets the
 * flow task switches are made of, as the QEMU plugin writes it, each with the
 * variable's value (hex):
 *   "<cycle> entry@<address>:<word>:<return>"  an interrupt taken, or a
 *       --switch-path function called, while no such flow is open: the
 *       vector's address (the cycle before the entry) or the function's, and
 *       the address it will return to;
 *   "<cycle> nest@<vector>:<word>"      an interrupt taken inside the flow;
 *   "<cycle> chain@<function>:<word>"   a --switch-path function entered in it;
 *   "<cycle> resume@<address>:<word>[:<name>]"  the flow's end: the first
 *       instruction after a RET or RETI that leaves interrupts enabled (a
 *       task runs with them enabled; a handler, and a kernel switching,
 *       without), with the task's name read at word+OFFSET (hex bytes up to
 *       its NUL) given --switch-name.
 * --stop then counts resumes whose word is not the one the entry saw. The last line on stderr
 * says how the run ended:
 *   "switchscope-simavr: done code=C cycles=N"     firmware slept with interrupts off
 *   "switchscope-simavr: budget cycles=N"          the cycle budget ran out
 *   "switchscope-simavr: crashed pc=0xP cycles=N"  simavr stopped the core
 * with exit status 0, 10 and 11 respectively (2 for bad usage or firmware).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <simavr/avr_ioport.h>
#include <simavr/avr_timer.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_interrupts.h>

#define MAX_PINS 8
#define MAX_WATCHES 64
#define MAX_SWITCH_PATH 8
#define OPCODE_RET 0x9508
#define OPCODE_RETI 0x9518

struct mcu_facts;

struct watched_pin {
    char name[4]; /* e.g. "B5" */
    struct run *run;
};

struct run {
    avr_t *avr;
    FILE *uart_out; /* the real stdout: simavr itself prints to stdout */
    FILE *pin_log;
    struct watched_pin pins[MAX_PINS];
    int pin_count;
    unsigned interrupt_entry_cycles;
    uint32_t watch_address[MAX_WATCHES];
    const char *watch_name[MAX_WATCHES];
    int watch_count;
    FILE *watch_log;
    unsigned long stop_count, stop_seen, event_limit, events_written;
    int interval_open;
    unsigned latency_vector;    /* 0: none */
    avr_timer_t *latency_timer; /* whose compare unit A raises it */
    uint64_t boundary_assertion; /* its flag came at the end of the step now running */
    int boundary_pending;
    const struct mcu_facts *mcu; /* 0 when the mcu is not in known_mcus */
    /* --switch-word: the current-task variable, where a task's name lies in what it points to, the
     * functions the kernel switches in, and the flow now open (and the word its entry saw) */
    uint32_t switch_word, name_offset, name_bytes;
    uint32_t switch_path[MAX_SWITCH_PATH];
    int switch_path_count, flow_open;
    uint16_t entry_word;
};

static void usage(const char *why)
{
    fprintf(stderr, "switchscope-simavr: %s\n(see the comment at the top of switchscope_simavr.c for usage)\n", why);
    exit(2);
}

static void on_uart_byte(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    struct run *run = param;
    fputc((int)(value & 0xFF), run->uart_out);
}

static void on_pin_change(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    struct watched_pin *pin = param;
    fprintf(pin->run->pin_log, "%" PRIu64 " %s %u\n", (uint64_t)pin->run->avr->cycle, pin->name, value ? 1 : 0);
}

/* Facts the watchdog correction below needs; an MCU missing from this table
 * runs without it. */
struct mcu_facts {
    const char *name;
    int watchdog_vector;        /* WDT_vect number */
    unsigned watchdog_register; /* WDTCSR, data address */
};

static const struct mcu_facts known_mcus[] = {
    {"atmega328p", 6, 0x60},
    {"atmega168", 6, 0x60},
    {"atmega88", 6, 0x60},
};

#define WDTCSR_WDE 0x08
#define WDTCSR_WDIE 0x40

/*
 * simavr 1.6 clears WDIE whenever the watchdog interrupt has been serviced.
 * The datasheet (ATmega328P, 10.9.2) clears it only in interrupt-and-reset
 * mode (WDE=1); in plain interrupt mode, which FreeRTOS's ATmega port uses for
 * its tick, WDIE stays set and the watchdog keeps ticking. The interrupt was
 * enabled, or it would not have been entered: one cycle after the entry, once
 * simavr has cleared WDIE, this sets it again in plain interrupt mode.
 */
static avr_cycle_count_t restore_watchdog_interrupt(avr_t *avr, avr_cycle_count_t when, void *param)
{
    const struct mcu_facts *facts = param;
    if (!(avr->data[facts->watchdog_register] & WDTCSR_WDE))
        avr->data[facts->watchdog_register] |= WDTCSR_WDIE;
    (void)when;
    return 0;
}

/*
 * The latency timer's compare unit A has set its flag. simavr runs its timers
 * after each instruction, so that may have happened inside the instruction
 * that just ran: the timer's own record gives the cycle, its last overflow
 * (tov_base) plus the compare's distance from it (comp_cycles). The program
 * counter is still that instruction's (simavr moves it on after running the
 * timers): the instruction executing when the flag was set, unless the flag
 * came as it ended; then it is the next one, known once the step is over
 * (log_boundary_assertion).
 */
static void log_latency_assertion(struct run *run)
{
    avr_t *avr = run->avr;
    avr_timer_t *timer = run->latency_timer;
    uint64_t flagged = timer->tov_base + timer->comp[AVR_TIMER_COMPA].comp_cycles;
    if (flagged >= avr->cycle) { /* at the boundary (a time to come cannot be: never log one) */
        run->boundary_assertion = avr->cycle;
        run->boundary_pending = 1;
        return;
    }
    fprintf(run->watch_log, "%" PRIu64 " assert@%x\n", flagged, (unsigned)avr->pc);
}

/* After the step in which the flag came at an instruction boundary: the
 * instruction after it, where execution goes on, or, if the interrupt was
 * taken there at once, the return address it pushed (high byte at SP+1). */
static void log_boundary_assertion(struct run *run)
{
    avr_t *avr = run->avr;
    unsigned next = avr->pc;
    if (avr->pc == run->latency_vector * avr->vector_size) {
        uint16_t sp = (uint16_t)(avr->data[0x5D] | avr->data[0x5E] << 8);
        next = 2u * (unsigned)(avr->data[sp + 1] << 8 | avr->data[sp + 2]);
    }
    fprintf(run->watch_log, "%" PRIu64 " assert@%x\n", run->boundary_assertion, next);
    run->boundary_pending = 0;
}

/* --switch-word: the 16-bit variable (little-endian, as avr-gcc stores it). */
static uint16_t switch_word_now(const struct run *run)
{
    return (uint16_t)(run->avr->data[run->switch_word] | run->avr->data[run->switch_word + 1] << 8);
}

/* The byte address a call or an interrupt entry left on the stack: high byte at SP+1. */
static unsigned pushed_return(const avr_t *avr)
{
    uint16_t sp = (uint16_t)(avr->data[0x5D] | avr->data[0x5E] << 8);
    return 2u * (unsigned)(avr->data[sp + 1] << 8 | avr->data[sp + 2]);
}

/* One line of the flow, at `cycle`: 1 when the event limit is reached. */
static int log_flow(struct run *run, uint64_t cycle, const char *what, unsigned address, const char *more)
{
    fprintf(run->watch_log, "%" PRIu64 " %s@%x:%x%s\n", cycle, what, address, switch_word_now(run), more);
    if (run->event_limit && ++run->events_written == run->event_limit) {
        fprintf(run->watch_log, "%" PRIu64 " limit\n", cycle);
        return 1;
    }
    return 0;
}

/* An interrupt taken (its vector's address), before the entry's cycles are added. */
static void flow_interrupt(struct run *run, unsigned vector_address)
{
    char more[8];
    if (run->flow_open) {
        log_flow(run, run->avr->cycle, "nest", vector_address, "");
        return;
    }
    snprintf(more, sizeof more, ":%x", pushed_return(run->avr));
    run->entry_word = switch_word_now(run);
    run->flow_open = 1;
    log_flow(run, run->avr->cycle, "entry", vector_address, more);
}

/* After each step: a --switch-path function entered, or the flow's end. 1 when the run must stop. */
static int follow_switches(struct run *run, avr_flashaddr_t pc_before)
{
    avr_t *avr = run->avr;
    for (int i = 0; i < run->switch_path_count; i++) {
        if (avr->pc != run->switch_path[i])
            continue;
        if (run->flow_open)
            return log_flow(run, avr->cycle, "chain", avr->pc, "");
        char more[8];
        snprintf(more, sizeof more, ":%x", pushed_return(avr));
        run->entry_word = switch_word_now(run);
        run->flow_open = 1;
        return log_flow(run, avr->cycle, "entry", avr->pc, more);
    }
    if (!run->flow_open || !avr->sreg[S_I]) /* simavr keeps the flags in sreg[], data[SREG] only when read */
        return 0;
    uint16_t opcode = (uint16_t)(avr->flash[pc_before] | avr->flash[pc_before + 1] << 8);
    if (opcode != OPCODE_RET && opcode != OPCODE_RETI)
        return 0;
    char more[2 + 2 * 32] = "";
    uint16_t word = switch_word_now(run);
    if (run->name_bytes) {
        char *at = more + sprintf(more, ":");
        for (uint32_t i = 0; i < run->name_bytes && word + run->name_offset + i <= avr->ramend; i++) {
            uint8_t byte = avr->data[word + run->name_offset + i];
            if (!byte)
                break;
            at += sprintf(at, "%02x", byte);
        }
    }
    run->flow_open = 0;
    if (log_flow(run, avr->cycle, "resume", avr->pc, more))
        return 1;
    return run->stop_count && word != run->entry_word && ++run->stop_seen == run->stop_count;
}

/*
 * simavr 1.6 enters an interrupt in zero cycles; the ATmega328P datasheet
 * (section 6.7, "Interrupt Response Time") gives four: two to push the return
 * address, two more to jump to the vector. This is the one place that adds
 * them, so every timer and every pin edge after an interrupt entry is where
 * the real chip would put it.
 *
 * An entry is recognised as simavr's service step clearing the vector's
 * pending flag with the program counter already on the vector. (Its
 * "interrupt running" signal is no use: a kernel that switches tasks inside an
 * interrupt returns with `ret`, not `reti`, and simavr's record of running
 * interrupts then no longer matches the chip's.)
 */
struct vector_watch {
    struct run *run;
    unsigned vector;
};

static void on_vector_pending(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    struct vector_watch *watch = param;
    struct run *run = watch->run;
    avr_t *avr = run->avr;
    if (value && watch->vector == run->latency_vector && run->watch_log &&
        avr_regbit_get(avr, run->latency_timer->comp[AVR_TIMER_COMPA].interrupt.enable))
        log_latency_assertion(run); /* a disabled interrupt's flag asserts nothing */
    if (value || avr->pc != watch->vector * avr->vector_size)
        return; /* raised, or cleared by the firmware: not an entry */
    if (run->switch_word)
        flow_interrupt(run, avr->pc);
    avr->cycle += run->interrupt_entry_cycles;
    if (run->mcu && (int)watch->vector == run->mcu->watchdog_vector)
        avr_cycle_timer_register(avr, 1, restore_watchdog_interrupt, (void *)run->mcu);
}

/* Log the watches at the current program counter; 1 when the stop count is reached. */
static int check_watches(struct run *run)
{
    avr_t *avr = run->avr;
    for (int i = 0; i < run->watch_count; i++) {
        if (run->watch_address[i] != avr->pc)
            continue;
        fprintf(run->watch_log, "%" PRIu64 " %s\n", (uint64_t)avr->cycle, run->watch_name[i]);
        if (run->event_limit && ++run->events_written == run->event_limit) {
            fprintf(run->watch_log, "%" PRIu64 " limit\n", (uint64_t)avr->cycle);
            return 1;
        }
        if (!strcmp(run->watch_name[i], "from"))
            run->interval_open = 1;
        else if (run->stop_count && run->interval_open && !strcmp(run->watch_name[i], "to")) {
            run->interval_open = 0;
            if (++run->stop_seen == run->stop_count)
                return 1;
        }
    }
    return 0;
}

/* Never sleep in real time: simavr then skips straight to the next event. */
static void no_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
    (void)avr;
    (void)how_long;
}

static void silent_logger(avr_t *avr, const int level, const char *format, va_list args)
{
    (void)avr;
    if (level <= LOG_ERROR)
        vfprintf(stderr, format, args);
}

int main(int argc, char **argv)
{
    const char *mcu = NULL, *firmware_path = NULL, *parameters = NULL, *pin_log_path = NULL;
    unsigned long frequency = 0, parameters_at = 0, exit_register = 0;
    unsigned long long max_cycles = 16000000ULL * 600;
    struct run run = {.interrupt_entry_cycles = 4};
    const char *pin_names[MAX_PINS];
    char latency_timer_name = 0;

    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        if (i + 1 >= argc)
            usage("every option takes a value");
        const char *value = argv[++i];
        if (!strcmp(option, "--mcu")) mcu = value;
        else if (!strcmp(option, "--frequency")) frequency = strtoul(value, NULL, 0);
        else if (!strcmp(option, "--firmware")) firmware_path = value;
        else if (!strcmp(option, "--max-cycles")) max_cycles = strtoull(value, NULL, 0);
        else if (!strcmp(option, "--parameters-at")) parameters_at = strtoul(value, NULL, 0);
        else if (!strcmp(option, "--parameters")) parameters = value;
        else if (!strcmp(option, "--pin-log")) pin_log_path = value;
        else if (!strcmp(option, "--exit-register")) exit_register = strtoul(value, NULL, 0);
        else if (!strcmp(option, "--latency-vector")) run.latency_vector = (unsigned)strtoul(value, NULL, 0);
        else if (!strcmp(option, "--latency-timer")) latency_timer_name = value[0];
        else if (!strcmp(option, "--interrupt-entry-cycles")) run.interrupt_entry_cycles = (unsigned)strtoul(value, NULL, 0);
        else if (!strcmp(option, "--watch-log")) {
            run.watch_log = fopen(value, "w");
            if (!run.watch_log)
                usage("cannot write the watch log");
        } else if (!strcmp(option, "--watch")) {
            char *colon = NULL;
            if (run.watch_count == MAX_WATCHES)
                usage("at most 64 watches");
            run.watch_address[run.watch_count] = (uint32_t)strtoul(value, &colon, 0);
            if (!colon || *colon != ':' || !colon[1])
                usage("--watch takes ADDRESS:NAME");
            run.watch_name[run.watch_count++] = colon + 1;
        } else if (!strcmp(option, "--switch-word")) {
            run.switch_word = (uint32_t)strtoul(value, NULL, 0);
        } else if (!strcmp(option, "--switch-name")) {
            char *colon = NULL;
            run.name_offset = (uint32_t)strtoul(value, &colon, 0);
            run.name_bytes = colon && *colon == ':' ? (uint32_t)strtoul(colon + 1, NULL, 0) : 0;
            if (!run.name_bytes || run.name_bytes > 32)
                usage("--switch-name takes OFFSET:BYTES, 1 to 32 bytes");
        } else if (!strcmp(option, "--switch-path")) {
            if (run.switch_path_count == MAX_SWITCH_PATH)
                usage("at most 8 --switch-path functions");
            run.switch_path[run.switch_path_count++] = (uint32_t)strtoul(value, NULL, 0);
        } else if (!strcmp(option, "--stop")) {
            run.stop_count = strtoul(value, NULL, 0);
        } else if (!strcmp(option, "--limit")) {
            run.event_limit = strtoul(value, NULL, 0);
        } else if (!strcmp(option, "--pin")) {
            if (run.pin_count == MAX_PINS || strlen(value) != 2 || value[0] < 'A' || value[0] > 'L' || value[1] < '0' || value[1] > '7')
                usage("--pin takes a port letter and a bit, e.g. B5 (at most 8 pins)");
            pin_names[run.pin_count++] = value;
        } else
            usage("unknown option");
    }
    if (!mcu || !firmware_path || !frequency)
        usage("--mcu, --frequency and --firmware are required");

    /* Keep the real stdout for UART bytes alone; simavr's own messages
     * (it prints what it loads) go to stderr. */
    run.uart_out = fdopen(dup(STDOUT_FILENO), "wb");
    if (!run.uart_out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        usage("cannot set up the output");

    elf_firmware_t firmware;
    memset(&firmware, 0, sizeof firmware);
    if (elf_read_firmware(firmware_path, &firmware) != 0) {
        fprintf(stderr, "switchscope-simavr: cannot read firmware %s\n", firmware_path);
        return 2;
    }
    avr_global_logger_set(silent_logger);
    avr_t *avr = avr_make_mcu_by_name(mcu);
    if (!avr) {
        fprintf(stderr, "switchscope-simavr: simavr has no mcu named %s\n", mcu);
        return 2;
    }
    avr_init(avr);
    avr->frequency = (uint32_t)frequency;
    avr->sleep = no_sleep;
    avr->gdb_port = 0; /* a crash must end the run, not wait for a debugger */
    avr_load_firmware(avr, &firmware);
    run.avr = avr;

    if (parameters) {
        size_t len = strlen(parameters) + 1;
        if (!parameters_at || parameters_at + len > avr->ramend + 1u)
            usage("--parameters needs --parameters-at inside the data memory");
        memcpy(avr->data + parameters_at, parameters, len);
    }

    uint32_t uart_flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &uart_flags);
    uart_flags &= ~(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &uart_flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_uart_byte, &run);

    if (run.pin_count) {
        run.pin_log = fopen(pin_log_path ? pin_log_path : "/dev/null", "w");
        if (!run.pin_log)
            usage("cannot write the pin log");
        for (int i = 0; i < run.pin_count; i++) {
            struct watched_pin *pin = &run.pins[i];
            strcpy(pin->name, pin_names[i]);
            pin->run = &run;
            avr_irq_t *irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(pin_names[i][0]), pin_names[i][1] - '0');
            if (!irq)
                usage("no such port on this mcu");
            avr_irq_register_notify(irq, on_pin_change, pin);
        }
    }
    static struct vector_watch vectors[64];
    for (unsigned v = 1; v < 64; v++) {
        avr_irq_t *irq = avr_get_interrupt_irq(avr, (uint8_t)v);
        if (irq) {
            vectors[v] = (struct vector_watch){&run, v};
            avr_irq_register_notify(irq + AVR_INT_IRQ_PENDING, on_vector_pending, &vectors[v]);
        }
    }

    for (size_t i = 0; i < sizeof known_mcus / sizeof known_mcus[0]; i++)
        if (!strcmp(known_mcus[i].name, mcu))
            run.mcu = &known_mcus[i];

    if ((run.watch_count || run.switch_word) && !run.watch_log)
        usage("--watch and --switch-word need --watch-log");
    if (run.switch_word && (!run.switch_path_count || run.switch_word + 1 > avr->ramend))
        usage("--switch-word needs a data address and at least one --switch-path");
    if (run.latency_vector) {
        for (avr_io_t *port = avr->io_port; port; port = port->next)
            if (!strcmp(port->kind, "timer") && ((avr_timer_t *)port)->name == latency_timer_name)
                run.latency_timer = (avr_timer_t *)port;
        if (!run.latency_timer || !run.watch_log)
            usage("--latency-vector needs --latency-timer naming one of the mcu's timers, and --watch-log");
    }
    int state = cpu_Running, stopped = 0;
    while (state != cpu_Done && state != cpu_Crashed && avr->cycle < max_cycles && !stopped) {
        avr_flashaddr_t pc_before = avr->pc;
        int was_sleeping = avr->state == cpu_Sleeping;
        state = avr_run(avr);
        /* simavr 1.6 runs two instructions after SEI (or RETI) before a pending
         * interrupt; the datasheet (ATmega328P, 6.7, and SEI in the instruction
         * set manual) runs one. Its count-down from two stands at one now: end
         * it, so that the next instruction is the last before the interrupt. */
        if (avr->interrupt_state == -1)
            avr->interrupt_state = avr_has_pending_interrupts(avr);
        if (run.boundary_pending)
            log_boundary_assertion(&run);
        /* avr->pc is now the next instruction to start, at avr->cycle (any
         * interrupt entry already taken); a CPU asleep starts none. */
        int stepped = !(was_sleeping && avr->pc == pc_before && avr->state == cpu_Sleeping);
        if (run.watch_count && stepped)
            stopped = check_watches(&run);
        if (run.switch_word && stepped && !stopped)
            stopped = follow_switches(&run, pc_before);
    }

    fflush(run.uart_out);
    if (run.pin_log)
        fclose(run.pin_log);
    if (run.watch_log)
        fclose(run.watch_log);
    if (stopped) {
        fprintf(stderr, "switchscope-simavr: done code=0 cycles=%" PRIu64 " (stop or limit reached)\n", (uint64_t)avr->cycle);
        return 0;
    }
    if (state == cpu_Done) {
        fprintf(stderr, "switchscope-simavr: done code=%u cycles=%" PRIu64 "\n",
                exit_register ? avr->data[exit_register] : 0, (uint64_t)avr->cycle);
        return 0;
    }
    if (state == cpu_Crashed) {
        fprintf(stderr, "switchscope-simavr: crashed pc=0x%04x cycles=%" PRIu64 "\n", avr->pc, (uint64_t)avr->cycle);
        return 11;
    }
    fprintf(stderr, "switchscope-simavr: budget pc=0x%04x cycles=%" PRIu64 "\n", avr->pc, (uint64_t)avr->cycle);
    return 10;
}
