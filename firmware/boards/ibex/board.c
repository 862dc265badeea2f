/*
 * Ibex's simple_system under switchscope's Verilator harness: the output
 * register for the record stream (the harness streams each byte stored
 * there to its stdout), mcycle for stamps, the machine timer (mtime,
 * mtimecmp) for the kernel's tick, parameters in a .noinit buffer the harness
 * fills before the core starts, the halt register for the end of a run
 * with the exit code in its bits 8-15, the window's spare word at 0x20010
 * as the scope pin, and the harness's software interrupt and latency timer
 * beside it (board_config.h).
 *
 * Start-up is here too: Ibex starts at the boot address + 0x80 and has
 * vectored traps only (mtvec's mode is forced to 01 and its base is 256-byte
 * aligned): trap n enters at mtvec + 4n, exceptions at + 0. The board's table
 * at the boot address halts on any trap; a kernel installs its own, made by
 * BOARD_VECTOR_TABLE (board_config.h says what it must do), before it starts.
 *
 * vexriscv runs this code too, on LiteX's VexRiscv under switchscope's own
 * testbench: the same start at 0x100080 and the same devices, and what differs
 * (one trap entry, the latency line, its caches) in its board_machine.h.
 */
#include "switchscope/board.h"
#include "switchscope/harness_fail.h"

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

/* mscratch: the top of the latency timer's entry stack (board_latency_entry).
 * The software interrupt (mie.MSIE, bit 3) and the latency timer's fast
 * interrupt (mie bit 16) enabled; mstatus.MIE stays the kernel's to set. */
static uint32_t board_entry_stack[256] __attribute__((aligned(16)));
void board_init(void)
{
    __asm__ volatile("csrw mscratch, %0" ::"r"(board_entry_stack + sizeof board_entry_stack / sizeof board_entry_stack[0]));
    __asm__ volatile("csrs mie, %0" ::"r"((1u << BOARD_SOFT_IRQ_CAUSE) | (1u << BOARD_LATENCY_IRQ_CAUSE)));
#ifdef BOARD_EXTERNAL_IRQ_MASK_CSR /* the latency line among the core's external lines, unmasked */
    __asm__ volatile("csrw " BOARD_EXTERNAL_IRQ_MASK_CSR ", %0" ::"r"(BOARD_EXTERNAL_IRQ_MASK));
#endif
}

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
/* The RTL's mcycle counts the clock; virt's counts nanoseconds of virtual time (link.ld's value). */
uint32_t board_stamp_clock_hz(void) { return BOARD_LINK_VALUE(board_stamp_clock_hz_value); }

uint32_t board_stamp_now(void)
{
    uint32_t now;
    __asm__ volatile("csrr %0, mcycle" : "=r"(now));
    return now;
}

#ifdef BOARD_EMPTY_CACHES_CODE
/* cache=cold: the core's own caches emptied (board_machine.h says how), and waited for
 * (BOARD_EMPTY_CACHES_CODE ends with an access that waits), so that the window opens on
 * caches that hold nothing but the few lines fetched since. */
void board_empty_caches(void) { __asm__ volatile(BOARD_EMPTY_CACHES_CODE ::: "t0", "memory"); }
#endif

/* The harness clocks the core through wfi as through anything else: wait for the interrupt. */
void board_idle(void) { __asm__ volatile("wfi"); }

/* The harness's SOFT_IRQ register: irq_software_i rises the cycle after the store. */
void board_soft_irq_pend(void) { store_word(BOARD_SOFT_IRQ_ADDRESS, 1); }

void __attribute__((weak)) switchscope_soft_irq(void)
{
    harness_fail(SS_TEXT("software interrupt with no handler"));
}

void __attribute__((weak)) switchscope_latency_irq(void)
{
    harness_fail(SS_TEXT("latency interrupt with no handler"));
}

/*
 * The latency timer: the harness's LATENCY register (LATENCY_NMI with
 * irq_priority=high) raises the line exactly `counts` cycles after the
 * arming store's cycle S. The expiry is worked out from mcycle read just
 * before that store: csrr reads M in its one cycle, the store follows at
 * S = M + 1 (pipeline_details.rst: CSR access stalls 0 cycles), so the line
 * rises at M + 1 + counts. The expiry is written after the store: the
 * sweep's first delay ([latency_timer] least_counts) leaves the few cycles
 * to the expiry's store before the interrupt can be taken.
 */
uint32_t board_latency_expiry;
volatile uint32_t board_latency_read;

#if BOARD_LATENCY_ON_NMI
#define BOARD_LATENCY_ARM_REGISTER "board_latency_nmi_register" /* LATENCY_NMI */
#else
#define BOARD_LATENCY_ARM_REGISTER "board_latency_register" /* LATENCY */
#endif

