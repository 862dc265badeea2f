/* RV32 (Ibex): irq-ruler's sweep over a loop that never masks interrupts:
 * ENTRY_NOPS no-ops, then the load and the branch back that end the loop once
 * the handler has run. The latency timer's line rises at every step of it;
 * in the no-ops, each 1 cycle with nothing to hold an interrupt back, the
 * latency is the core's entry alone, the same at every step
 * (tests/run/test_irq_latency.py). */
#include "switchscope/harness.h"
#include "switchscope/latency.h"

#if !defined(__riscv)
#error "ibex_interrupt_entry sweeps an RV32 loop"
#endif

#define ENTRY_NOPS 16

volatile uint8_t entry_hit;

void switchscope_latency_irq(void)
{
    entry_hit = 1;
    latency_sample_taken();
}

void entry_nop_loop(void);

#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

/* 32-bit encodings at word addresses (norvc, the top aligned), as irq-ruler's. */
__asm__(".section .text.entry_nop_loop, \"ax\", @progbits\n"
        ".global entry_nop_loop\n"
        ".option push\n"
        ".option norvc\n"
        ".option norelax\n"
        ".balign 4\n"
        "entry_nop_loop:\n"
        "    lui a1, %hi(entry_hit)\n"
        "1:  .pushsection .debug_switchscope_loop\n"
        "    .long 1b\n"
        "    .popsection\n"
        "    .rept " TEXT(ENTRY_NOPS) "\n"
        "    nop\n"
        "    .endr\n"
        "    lbu a0, %lo(entry_hit)(a1)\n"
        "    beqz a0, 1b\n"
        "    ret\n"
        ".option pop\n"
        ".type entry_nop_loop, @function\n"
        ".size entry_nop_loop, . - entry_nop_loop\n"
        ".text\n");

static void entry_task(void *arg)
{
    (void)arg;
    latency_begin();
    harness_describe(SS_TEXT("entry_nops"), ENTRY_NOPS);
    for (;;) {
        ss_wait_next_tick(); /* the next tick is a tick period away: no kernel code in the sweep */
        entry_hit = 0;
        latency_arm();
        entry_nop_loop();
    }
}

static void setup(void)
{
    ss_task_create("entry", entry_task, 0, 1);
}

SCENARIO("ibex_interrupt_entry", setup);
