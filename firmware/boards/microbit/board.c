/*
 * microbit (nRF51822, Cortex-M0) under QEMU: the nRF51 UART for the record
 * stream, semihosting for the run parameters and the exit code, SysTick for
 * stamps, TIMER0 for load=voip, TIMER1 for the irq-latency scenarios, GPIO
 * P0.13 for the scope. ARMv6-M: every instruction written here is Thumb-1
 * (no MOVW/MOVT, no IT, no CBZ). Reset, vectors, the software interrupt and
 * the fault report: common/cortex_m.c; the stream's flush, idle,
 * exit and the board's description: common/cortex_m_semihosted.c.
 */
#include <stdint.h>
#include <string.h>
#include "switchscope/board.h"
#include "switchscope/cortex_m.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

/* nRF51 UART (nRF51 Series Reference Manual, "UART"): tasks start the
 * transmitter, an event register says a byte has gone, ENABLE = 4 turns it on. */
#define UART_BASE 0x40002000u
#define UART_TASKS_STARTTX REG(UART_BASE + 0x008u)
#define UART_EVENTS_TXDRDY REG(UART_BASE + 0x11Cu)
#define UART_ENABLE REG(UART_BASE + 0x500u)
#define UART_PSELTXD REG(UART_BASE + 0x50Cu)
#define UART_TXD REG(UART_BASE + 0x51Cu)
#define UART_ENABLE_ON 4u
#define MICROBIT_UART_TX_PIN 24u /* P0.24: the micro:bit's interface chip reads it */

#define GPIO_DIRSET REG(0x50000518u)
#define SCOPE_PIN_MASK (1u << 13) /* P0.13 */

#define NVIC_ISER0 REG(0xE000E100u)
#define NVIC_ICPR0 REG(0xE000E280u)

/* ARMv6-M reaches the NVIC's priority registers a word at a time: four
 * interrupts' bytes in each. */
static void set_irq_priority(unsigned irq, uint8_t priority)
{
    volatile uint32_t *word = (volatile uint32_t *)(0xE000E400u + 4u * (irq / 4u));
    unsigned shift = 8u * (irq % 4u);
    *word = (*word & ~(0xFFu << shift)) | (uint32_t)priority << shift;
}

void board_init(void)
{
    UART_PSELTXD = MICROBIT_UART_TX_PIN;
    UART_ENABLE = UART_ENABLE_ON;
    UART_TASKS_STARTTX = 1u;
    GPIO_DIRSET = SCOPE_PIN_MASK;
    cortex_m_soft_irq_enable();
    cortex_m_batch_stream_start();
}

/* The record stream: in batches through semihosting under the simulator runner (cortex_m.c), else
 * every byte to the UART as it comes (the image read over its UART, as a board); cortex_m_semihosted.c
 * flushes the batch. */
void board_write(const uint8_t *data, size_t len)
{
    if (cortex_m_batch_write(data, len))
        return;
    for (size_t i = 0; i < len; i++) {
        UART_EVENTS_TXDRDY = 0;
        UART_TXD = data[i];
        while (!UART_EVENTS_TXDRDY) /* the byte has left */
            ;
    }
}

const char *board_parameters(void) { return cortex_m_semihosting_cmdline(); }

uint32_t board_stamp_modulus(void) { return SYSTICK_LOAD + 1u; }
int board_stamp_counts_down(void) { return 1; }

uint32_t board_stamp_now(void) { return cortex_m_systick_now(); }

/* The nRF51 connects no reference clock to SysTick: CLKSOURCE must be 1, the core clock. */
uint32_t board_stamp_clock_hz(void) { return (SYSTICK_CTRL & SYSTICK_CTRL_CLKSOURCE_CPU) ? BOARD_CPU_CLOCK_HZ : 0u; }

/* GPIO OUTSET / OUTCLR: a store of the pin's bit sets or clears it alone. */
__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.board_scope, \"axR\", %progbits\n" /* R: kept in every method's build, one layout */
        ".global board_scope_high, board_scope_low, board_scope_high_edge, board_scope_low_edge\n"
        ".thumb_func\n"
        "board_scope_high:\n"
        "    ldr r0, =0x50000508\n" /* OUTSET */
        "    ldr r1, =0x2000\n"     /* P0.13 */
        "board_scope_high_edge:\n"
        "    str r1, [r0]\n"
        "    bx lr\n"
        ".thumb_func\n"
        "board_scope_low:\n"
        "    ldr r0, =0x5000050C\n" /* OUTCLR */
        "    ldr r1, =0x2000\n"
        "board_scope_low_edge:\n"
        "    str r1, [r0]\n"
        "    bx lr\n"
        ".ltorg\n"
        ".text\n");