void board_latency_timer_arm(uint32_t counts)
{
    uint32_t window, now, status;
    BOARD_LATENCY_ENTRY(1);
    /* masked from before the read to the store: an interrupt between them (the tick's) would
     * delay the store past the cycle the read foretold */
    __asm__ volatile(".option push\n\t"
                     ".option norvc\n\t"
                     ".option norelax\n\t"
                     "lui %0, %%hi(" BOARD_LATENCY_ARM_REGISTER ")\n\t"
                     "csrrci %2, mstatus, 8\n\t"
                     "csrr %1, mcycle\n\t"
                     "sw %3, %%lo(" BOARD_LATENCY_ARM_REGISTER ")(%0)\n\t"
                     "andi %2, %2, 8\n\t"
                     "csrs mstatus, %2\n\t"
                     ".option pop"
                     : "=&r"(window), "=&r"(now), "=&r"(status)
                     : "r"(counts)
                     : "memory");
    board_latency_expiry = now + BOARD_LATENCY_STORE_CYCLES + counts;
}

void board_latency_timer_stop(void)
{
    store_word(BOARD_LATENCY_ADDRESS, 0); /* either line: 0 stops the timer */
    BOARD_LATENCY_ENTRY(0);
}

/* The kernel ticks when mtime reaches mtimecmp; mtime counts the clock, as the latency timer does. */
uint32_t board_latency_counts_to_tick(void)
{
    return *(volatile uint32_t *)BOARD_MTIMECMP_ADDRESS - *(volatile uint32_t *)BOARD_MTIME_ADDRESS;
}

/*
 * The latency timer's entry, reached from its vector (board_latency_vector,
 * a jump) with nothing saved, on a stack of the board's whose top mscratch
 * holds: it swaps sp with mscratch (the interrupted sp then waits in
 * mscratch, which no kernel uses: FreeRTOS's own entry loads sp through sp
 * itself, so the interrupted sp is no place to store to), saves t0 there and
 * reads mcycle, the probe's read ([latency_timer] read_offset in board.toml:
 * the jump, the csrrw and the store before it, in cycles).
 * On the fast interrupt it stores the count in board_latency_read, puts
 * everything back as the interrupt left it and goes on to the kernel's trap
 * entry (board_latency_continue). On the NMI it never enters the kernel: it
 * saves the registers a C call may change, runs switchscope_latency_irq()
 * and returns with mret, which restores what the NMI took over (Ibex keeps
 * an interrupted trap's mepc, mcause and mstatus bits aside for it:
 * exception_interrupts.rst, "Recoverable Non-Maskable Interrupt").
 */

#if BOARD_LATENCY_ON_NMI
static void board_latency_nmi(uint32_t read) __attribute__((used));
static void board_latency_nmi(uint32_t read)
{
    board_latency_read = read;
    switchscope_latency_irq();
}

__asm__(".section .text.board_latency_entry, \"ax\"\n"
        ".globl board_latency_entry\n"
        ".type board_latency_entry, @function\n"
        ".option push\n"
        ".option norvc\n"
        "board_latency_entry:\n"
        "    csrrw sp, mscratch, sp\n"
        "    sw t0, -4(sp)\n"
        "    csrr t0, mcycle\n"
        "    addi sp, sp, -80\n" /* ra, t1-t6, a0-a7 and t0 above them, 16-byte aligned */
        "    sw ra, 0(sp)\n"
        "    sw t1, 8(sp)\n"
        "    sw t2, 12(sp)\n"
        "    sw a0, 16(sp)\n"
        "    sw a1, 20(sp)\n"
        "    sw a2, 24(sp)\n"
        "    sw a3, 28(sp)\n"
        "    sw a4, 32(sp)\n"
        "    sw a5, 36(sp)\n"
        "    sw a6, 40(sp)\n"
        "    sw a7, 44(sp)\n"
        "    sw t3, 48(sp)\n"
        "    sw t4, 52(sp)\n"
        "    sw t5, 56(sp)\n"
        "    sw t6, 60(sp)\n"
        "    mv a0, t0\n"
        "    call board_latency_nmi\n"
        "    lw ra, 0(sp)\n"
        "    lw t1, 8(sp)\n"
        "    lw t2, 12(sp)\n"
        "    lw a0, 16(sp)\n"
        "    lw a1, 20(sp)\n"
        "    lw a2, 24(sp)\n"
        "    lw a3, 28(sp)\n"
        "    lw a4, 32(sp)\n"
        "    lw a5, 36(sp)\n"
        "    lw a6, 40(sp)\n"
        "    lw a7, 44(sp)\n"
        "    lw t3, 48(sp)\n"
        "    lw t4, 52(sp)\n"
        "    lw t5, 56(sp)\n"
        "    lw t6, 60(sp)\n"
        "    lw t0, 76(sp)\n"
        "    addi sp, sp, 80\n"
        "    csrrw sp, mscratch, sp\n"
        "    mret\n"
        ".option pop\n"
        ".size board_latency_entry, . - board_latency_entry\n"
        ".text\n");
