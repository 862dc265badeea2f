/*
 * Ibex's simple_system under switchscope's Verilator harness: the output
 * register for the record stream (the harness streams each byte stored
 * there to its stdout), mcycle for stamps, the machine timer (mtime,
 * mtimecmp) for the kernel's tick, parameters in a .noinit buffer the harness
 * fills before the core starts, the halt register for the end of a run
 * with the exit code in its bits 8-15, and the window's spare word at 0x20010
 * as the scope pin (board_config.h).
 *
 * Start-up is here too: Ibex starts at the boot address + 0x80 and has
 * vectored traps only (mtvec's mode is forced to 01 and its base is 256-byte
 * aligned): trap n enters at mtvec + 4n, exceptions at + 0. The board's table
 * at the boot address halts on any trap; a kernel installs its own
 * (kernel_freertos.c) before it starts.
 */
#include "switchscope/board.h"
#include "switchscope/harness.h"

#define PARAMETER_MAGIC "ss:"

__asm__(".section .vectors, \"ax\"\n"
        ".option push\n"
        ".option norvc\n" /* each entry one 4-byte jump */
        ".globl board_vectors\n"
        "board_vectors:\n"
        ".rept 32\n"
        "j board_unexpected_trap\n"
        ".endr\n"
        ".globl _start\n"
        "_start:\n" /* the boot address + 0x80 */
        "la sp, __stack_top\n"
        ".option norelax\n" /* gp cannot be relaxed against itself */
        "la gp, __global_pointer$\n"
        "la t0, __bss_start\n"
        "la t1, __bss_end\n"
        "1: bgeu t0, t1, 2f\n"
        "sw zero, 0(t0)\n"
        "addi t0, t0, 4\n"
        "j 1b\n"
        "2: call main\n"
        "li a0, 0\n"
        "call board_exit\n"
        ".option pop\n"
        ".text\n");

/* Filled by the harness (it finds this symbol in the ELF); not cleared at start-up. */
char board_host_parameters[256] __attribute__((section(".noinit")));

uint32_t board_stamp_high;

static inline void store_word(uint32_t address, uint32_t value) { *(volatile uint32_t *)address = value; }

void board_init(void) {}

void board_flush(void) {} /* every byte is written as it comes */

void board_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        store_word(BOARD_OUTPUT_ADDRESS, data[i]);
}

const char *board_parameters(void)
{
    const char *magic = PARAMETER_MAGIC;
    board_host_parameters[sizeof board_host_parameters - 1] = '\0';
    for (int i = 0; magic[i]; i++)
        if (board_host_parameters[i] != magic[i])
            return ""; /* not run by the harness: the defaults */
    return board_host_parameters + sizeof PARAMETER_MAGIC - 1;
}

uint32_t board_stamp_modulus(void) { return 0; } /* 2^32: mcycle's low half */
int board_stamp_counts_down(void) { return 0; }
uint32_t board_stamp_clock_hz(void) { return BOARD_CPU_CLOCK_HZ; }

uint32_t board_stamp_now(void)
{
    uint32_t now;
    __asm__ volatile("csrr %0, mcycle" : "=r"(now));
    return now;
}

/* The harness clocks the core through wfi as through anything else: wait for the interrupt. */
void board_idle(void) { __asm__ volatile("wfi"); }

/* simple_system has no interrupt software can raise besides the timer's. */
void board_soft_irq_pend(void) { harness_fail(SS_TEXT("ibex has no software interrupt")); }

void __attribute__((weak)) switchscope_soft_irq(void)
{
    harness_fail(SS_TEXT("software interrupt with no handler"));
}

/* No latency timer ([latency_timer] unavailable in board.toml): the irq-latency scenarios are refused before
 * they are built; these keep the link whole where a scenario names them. */
uint32_t board_latency_expiry;
volatile uint32_t board_latency_read;
uint32_t board_latency_counts_to_tick(void) { return 0; }
void board_latency_timer_arm(uint32_t counts)
{
    (void)counts;
    harness_fail(SS_TEXT("ibex has no latency timer"));
}
void board_latency_timer_stop(void) {}

void board_unexpected_trap(void) __attribute__((used, noreturn));
void board_unexpected_trap(void) { harness_fail(SS_TEXT("unexpected trap (no kernel's table installed)")); }

void board_exit(int code)
{
    store_word(BOARD_HALT_ADDRESS, ((uint32_t)(code & 0xFF) << 8) | 1u);
    for (;;)
        ;
}

void board_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("board"), SS_TEXT(BOARD_NAME));
    emit(SS_TEXT("cpu"), SS_TEXT(BOARD_CPU));
    emit(SS_TEXT("f_cpu_hz"), SS_TEXT(BOARD_CPU_CLOCK_HZ_TEXT));
    emit(SS_TEXT("scope_pin"), SS_TEXT(BOARD_SCOPE_PIN));
}