/* nRF51 TIMER (nRF51 Series Reference Manual, "TIMER"): counts up at
 * 16 MHz >> PRESCALER, sets EVENTS_COMPARE[n] when the count reaches CC[n]
 * and interrupts on it where INTENSET enables it; a CAPTURE task copies the
 * count into CC[n], the only way to read it. */
#define TIMER_TASKS_START 0x000u
#define TIMER_TASKS_STOP 0x004u
#define TIMER_TASKS_CLEAR 0x00Cu
#define TIMER_EVENTS_COMPARE0 0x140u
#define TIMER_SHORTS 0x200u
#define TIMER_INTENSET 0x304u
#define TIMER_MODE 0x504u
#define TIMER_BITMODE 0x508u
#define TIMER_PRESCALER 0x510u
#define TIMER_CC0 0x540u
#define TIMER_SHORTS_COMPARE0_CLEAR 0x1u
#define TIMER_INTEN_COMPARE0 (1u << 16)
#define TIMER_BITMODE_32 3u
#define TIMER0 0x40008000u
#define TIMER1 0x40009000u

/* Stopped and cleared, in timer mode, 32 bits at 16 MHz, comparing CC[0] with `counts`. */
static void timer_set_up(uint32_t timer, uint32_t counts, uint32_t shorts)
{
    REG(timer + TIMER_TASKS_STOP) = 1u;
    REG(timer + TIMER_TASKS_CLEAR) = 1u;
    REG(timer + TIMER_EVENTS_COMPARE0) = 0u;
    REG(timer + TIMER_MODE) = 0u;
    REG(timer + TIMER_BITMODE) = TIMER_BITMODE_32;
    REG(timer + TIMER_PRESCALER) = 0u;
    REG(timer + TIMER_SHORTS) = shorts;
    REG(timer + TIMER_CC0) = counts;
    REG(timer + TIMER_INTENSET) = TIMER_INTEN_COMPARE0;
}

void board_load_timer_start(uint32_t period_us)
{
    timer_set_up(TIMER0, BOARD_LOAD_TIMER_HZ / 1000000u * period_us, TIMER_SHORTS_COMPARE0_CLEAR);
    set_irq_priority(BOARD_LOAD_IRQ_NUMBER, BOARD_SOFT_IRQ_PRIORITY);
    NVIC_ISER0 = 1u << BOARD_LOAD_IRQ_NUMBER;
    REG(TIMER0 + TIMER_TASKS_START) = 1u;
}

void board_load_timer_acknowledge(void) { REG(TIMER0 + TIMER_EVENTS_COMPARE0) = 0u; }

/* The latency timer counts up from 0 at the store that starts it and
 * interrupts as the count reaches CC[0] = `counts`: the count it expires at. */
uint32_t board_latency_expiry = 0;
volatile uint32_t board_latency_read;

void board_latency_timer_arm(uint32_t counts)
{
    timer_set_up(TIMER1, counts, 0u);
    NVIC_ICPR0 = 1u << BOARD_LATENCY_IRQ_NUMBER;
    set_irq_priority(BOARD_LATENCY_IRQ_NUMBER, BOARD_LATENCY_IRQ_PRIORITY);
    NVIC_ISER0 = 1u << BOARD_LATENCY_IRQ_NUMBER;
    board_latency_expiry = counts;
    REG(TIMER1 + TIMER_TASKS_START) = 1u;
}

void board_latency_timer_stop(void)
{
    REG(TIMER1 + TIMER_TASKS_STOP) = 1u;
    REG(TIMER1 + TIMER_EVENTS_COMPARE0) = 0u; /* the event cleared lowers the interrupt line */
}

/* The kernel ticks from SysTick, which counts down at the core clock, the
 * latency timer's: its count is the counts to go. */
uint32_t board_latency_counts_to_tick(void) { return cortex_m_systick_now(); }

/* The probe: the interrupt's entry captures the count in its third
 * instruction ([latency_timer] read_offset: the store to TASKS_CAPTURE[1]),
 * keeps it, and goes on to the scenario's handler (r0 and r1 were stacked by
 * the exception entry; a register branch, as B reaches only 2 KB on ARMv6-M). */
__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.board_latency_entry, \"ax\", %progbits\n"
        ".global board_latency_entry\n"
        ".type board_latency_entry, %function\n"
        ".thumb_func\n"
        "board_latency_entry:\n"
        "    ldr r0, =0x40009044\n" /* TIMER1 TASKS_CAPTURE[1] */
        "    movs r1, #1\n"
        "    str r1, [r0]\n"
        "    ldr r0, =0x40009544\n" /* TIMER1 CC[1] */
        "    ldr r0, [r0]\n"
        "    ldr r1, =board_latency_read\n"
        "    str r0, [r1]\n"
        "    ldr r1, =switchscope_latency_irq\n"
        "    bx r1\n"
        ".ltorg\n"
        ".size board_latency_entry, . - board_latency_entry\n"
        ".text\n");