#else
/* Either entry that goes on to the kernel's: sp swapped for the board's stack, t0 freed there. */
#define BOARD_LATENCY_ENTRY_OPENING                                              \
    ".section .text.board_latency_entry, \"ax\"\n"                             \
    ".globl board_latency_entry\n"                                               \
    ".type board_latency_entry, @function\n"                                     \
    ".option push\n"                                                             \
    ".option norvc\n"                                                            \
    ".option norelax\n"                                                          \
    "board_latency_entry:\n"                                                     \
    "    csrrw sp, mscratch, sp\n"                                               \
    "    sw t0, -4(sp)\n"
/* ... and back: t1 and t0 restored, sp swapped back, on to the kernel's trap entry, as the interrupt left it */
#define BOARD_LATENCY_ENTRY_CLOSING                                              \
    "    lw t1, -8(sp)\n"                                                        \
    "    lw t0, -4(sp)\n"                                                        \
    "    csrrw sp, mscratch, sp\n"                                               \
    "    j board_latency_continue\n"                                             \
    ".option pop\n"                                                             \
    ".size board_latency_entry, . - board_latency_entry\n"                      \
    /* a kernel whose table is not BOARD_VECTOR_TABLE's leaves this one: say so */ \
    ".weak board_latency_continue\n"                                             \
    "board_latency_continue:\n"                                                  \
    "    j board_latency_no_kernel_entry\n"                                      \
    ".text\n"

#if BOARD_ONE_TRAP_ENTRY
/* A core with one trap entry (board_config.h): while the timer is armed every trap
 * comes here, the tick's and the kernel's ecalls too. The cause is told first, so
 * that only the latency timer's interrupt reaches board_latency_dispatched, its
 * read ([latency_timer] handler, read_offset 0): the probe's read and the marker's
 * watch in one place, five instructions into the trap. */
__asm__(BOARD_LATENCY_ENTRY_OPENING
        "    sw t1, -8(sp)\n"
        "    csrr t0, mcause\n"
        "    li t1, " BOARD_LATENCY_MCAUSE "\n"
        "    bne t0, t1, 1f\n"
        ".globl board_latency_dispatched\n"
        "board_latency_dispatched:\n"
        "    csrr t0, mcycle\n"
        "    lui t1, %hi(board_latency_read)\n"
        "    sw t0, %lo(board_latency_read)(t1)\n"
        "1:\n" BOARD_LATENCY_ENTRY_CLOSING);
#else
__asm__(BOARD_LATENCY_ENTRY_OPENING
        "    csrr t0, mcycle\n"
        "    sw t1, -8(sp)\n"
        "    lui t1, %hi(board_latency_read)\n"
        "    sw t0, %lo(board_latency_read)(t1)\n"
        BOARD_LATENCY_ENTRY_CLOSING);
#endif
#endif

void board_latency_no_kernel_entry(void) __attribute__((used, noreturn));
void board_latency_no_kernel_entry(void)
{
    harness_fail(SS_TEXT("the latency timer's entry has no kernel trap entry to go on to (build the kernel's "
                         "table with BOARD_VECTOR_TABLE)"));
}

/* What the kernel's trap entry calls for every interrupt but its tick (board_config.h). */
void board_interrupt(uint32_t mcause)
{
    switch (mcause & 0x7FFFFFFFu) {
    case BOARD_SOFT_IRQ_CAUSE:
        store_word(BOARD_SOFT_IRQ_ADDRESS, 0); /* lowered from the next cycle, long before mret */
        switchscope_soft_irq();
        break;
    case BOARD_LATENCY_IRQ_CAUSE: /* board_latency_entry has read the timer */
        switchscope_latency_irq();
        break;
    default:
        harness_fail(SS_TEXT("an interrupt the board does not raise"));
    }
}

void board_unexpected_trap(void) __attribute__((used, noreturn));
void board_unexpected_trap(void) { harness_fail(SS_TEXT("unexpected trap (no kernel's table installed)")); }

/* The RTL's halt register takes (code << 8) | 1, virt's SiFive test device
 * (code << 16) | 0x3333 (its "fail" with an exit code, 0 included): the shift
 * and the tag are link.ld's. */
void board_exit(int code)
{
    store_word(BOARD_HALT_ADDRESS, ((uint32_t)(code & 0xFF) << BOARD_LINK_VALUE(board_exit_shift))
                                       | BOARD_LINK_VALUE(board_exit_tag));
    for (;;)
        ;
}

void board_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("board"), SS_TEXT(BOARD_NAME));
    emit(SS_TEXT("cpu"), SS_TEXT(BOARD_CPU));
    emit(SS_TEXT("f_cpu_hz"), SS_TEXT(BOARD_CPU_CLOCK_HZ_TEXT));
    emit(SS_TEXT("scope_pin"), SS_TEXT(BOARD_SCOPE_PIN));
    emit(SS_TEXT("config.latency_irq"), BOARD_LATENCY_ON_NMI ? SS_TEXT("irq_nm_i") : SS_TEXT(BOARD_LATENCY_IRQ_LINE));
}
