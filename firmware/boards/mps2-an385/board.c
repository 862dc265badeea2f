/*
 * mps2-an385 under QEMU: CMSDK UART0 for the record stream, semihosting for the
 * run parameters and the exit code, SysTick for stamps, TIMER0 for load=voip.
 * Reset, vectors, the software interrupt and the fault report: common/cortex_m.c;
 * the stream's flush, idle, exit and the board's description:
 * common/cortex_m_semihosted.c.
 */
#include <stdint.h>
#include <string.h>
#include "switchscope/board.h"
#include "switchscope/cortex_m.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define UART0_DATA REG(0x40004000u)
#define UART0_STATE REG(0x40004004u)
#define UART0_CTRL REG(0x40004008u)
#define UART0_BAUDDIV REG(0x40004010u)
#define UART_STATE_TX_FULL 0x1u
#define UART_CTRL_TX_ENABLE 0x1u

void board_init(void)
{
    UART0_BAUDDIV = 16;
    UART0_CTRL = UART_CTRL_TX_ENABLE;
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
        while (UART0_STATE & UART_STATE_TX_FULL)
            ;
        UART0_DATA = data[i];
    }
}

const char *board_parameters(void) { return cortex_m_semihosting_cmdline(); }

uint32_t board_stamp_modulus(void) { return SYSTICK_LOAD + 1u; }
int board_stamp_counts_down(void) { return 1; }

uint32_t board_stamp_now(void) { return cortex_m_systick_now(); }

uint32_t board_stamp_clock_hz(void)
{
    /* CLKSOURCE=1 is the core clock; 0 would be the 1 MHz reference. */
    return (SYSTICK_CTRL & SYSTICK_CTRL_CLKSOURCE_CPU) ? BOARD_CPU_CLOCK_HZ : 1000000u;
}

/* FPGAIO LED register: bit 0 is LED0. */
__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.board_scope, \"axR\", %progbits\n" /* R: kept in every method's build, one layout */
        ".global board_scope_high, board_scope_low, board_scope_high_edge, board_scope_low_edge\n"
        ".thumb_func\n"
        "board_scope_high:\n"
        "    movw r0, #0x8000\n"
        "    movt r0, #0x4002\n"
        "    movs r1, #1\n"
        "board_scope_high_edge:\n"
        "    str r1, [r0]\n"
        "    bx lr\n"
        ".thumb_func\n"
        "board_scope_low:\n"
        "    movw r0, #0x8000\n"
        "    movt r0, #0x4002\n"
        "    movs r1, #0\n"
        "board_scope_low_edge:\n"
        "    str r1, [r0]\n"
        "    bx lr\n"
        ".text\n");

#define TIMER0_CTRL REG(0x40000000u)
#define TIMER0_RELOAD REG(0x40000008u)
#define TIMER0_VALUE REG(0x40000004u)
#define TIMER0_INTCLEAR REG(0x4000000Cu)
#define TIMER_CTRL_ENABLE 0x1u
#define TIMER_CTRL_IRQ_ENABLE 0x8u
#define NVIC_ISER0 REG(0xE000E100u)
#define NVIC_IPR_BYTE(n) (*(volatile uint8_t *)(0xE000E400u + (n)))

void board_load_timer_start(uint32_t period_us)
{
    uint32_t counts = BOARD_LOAD_TIMER_HZ / 1000000u * period_us;
    TIMER0_RELOAD = counts - 1u;
    TIMER0_VALUE = counts - 1u;
    NVIC_IPR_BYTE(BOARD_LOAD_IRQ_NUMBER) = BOARD_SOFT_IRQ_PRIORITY;
    NVIC_ISER0 = 1u << BOARD_LOAD_IRQ_NUMBER;
    TIMER0_CTRL = TIMER_CTRL_ENABLE | TIMER_CTRL_IRQ_ENABLE;
}

void board_load_timer_acknowledge(void) { TIMER0_INTCLEAR = 1u; }

#define TIMER1_CTRL REG(0x40001000u)
#define TIMER1_VALUE REG(0x40001004u)
#define TIMER1_RELOAD REG(0x40001008u)
#define TIMER1_INTCLEAR REG(0x4000100Cu)
#define NVIC_ICPR0 REG(0xE000E280u)

/* The CMSDK timer counts VALUE down at the 25 MHz APB clock and interrupts
 * when it reaches 0; the store that enables it starts the count. */
void board_latency_timer_arm(uint32_t counts)
{
    TIMER1_CTRL = 0;
    TIMER1_INTCLEAR = 1u;
    NVIC_ICPR0 = 1u << BOARD_LATENCY_IRQ_NUMBER;
    NVIC_IPR_BYTE(BOARD_LATENCY_IRQ_NUMBER) = BOARD_LATENCY_IRQ_PRIORITY;
    NVIC_ISER0 = 1u << BOARD_LATENCY_IRQ_NUMBER;
    TIMER1_RELOAD = 0xFFFFFFFFu;
    TIMER1_VALUE = counts;
    TIMER1_CTRL = TIMER_CTRL_ENABLE | TIMER_CTRL_IRQ_ENABLE;
}

void board_latency_timer_stop(void)
{
    TIMER1_CTRL = 0;
    TIMER1_INTCLEAR = 1u;
}

/* The probe: the count reaches 0 as the timer expires, and reloads
 * 0xFFFFFFFF at the next: modulo 2^32, 0 less the count read is the counts
 * since. The interrupt's entry reads the count in its third instruction
 * ([latency_timer] read_offset), then goes on to the scenario's handler
 * (r0 and r1 were stacked by the exception entry). */
uint32_t board_latency_expiry = 0;
volatile uint32_t board_latency_read;

/* The kernel ticks from SysTick, which counts down at the core clock, as
 * TIMER1 does, and interrupts as it reaches 0: its count is the counts to go. */
uint32_t board_latency_counts_to_tick(void) { return cortex_m_systick_now(); }

CORTEX_M_LATENCY_ENTRY(".text.board_latency_entry", "0x1004", "0x4000"); /* TIMER1 VALUE */
