/* Raises each of the harness's interrupts from interrupts.S's routines and
 * prints, per interrupt, "<kind> <n> <M> <entered> <mcause>" (masked: also the
 * unmasking csrsi's cycle after M): n the latency timer's delay, M the
 * mcycle read just before the store, entered the cycle the vector's first
 * instruction read. */
#include <stdint.h>

#include "output.h"

#define LATENCY 0x20018u
#define LATENCY_NMI 0x2001Cu

extern const char irq_vectors[];
extern volatile uint32_t irq_entered, irq_cause;
uint32_t irq_soft_in_nops(void);
uint32_t irq_arm_in_nops(uint32_t counts, uint32_t reg);
uint32_t irq_arm_masked(uint32_t counts, uint32_t reg, uint32_t *unmasked);

static void line(const char *kind, uint32_t counts, uint32_t before, const uint32_t *unmasked) {
    put_string(kind);
    put_string(" ");
    put_decimal(counts);
    put_string(" ");
    put_decimal(before);
    if (unmasked) {
        put_string(" ");
        put_decimal(*unmasked);
    }
    put_string(" ");
    put_decimal(irq_entered);
    put_string(" ");
    put_decimal(irq_cause);
    put_string("\n");
}

int main(void) {
    __asm__ volatile("csrw mtvec, %0" ::"r"((uintptr_t)irq_vectors | 1u));
    __asm__ volatile("csrs mie, %0" ::"r"((1u << 3) | (1u << 16)));
    __asm__ volatile("csrsi mstatus, 8");
    line("soft", 0, irq_soft_in_nops(), 0);
    for (uint32_t counts = 4; counts <= 40; counts++)
        line("fast", counts, irq_arm_in_nops(counts, LATENCY), 0);
    for (uint32_t counts = 8; counts <= 40; counts++) {
        uint32_t unmasked;
        uint32_t before = irq_arm_masked(counts, LATENCY, &unmasked);
        line("masked", counts, before, &unmasked);
    }
    __asm__ volatile("csrci mstatus, 8"); /* the NMI ignores mstatus.MIE */
    for (uint32_t counts = 4; counts <= 40; counts++)
        line("nmi", counts, irq_arm_in_nops(counts, LATENCY_NMI), 0);
    put_string("done\n");
    return 0;
}
