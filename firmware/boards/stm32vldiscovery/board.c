/*
 * STM32 kits, on the chip and on QEMU's model of the kit, with one image:
 * USART1 (TX on PA9) for the record stream, a kit LED as the scope pin, the
 * DWT cycle counter or SysTick for stamps. Reset, vectors, the software
 * interrupt and the fault report: common/cortex_m.c.
 *
 * On the chip (the DWT cycle counter counts): the clock is set up from the
 * internal oscillator (no crystal assumed), the run's parameters are the
 * image's defaults and the run ends in a sleep loop. On QEMU (it has no DWT):
 * its model ignores the clock registers, and semihosting brings the
 * parameters in and the exit code out, as on mps2.
 */
#include <stdint.h>
#include <string.h>
#include "switchscope/board.h"
#include "switchscope/cortex_m.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define DEMCR REG(0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL REG(0xE0001000u)
#define DWT_CTRL_CYCCNTENA 1u
#define DWT_CYCCNT REG(0xE0001004u)

#define USART_SR(base) REG((base) + 0x00u)
#define USART_DR(base) REG((base) + 0x04u)
#define USART_BRR(base) REG((base) + 0x08u)
#define USART_CR1(base) REG((base) + 0x0Cu)
#define USART_SR_TXE (1u << 7)
#define USART_CR1_UE (1u << 13)
#define USART_CR1_TE (1u << 3)
#define USART_BAUD 1000000u

#define RCC_CR_HSION 1u
#define RCC_CR_HSIRDY (1u << 1)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_CFGR_SW_PLL 2u
#define RCC_CFGR_SWS_PLL (2u << 2)

#if defined(STM32_F4)
/* STM32F405: HSI 16 MHz / M 8 x N 168 / P 2 = 168 MHz; APB2 (USART1) 84 MHz. */
#define RCC_BASE 0x40023800u
#define RCC_CR REG(RCC_BASE + 0x00u)
#define RCC_PLLCFGR REG(RCC_BASE + 0x04u)
#define RCC_CFGR REG(RCC_BASE + 0x08u)
#define RCC_AHB1ENR REG(RCC_BASE + 0x30u)
#define RCC_APB2ENR REG(RCC_BASE + 0x44u)
#define FLASH_ACR REG(0x40023C00u)
#define FLASH_ACR_168MHZ (5u | 1u << 8 | 1u << 9 | 1u << 10) /* 5 wait states, prefetch, I and D caches */
#define USART1_BASE 0x40011000u
#define APB2_HZ (BOARD_CPU_CLOCK_HZ / 2u)
#define GPIOA_BASE 0x40020000u
#define GPIO_MODER(base) REG((base) + 0x00u)
#define GPIO_AFRH(base) REG((base) + 0x24u)
#define SCOPE_PIN_NAME "PA10" /* the Netduino Plus 2's LED */
#define SCOPE_BSRR 0x40020018u
#define SCOPE_PIN 10
#else
/* STM32F100: HSI 8 MHz / 2 x 6 = 24 MHz, its maximum; APB2 (USART1) 24 MHz, no flash wait states. */
#define RCC_BASE 0x40021000u
#define RCC_CR REG(RCC_BASE + 0x00u)
#define RCC_CFGR REG(RCC_BASE + 0x04u)
#define RCC_APB2ENR REG(RCC_BASE + 0x18u)
#define RCC_CFGR_PLLMUL_6 (4u << 18)
#define USART1_BASE 0x40013800u
#define APB2_HZ BOARD_CPU_CLOCK_HZ
#define GPIOA_BASE 0x40010800u
#define GPIOC_BASE 0x40011000u
#define GPIO_CRH(base) REG((base) + 0x04u)
#define SCOPE_PIN_NAME "PC8" /* the STM32VLDISCOVERY's blue LED */
#define SCOPE_BSRR 0x40011010u
#define SCOPE_PIN 8
#endif

uint32_t board_stamp_with_dwt;

