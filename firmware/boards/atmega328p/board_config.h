/* ATmega328P at 16 MHz (an Arduino Uno's chip). The stamp timer is Timer1,
 * 16 bits at clk/1: it counts CPU cycles and wraps every 65536. */
#ifndef BOARD_CONFIG_H
#define BOARD_CONFIG_H

#include <stdint.h>
#include <avr/io.h>
#include <avr/pgmspace.h>

/* Texts stay in flash: the ATmega328P has 2 KB of RAM for everything. */
#define SS_TEXT(literal) PSTR(literal)
#define SS_TEXT_STORAGE PROGMEM
#define BOARD_TEXT_BYTE(p) ((char)pgm_read_byte(p))

/* The build passes both from board.toml. */
#ifndef BOARD_NAME
#define BOARD_NAME "atmega328p"
#endif
#ifndef BOARD_CPU
#define BOARD_CPU "atmega328p"
#endif
#define BOARD_CPU_CLOCK_HZ 16000000UL
#define BOARD_CPU_CLOCK_HZ_TEXT "16000000"

/*
 * The window's points (switchscope/probe.h): every method's code at a point
 * is one asm statement of the stamp's 16 bytes, so that each method's build
 * lays out the same program.
 */
#define BOARD_POINT(code) code
#define BOARD_POINT_CLOBBERS "memory"
#define BOARD_POINT_INPUTS , [low] "n"(_SFR_MEM_ADDR(TCNT1L)), [high] "n"(_SFR_MEM_ADDR(TCNT1H)), \
                           [portb] "I"(_SFR_IO_ADDR(PORTB))
/* the rest of a point whose method's code takes `bytes` (a string) of it */
#define BOARD_POINT_FILL(bytes) "\n\t.rept (16 - (" bytes ")) / 2\n\tnop\n\t.endr\n\t"

/*
 * Store Timer1's count into the low half of the uint32_t with a static
 * address that operand [to] names (its high half stays 0) with a fixed sequence:
 * read TCNT1L (which latches TCNT1H), store it, read the latched high byte,
 * store it. 8 cycles, the same in every stamp.
 */
#define BOARD_STAMP_CODE                                      \
    "lds __tmp_reg__, %[low]\n\t"                           \
    "sts %[to], __tmp_reg__\n\t"                              \
    "lds __tmp_reg__, %[high]\n\t"                          \
    "sts %[to]+1, __tmp_reg__"

/* Timer1's overflow flag, outside the window on both sides: cleared (by
 * writing 1) before the opening stamp, read after the closing one. A window
 * over 65,536 cycles long sets it, and the host leaves the sample out. */
#define BOARD_STAMP_WRAP_CLEAR() (TIFR1 = _BV(TOV1))
#define BOARD_STAMP_WRAPPED() ((TIFR1 & _BV(TOV1)) != 0)

/* The latency timer (irq-latency): Timer1's compare unit A, vector 11, at
 * the CPU clock. It cannot expire sooner than this many counts after the
 * read of TCNT1 that arms it (board_latency_timer_arm). */
#define BOARD_LATENCY_LEAST_COUNTS 48u

/* The scope pin: PB5, the Arduino's "L" LED. One instruction (2 cycles) each. */
#define BOARD_SCOPE_PIN "B5"
#define BOARD_SCOPE_HIGH_CODE "sbi %[portb], 5"
#define BOARD_SCOPE_HIGH_BYTES 2
#define BOARD_SCOPE_LOW_CODE "cbi %[portb], 5"
#define BOARD_SCOPE_LOW_BYTES 2

#endif
