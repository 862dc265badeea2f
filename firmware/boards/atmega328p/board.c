/*
 * ATmega328P under switchscope's simavr runner: USART0 for the record stream,
 * Timer1 for stamps and, by its compare unit A, the latency timer, PB0's
 * pin-change interrupt as the software interrupt (the pin is an output, so
 * toggling it pends the interrupt, as on the real chip), parameters in a
 * .noinit buffer the runner fills before reset, and the exit code in GPIOR0
 * followed by sleep with interrupts off, which ends the simulation.
 */
#include <avr/interrupt.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include "switchscope/board.h"
#include "switchscope/harness_fail.h"

#define PARAMETER_MAGIC "ss:"

/* Filled by the runner (it finds this symbol in the ELF); not cleared at start-up. */
char board_host_parameters[64] __attribute__((section(".noinit")));

/* On a real Uno no runner fills it: the host writes the parameters into the
 * image it flashes, here, after the same magic (an image flashed as built
 * holds the magic alone: its defaults). */
const char board_image_parameters[64] PROGMEM = PARAMETER_MAGIC;

void board_init(void)
{
    /* 2 Mbaud: double speed, UBRR 0. Keeps sending a record far shorter than a tick. */
    UCSR0A = _BV(U2X0);
    UBRR0 = 0;
    UCSR0B = _BV(TXEN0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);

    DDRB |= _BV(PB5); /* the scope pin */

    TCCR1A = 0;
    TCCR1B = _BV(CS10); /* normal mode, clk/1 */

    /* simavr 1.6 polls the INT0 and INT1 pins on every cycle while they read
     * low, whatever the interrupt mode, and then cannot skip ahead while the
     * CPU sleeps: drive both high. */
    DDRD |= _BV(PD2) | _BV(PD3);
    PORTD |= _BV(PD2) | _BV(PD3);

    /* The software interrupt is PB0's pin-change interrupt (PCINT0). */
    DDRB |= _BV(PB0);
    PCMSK0 = _BV(PCINT0);
    PCIFR = _BV(PCIF0);
    PCICR = _BV(PCIE0);
}

void board_flush(void) {} /* every byte is written as it comes */

void board_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while (!(UCSR0A & _BV(UDRE0)))
            ;
        UDR0 = data[i];
    }
    while (!(UCSR0A & _BV(UDRE0)))
        ;
}

static int has_magic(const char *text)
{
    const char *magic = PARAMETER_MAGIC;
    for (int i = 0; magic[i]; i++)
        if (text[i] != magic[i])
            return 0;
    return 1;
}

const char *board_parameters(void)
{
    if (!has_magic(board_host_parameters)) /* not run by the runner: the image's own, into the same buffer */
        for (size_t i = 0; i < sizeof board_host_parameters; i++)
            board_host_parameters[i] = pgm_read_byte(&board_image_parameters[i]);
    board_host_parameters[sizeof board_host_parameters - 1] = '\0';
    return has_magic(board_host_parameters) ? board_host_parameters + sizeof PARAMETER_MAGIC - 1 : "";
}

uint32_t board_stamp_modulus(void) { return 65536UL; }
int board_stamp_counts_down(void) { return 0; }
uint32_t board_stamp_now(void) { return TCNT1; }
uint32_t board_stamp_clock_hz(void) { return BOARD_CPU_CLOCK_HZ; }

/* Sleep until the next interrupt: simavr then skips straight to it. */
void board_idle(void)
{
    set_sleep_mode(SLEEP_MODE_IDLE);
    sleep_mode();
}

/* Writing 1 to a PIN bit toggles the output: one instruction pends PCINT0. */
void board_soft_irq_pend(void) { PINB = _BV(PB0); }

ISR(PCINT0_vect)
{
    switchscope_soft_irq();
}

void __attribute__((weak)) switchscope_soft_irq(void)
{
    harness_fail(SS_TEXT("software interrupt with no handler"));
}

/*
 * The latency timer is Timer1's compare unit A on the free-running stamp
 * count: OCF1A is set one cycle after TCNT1 reaches OCR1A. The count is read
 * first and the compare set from it; the flag is cleared once the compare is
 * written (its two halves are written one after the other, and the value
 * between them may match), and only then is the interrupt enabled, 27 cycles
 * after the read with avr-gcc 5.4: the delay is at least
 * BOARD_LATENCY_LEAST_COUNTS, with room for another compiler's code.
 */
uint32_t board_latency_expiry;
volatile uint32_t board_latency_read;

/* The tick comes from the watchdog, whose count cannot be read. */
uint32_t board_latency_counts_to_tick(void) { return 0; }

void board_latency_timer_arm(uint32_t counts)
{
    uint16_t now = TCNT1;
    uint16_t expiry = (uint16_t)(now + (counts < BOARD_LATENCY_LEAST_COUNTS ? BOARD_LATENCY_LEAST_COUNTS : counts));
    OCR1A = (uint16_t)(expiry - 1u);
    TIFR1 = _BV(OCF1A);
    TIMSK1 |= _BV(OCIE1A);
    board_latency_expiry = expiry; /* after: the stores above must land before the expiry */
}

void board_latency_timer_stop(void) { TIMSK1 &= (uint8_t)~_BV(OCIE1A); }

/* The interrupt's entry: the probe reads TCNT1 two cycles in (PUSH takes
 * two: [latency_timer] read_offset), then the handler proper runs. Neither
 * instruction before the jump changes SREG. */
void __vector_latency_handler(void) __attribute__((signal, used, externally_visible));

ISR(TIMER1_COMPA_vect, ISR_NAKED)
{
    __asm__ volatile("push r24\n\t"
                     "lds r24, %[low]\n\t"
                     "sts board_latency_read, r24\n\t"
                     "lds r24, %[high]\n\t"
                     "sts board_latency_read+1, r24\n\t"
                     "pop r24\n\t"
                     "jmp __vector_latency_handler"
                     :
                     : [low] "n"(_SFR_MEM_ADDR(TCNT1L)), [high] "n"(_SFR_MEM_ADDR(TCNT1H)));
}

void __vector_latency_handler(void)
{
    switchscope_latency_irq();
}

void __attribute__((weak)) switchscope_latency_irq(void)
{
    harness_fail(SS_TEXT("latency timer interrupt with no handler"));
}

ISR(BADISR_vect)
{
    harness_fail(SS_TEXT("interrupt with no handler"));
}

void board_exit(int code)
{
    GPIOR0 = (uint8_t)code;
    cli();
    set_sleep_mode(SLEEP_MODE_PWR_DOWN);
    sleep_enable();
    for (;;)
        sleep_cpu();
}

void board_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("board"), SS_TEXT(BOARD_NAME));
    emit(SS_TEXT("cpu"), SS_TEXT(BOARD_CPU));
    emit(SS_TEXT("f_cpu_hz"), SS_TEXT(BOARD_CPU_CLOCK_HZ_TEXT));
    emit(SS_TEXT("scope_pin"), SS_TEXT(BOARD_SCOPE_PIN));
}
