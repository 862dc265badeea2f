/* simple_system's output register: each byte written appears on the harness's stdout. */
#ifndef IBEX_OUTPUT_H
#define IBEX_OUTPUT_H

#include <stdint.h>

#define IBEX_OUTPUT (*(volatile uint32_t *)0x20000)

static inline void put_string(const char *text) {
    while (*text) IBEX_OUTPUT = (uint8_t)*text++;
}

static inline void put_decimal(uint32_t value) {
    char digits[11];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    while (count) IBEX_OUTPUT = (uint8_t)digits[--count];
}

static inline uint32_t read_mcycle(void) {
    uint32_t value;
    __asm__ volatile("csrr %0, mcycle" : "=r"(value));
    return value;
}

#endif
