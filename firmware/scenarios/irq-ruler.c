/*
 * irq-ruler: proves the interrupt-latency measurement. After each tick the
 * task arms the latency timer and runs a hand-written loop whose only masked
 * region is RULER_MASKED no-ops between the instructions that mask and
 * unmask interrupts (cpsid i / cpsie i, cli / sei, csrci / csrsi mstatus.MIE),
 * until the handler has run; the loop's top is its "loop" mark (SS_MARK). Successive samples assert the
 * interrupt one step further into the loop, so the sweep meets every
 * instruction of it; the tests work out from the core's manual what each
 * must read.
 */
#include "switchscope/harness.h"
#include "switchscope/latency.h"

#define RULER_MASKED 8 /* the no-ops the loop runs with interrupts masked */

volatile uint8_t ruler_hit;

void switchscope_latency_irq(void)
{
    ruler_hit = 1;
    latency_sample_taken();
}

/* Runs until the handler sets ruler_hit. */
void ruler_masked_loop(void);

#define STRINGIFY(x) #x
#define TEXT(x) STRINGIFY(x)

#if defined(__arm__)
#if defined(__ARM_ARCH_6M__) /* no MOVW/MOVT: the address from the literal pool, placed after the loop */
#define RULER_HIT_ADDRESS_TO_R1 "    ldr r1, =ruler_hit\n"
#define RULER_LITERALS ".ltorg\n"
#else
#define RULER_HIT_ADDRESS_TO_R1 "    movw r1, #:lower16:ruler_hit\n    movt r1, #:upper16:ruler_hit\n"
#define RULER_LITERALS ""
#endif
__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.ruler_masked_loop, \"ax\", %progbits\n"
        ".global ruler_masked_loop\n"
        ".thumb_func\n"
        "ruler_masked_loop:\n"
        RULER_HIT_ADDRESS_TO_R1
        "1:  .pushsection .debug_switchscope_loop\n"
        "    .long 1b\n"
        "    .popsection\n"
        "    cpsid i\n"
        "    .rept " TEXT(RULER_MASKED) "\n"
        "    nop\n"
        "    .endr\n"
        "    cpsie i\n"
        "    ldrb r0, [r1]\n"
        "    cmp r0, #0\n"
        "    beq 1b\n"
        "    bx lr\n"
        ".type ruler_masked_loop, %function\n"
        ".size ruler_masked_loop, . - ruler_masked_loop\n"
        RULER_LITERALS
        ".text\n");
#elif defined(__AVR__)
__asm__(".section .text.ruler_masked_loop, \"ax\", @progbits\n"
        ".global ruler_masked_loop\n"
        "ruler_masked_loop:\n"
        "1:  .pushsection .debug_switchscope_loop\n"
        "    .long 1b\n"
        "    .popsection\n"
        "    cli\n"
        "    .rept " TEXT(RULER_MASKED) "\n"
        "    nop\n"
        "    .endr\n"
        "    sei\n"
        "    lds r24, ruler_hit\n"
        "    tst r24\n"
        "    breq 1b\n"
        "    ret\n"
        ".type ruler_masked_loop, @function\n"
        ".size ruler_masked_loop, . - ruler_masked_loop\n"
        ".text\n");
#elif defined(__riscv)
/* 32-bit encodings at word addresses (norvc, the top aligned): every
 * instruction, and the branch back to the top, fetched as a whole word. */
__asm__(".section .text.ruler_masked_loop, \"ax\", @progbits\n"
        ".global ruler_masked_loop\n"
        ".option push\n"
        ".option norvc\n"
        ".option norelax\n"
        ".balign 4\n"
        "ruler_masked_loop:\n"
        "    lui a1, %hi(ruler_hit)\n"
        "1:  .pushsection .debug_switchscope_loop\n"
        "    .long 1b\n"
        "    .popsection\n"
        "    csrci mstatus, 8\n"
        "    .rept " TEXT(RULER_MASKED) "\n"
        "    nop\n"
        "    .endr\n"
        "    csrsi mstatus, 8\n"
        "    lbu a0, %lo(ruler_hit)(a1)\n"
        "    beqz a0, 1b\n"
        "    ret\n"
        ".option pop\n"
        ".type ruler_masked_loop, @function\n"
        ".size ruler_masked_loop, . - ruler_masked_loop\n"
        ".text\n");
#else
#error "irq-ruler has a hand-written loop for Cortex-M, AVR and RV32 only"
#endif

static void ruler_task(void *arg)
{
    (void)arg;
    latency_begin();
    harness_describe(SS_TEXT("ruler_masked_nops"), RULER_MASKED);
    for (;;) {
        ss_wait_next_tick(); /* the next tick is a tick period away: no kernel code in the sweep */
        ruler_hit = 0;
        latency_arm();
        ruler_masked_loop();
    }
}

static void setup(void)
{
    ss_task_create("ruler", ruler_task, 0, 1);
}

SCENARIO("irq-ruler", setup);