/* Enable the cycle counter and see whether it moves: it does on every
 * Cortex-M3/M4 chip, it reads 0 on QEMU. */
static uint32_t cycle_counter_counts(void)
{
    DEMCR |= DEMCR_TRCENA;
    DWT_CYCCNT = 0;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    for (volatile int i = 0; i < 16; i++)
        ;
    return DWT_CYCCNT != 0;
}

static void wait_for(volatile uint32_t *reg, uint32_t mask, uint32_t value)
{
    for (uint32_t tries = 0; (*reg & mask) != value && tries < 1000000u; tries++)
        ;
}

static void clock_from_internal_oscillator(void)
{
    RCC_CR |= RCC_CR_HSION;
    wait_for(&RCC_CR, RCC_CR_HSIRDY, RCC_CR_HSIRDY);
#if defined(STM32_F4)
    FLASH_ACR = FLASH_ACR_168MHZ; /* before the clock rises */
    RCC_PLLCFGR = 8u | 168u << 6 | 0u << 16 /* P = 2 */ | 0u << 22 /* HSI */ | 7u << 24 /* Q: 48 MHz */;
    RCC_CFGR = (RCC_CFGR & ~0xFCF0u) | 5u << 10 /* APB1 / 4 */ | 4u << 13 /* APB2 / 2 */;
#else
    RCC_CFGR = (RCC_CFGR & ~(0xFu << 18 | 1u << 16 | 0x3FF0u)) | RCC_CFGR_PLLMUL_6; /* HSI / 2 x 6, buses / 1 */
#endif
    RCC_CR |= RCC_CR_PLLON;
    wait_for(&RCC_CR, RCC_CR_PLLRDY, RCC_CR_PLLRDY);
    RCC_CFGR = (RCC_CFGR & ~3u) | RCC_CFGR_SW_PLL;
    wait_for(&RCC_CFGR, 0xCu, RCC_CFGR_SWS_PLL);
}

static void pins_and_usart(void)
{
#if defined(STM32_F4)
    RCC_AHB1ENR |= 1u;         /* GPIOA */
    RCC_APB2ENR |= 1u << 4;    /* USART1 */
    GPIO_MODER(GPIOA_BASE) = (GPIO_MODER(GPIOA_BASE) & ~(3u << 18 | 3u << 20)) | 2u << 18 /* PA9 AF */
                             | 1u << 20 /* PA10 output */;
    GPIO_AFRH(GPIOA_BASE) = (GPIO_AFRH(GPIOA_BASE) & ~(0xFu << 4)) | 7u << 4; /* PA9: AF7, USART1_TX */
#else
    RCC_APB2ENR |= 1u << 2 | 1u << 4 | 1u << 14; /* GPIOA, GPIOC, USART1 */
    GPIO_CRH(GPIOA_BASE) = (GPIO_CRH(GPIOA_BASE) & ~(0xFu << 4)) | 0xBu << 4; /* PA9: alternate push-pull */
    GPIO_CRH(GPIOC_BASE) = (GPIO_CRH(GPIOC_BASE) & ~0xFu) | 0x3u;          /* PC8: push-pull output */
#endif
    USART_BRR(USART1_BASE) = APB2_HZ / USART_BAUD;
    USART_CR1(USART1_BASE) = USART_CR1_UE | USART_CR1_TE;
}

void board_init(void)
{
    board_stamp_with_dwt = cycle_counter_counts();
    if (board_stamp_with_dwt)
        clock_from_internal_oscillator();
    pins_and_usart();
    cortex_m_soft_irq_enable();
}

void board_flush(void) {} /* every byte is written as it comes */

void board_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while (!(USART_SR(USART1_BASE) & USART_SR_TXE))
            ;
        USART_DR(USART1_BASE) = data[i];
    }
}

/* The host writes the parameters of a real kit's run here, after the magic, in
 * the image it flashes (a chip has no semihosting); as built it holds the
 * magic alone. Volatile: the compiler must read what the image holds, not
 * what it was built with. */
#define PARAMETER_MAGIC "ss:"
const volatile char board_image_parameters[64] = PARAMETER_MAGIC;

const char *board_parameters(void)
{
    static char written[sizeof board_image_parameters];
    for (size_t i = 0; i < sizeof written - 1; i++)
        written[i] = board_image_parameters[i];
    if (strncmp(written, PARAMETER_MAGIC, sizeof PARAMETER_MAGIC - 1) == 0 && written[sizeof PARAMETER_MAGIC - 1])
        return written + sizeof PARAMETER_MAGIC - 1;
    return board_stamp_with_dwt ? "" : cortex_m_semihosting_cmdline(); /* QEMU: the host's, by semihosting */
}

/* DWT_CYCCNT wraps at 2^32, which the harness writes as 0. */
uint32_t board_stamp_modulus(void) { return board_stamp_with_dwt ? 0u : SYSTICK_LOAD + 1u; }
int board_stamp_counts_down(void) { return !board_stamp_with_dwt; }

uint32_t board_stamp_now(void) { return board_stamp_with_dwt ? DWT_CYCCNT : cortex_m_systick_now(); }

uint32_t board_stamp_clock_hz(void)
{
    /* SysTick's CLKSOURCE 0 is the core clock / 8 on STM32. */
    return board_stamp_with_dwt || (SYSTICK_CTRL & SYSTICK_CTRL_CLKSOURCE_CPU) ? BOARD_CPU_CLOCK_HZ
                                                                               : BOARD_CPU_CLOCK_HZ / 8u;
}

#define SCOPE_TEXT_OF(x) #x
#define SCOPE_TEXT(x) SCOPE_TEXT_OF(x)
/* BSRR: bit n sets pin n, bit n + 16 clears it. The address is formed with
 * movw/movt, not loaded from a literal pool, so that the pulse costs the
 * same whatever load came before it (loads pipeline on the Cortex-M). */
__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.board_scope, \"axR\", %progbits\n" /* R: kept in every method's build, one layout */
        ".global board_scope_high, board_scope_low, board_scope_high_edge, board_scope_low_edge\n"
        ".thumb_func\n"
        "board_scope_high:\n"
        "    movw r0, #(" SCOPE_TEXT(SCOPE_BSRR) " & 0xFFFF)\n"
        "    movt r0, #(" SCOPE_TEXT(SCOPE_BSRR) " >> 16)\n"
        "    mov.w r1, #(1 << " SCOPE_TEXT(SCOPE_PIN) ")\n"
        "board_scope_high_edge:\n"
        "    str r1, [r0]\n"
        "    bx lr\n"
        ".thumb_func\n"
        "board_scope_low:\n"
        "    movw r0, #(" SCOPE_TEXT(SCOPE_BSRR) " & 0xFFFF)\n"
        "    movt r0, #(" SCOPE_TEXT(SCOPE_BSRR) " >> 16)\n"
        "    mov.w r1, #(1 << (" SCOPE_TEXT(SCOPE_PIN) " + 16))\n"
        "board_scope_low_edge:\n"
        "    str r1, [r0]\n"
        "    bx lr\n"
        ".text\n");

void board_idle(void) {}

void board_exit(int code)
{
    if (!board_stamp_with_dwt)
        cortex_m_semihosting_exit(code);
    for (;;) /* on the chip: the stream has said everything; wait for a reset */
        __asm__ volatile("wfi");
}

void board_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("board"), SS_TEXT(BOARD_NAME));
    emit(SS_TEXT("cpu"), SS_TEXT(BOARD_CPU));
    emit(SS_TEXT("f_cpu_hz"), SS_TEXT(BOARD_CPU_CLOCK_HZ_TEXT));
    emit(SS_TEXT("scope_pin"), SS_TEXT(SCOPE_PIN_NAME));
    emit(SS_TEXT("stamp_timer"), board_stamp_with_dwt ? SS_TEXT("DWT") : SS_TEXT("SysTick"));
}
