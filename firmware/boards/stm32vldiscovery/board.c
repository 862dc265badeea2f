/*
 * STM32 kits, on the chip and on QEMU's model of the kit, with one image:
 * USART1 (TX on PA9) for the record stream, a kit LED as the scope pin, the
 * DWT cycle counter or SysTick for stamps. Reset, vectors, the software
 * interrupt and the fault report: common/cortex_m.c.
 *
 * On the chip (the DWT cycle counter counts): the clock is set up from the
 * internal oscillator (no crystal assumed; the STM32F103's PLL needs its
 * crystal for 72 MHz), the run's parameters are the image's defaults and the
 * run ends in a sleep loop. On QEMU (it has no DWT): the F1 and F4 models
 * ignore the clock registers, so the clock is set up on the chip only; the
 * L4 model has its clock tree (SysTick counts at what the PLL gives), so the
 * L4 sets it up everywhere. Semihosting brings the parameters in and the exit
 * code out, as on mps2.
 *
 * The flash interface (FLASH_ACR) is programmed everywhere, on QEMU too, as
 * a real application's clock set-up does before the clock rises: QEMU ignores
 * the register, but the timing plugin follows the stores to it, so the flash
 * model sees the wait states and the accelerator the chip would run with.
 * Each family's value is what STM32Cube's own start-up gives at that clock:
 * HAL_Init() with the HAL configuration template's PREFETCH_ENABLE,
 * INSTRUCTION_CACHE_ENABLE and DATA_CACHE_ENABLE, then SystemClock_Config()'s
 * FLASH_LATENCY_n for the clock (STM32CubeF4 at 168 MHz: 5 wait states,
 * prefetch and both caches; STM32CubeL4 at 80 MHz: 4 wait states, both caches
 * and its template's prefetch off; STM32CubeF1 at 72 MHz: 2 wait states and
 * the prefetch buffer). The value-line STM32F100 at 24 MHz has nothing to
 * program: its FLASH_ACR holds only the half-cycle access bit (RM0041).
 */
#include <stdint.h>
#include <string.h>
#include "switchscope/board.h"
#include "switchscope/cortex_m.h"
#include "switchscope/harness_fail.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define DEMCR REG(0xE000EDFCu)
#define DEMCR_TRCENA (1u << 24)
#define DWT_CTRL REG(0xE0001000u)
#define DWT_CTRL_CYCCNTENA 1u
#define DWT_CYCCNT REG(0xE0001004u)

#define USART_CR1_TE (1u << 3)
#define USART_TXE (1u << 7)
#define USART_BAUD 1000000u

#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)

/* FLASH_ACR of the F4 and the L4 (RM0090 3.9.1, RM0394 3.7.1): the same bits. */
#define FLASH_ACR_PRFTEN (1u << 8)
#define FLASH_ACR_ICEN (1u << 9)
#define FLASH_ACR_DCEN (1u << 10)
#define FLASH_ACR_ICRST (1u << 11)
#define FLASH_ACR_DCRST (1u << 12)

#if defined(STM32_F4)
/* STM32F405: HSI 16 MHz / M 8 x N 168 / P 2 = 168 MHz; APB2 (USART1) 84 MHz. */
#define RCC_BASE 0x40023800u
#define RCC_CR REG(RCC_BASE + 0x00u)
#define RCC_PLLCFGR REG(RCC_BASE + 0x04u)
#define RCC_CFGR REG(RCC_BASE + 0x08u)
#define RCC_AHB1ENR REG(RCC_BASE + 0x30u)
#define RCC_APB2ENR REG(RCC_BASE + 0x44u)
#define RCC_CR_HSION 1u
#define RCC_CR_HSIRDY (1u << 1)
#define RCC_SW_PLL 2u
#define FLASH_ACR REG(0x40023C00u)
#define FLASH_ACR_AT_CLOCK (5u | FLASH_ACR_PRFTEN | FLASH_ACR_ICEN | FLASH_ACR_DCEN)
#define USART1_BASE 0x40011000u
#define USART_STATUS(base) REG((base) + 0x00u) /* SR */
#define USART_TRANSMIT(base) REG((base) + 0x04u) /* DR */
#define USART_BRR(base) REG((base) + 0x08u)
#define USART_CR1(base) REG((base) + 0x0Cu)
#define USART_CR1_UE (1u << 13)
#define APB2_HZ (BOARD_CPU_CLOCK_HZ / 2u)
#define GPIOA_BASE 0x40020000u
#define GPIO_MODER(base) REG((base) + 0x00u)
#define GPIO_AFRH(base) REG((base) + 0x24u)
#define SCOPE_PIN_NAME "PA10" /* the Netduino Plus 2's LED */
#define SCOPE_BSRR 0x40020018u
#define SCOPE_PIN 10
#elif defined(STM32_L4)
/* STM32L4: MSI 4 MHz (its reset range) / M 1 x N 40 / R 2 = 80 MHz in voltage range 1 (the reset one);
 * APB2 (USART1) 80 MHz. */
#define RCC_BASE 0x40021000u
#define RCC_CR REG(RCC_BASE + 0x00u)
#define RCC_CFGR REG(RCC_BASE + 0x08u)
#define RCC_PLLCFGR REG(RCC_BASE + 0x0Cu)
#define RCC_AHB2ENR REG(RCC_BASE + 0x4Cu)
#define RCC_APB2ENR REG(RCC_BASE + 0x60u)
#define RCC_CR_MSIRDY (1u << 1)
#define RCC_SW_PLL 3u
#define FLASH_ACR REG(0x40022000u)
#define FLASH_ACR_AT_CLOCK (4u | FLASH_ACR_ICEN | FLASH_ACR_DCEN)
#define USART1_BASE 0x40013800u
#define USART_CR1(base) REG((base) + 0x00u)
#define USART_BRR(base) REG((base) + 0x0Cu)
#define USART_STATUS(base) REG((base) + 0x1Cu) /* ISR */
#define USART_TRANSMIT(base) REG((base) + 0x28u) /* TDR */
#define USART_CR1_UE 1u
#define APB2_HZ BOARD_CPU_CLOCK_HZ
#define GPIOA_BASE 0x48000000u
#define GPIOB_BASE 0x48000400u
#define GPIO_MODER(base) REG((base) + 0x00u)
#define GPIO_AFRH(base) REG((base) + 0x24u)
#define SCOPE_PIN_NAME "PB3" /* the Nucleo-L432KC's LED (LD3) */
#define SCOPE_BSRR 0x48000418u
#define SCOPE_PIN 3
#else
/* STM32F1. The value line's STM32F100: HSI 8 MHz / 2 x 6 = 24 MHz, its maximum, no flash wait states. The
 * performance line's STM32F103 (STM32_F103): HSE 8 MHz x 9 = 72 MHz, its maximum, APB1 / 2 (36 MHz at most). */
#define RCC_BASE 0x40021000u
#define RCC_CR REG(RCC_BASE + 0x00u)
#define RCC_CFGR REG(RCC_BASE + 0x04u)
#define RCC_APB2ENR REG(RCC_BASE + 0x18u)
#define RCC_CR_HSION 1u
#define RCC_CR_HSIRDY (1u << 1)
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_SW_PLL 2u
#if defined(STM32_F103)
/* RM0008 3.3.3 FLASH_ACR: LATENCY 2 (48 < SYSCLK <= 72 MHz), PRFTBE (bit 4) */
#define FLASH_ACR REG(0x40022000u)
#define FLASH_ACR_AT_CLOCK (2u | 1u << 4)
#define RCC_CFGR_PLL (1u << 16 /* HSE */ | 7u << 18 /* x 9 */ | 4u << 8 /* APB1 / 2 */)
#else
#define RCC_CFGR_PLL (4u << 18) /* HSI / 2 x 6, buses / 1 */
#endif
#define USART1_BASE 0x40013800u
#define USART_STATUS(base) REG((base) + 0x00u) /* SR */
#define USART_TRANSMIT(base) REG((base) + 0x04u) /* DR */
#define USART_BRR(base) REG((base) + 0x08u)
#define USART_CR1(base) REG((base) + 0x0Cu)
#define USART_CR1_UE (1u << 13)
#define APB2_HZ BOARD_CPU_CLOCK_HZ
#define GPIOA_BASE 0x40010800u
#define GPIOC_BASE 0x40011000u
#define GPIO_CRH(base) REG((base) + 0x04u)
#define SCOPE_PIN_NAME "PC8" /* the STM32VLDISCOVERY's blue LED */
#define SCOPE_BSRR 0x40011010u
#define SCOPE_PIN 8
#endif

/* On QEMU the STM32F100's SysTick counts at the machine's own clock, whatever the target's (bluepill: the
 * F100 at 24 MHz timed as an F103 at 72 MHz); board.toml's cflags say so where they differ. */
#ifndef BOARD_SYSTICK_CLOCK_HZ
#define BOARD_SYSTICK_CLOCK_HZ BOARD_CPU_CLOCK_HZ
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

#if defined(FLASH_ACR_AT_CLOCK)
/* What was programmed: QEMU reads the register as 0, so the caches' reset sequence works from this, not from
 * a read of FLASH_ACR (which on the chip gives the same). */
static uint32_t flash_acr_programmed;
#endif

/* The wait states for the clock about to be set, and the accelerator, before the clock rises. */
static void flash_interface_for_clock(void)
{
#if defined(FLASH_ACR_AT_CLOCK)
    flash_acr_programmed = FLASH_ACR_AT_CLOCK;
    FLASH_ACR = flash_acr_programmed;
#endif
}

#if defined(FLASH_ACR_AT_CLOCK) && (defined(STM32_F4) || defined(STM32_L4))
/* FLASH_ACR's ICRST and DCRST (RM0090 3.9.1, RM0394 3.7.1) can be written only while their cache is disabled.
 * So: disable both caches, reset them, release the reset, enable them again as they were programmed. */
void board_empty_caches(void)
{
    uint32_t disabled = flash_acr_programmed & ~(FLASH_ACR_ICEN | FLASH_ACR_DCEN);
    FLASH_ACR = disabled;
    FLASH_ACR = disabled | FLASH_ACR_ICRST | FLASH_ACR_DCRST;
    FLASH_ACR = disabled;
    FLASH_ACR = flash_acr_programmed;
}
#endif

static void clock_raised(void)
{
    RCC_CR |= RCC_CR_PLLON;
    wait_for(&RCC_CR, RCC_CR_PLLRDY, RCC_CR_PLLRDY);
    RCC_CFGR = (RCC_CFGR & ~3u) | RCC_SW_PLL;
    wait_for(&RCC_CFGR, 0xCu, RCC_SW_PLL << 2);
}

static void clock_set_up(void)
{
#if defined(STM32_F4)
    RCC_CR |= RCC_CR_HSION;
    wait_for(&RCC_CR, RCC_CR_HSIRDY, RCC_CR_HSIRDY);
    RCC_PLLCFGR = 8u | 168u << 6 | 0u << 16 /* P = 2 */ | 0u << 22 /* HSI */ | 7u << 24 /* Q: 48 MHz */;
    RCC_CFGR = (RCC_CFGR & ~0xFCF0u) | 5u << 10 /* APB1 / 4 */ | 4u << 13 /* APB2 / 2 */;
#elif defined(STM32_L4)
    wait_for(&RCC_CR, RCC_CR_MSIRDY, RCC_CR_MSIRDY);
    RCC_PLLCFGR = 1u /* MSI */ | 0u << 4 /* M = 1 */ | 40u << 8 /* N */ | 1u << 24 /* PLLREN */ | 0u << 25 /* R = 2 */;
#elif defined(STM32_F103)
    RCC_CR |= RCC_CR_HSEON;
    wait_for(&RCC_CR, RCC_CR_HSERDY, RCC_CR_HSERDY);
    RCC_CFGR = (RCC_CFGR & ~(0xFu << 18 | 1u << 16 | 0x3FF0u)) | RCC_CFGR_PLL;
#else
    RCC_CR |= RCC_CR_HSION;
    wait_for(&RCC_CR, RCC_CR_HSIRDY, RCC_CR_HSIRDY);
    RCC_CFGR = (RCC_CFGR & ~(0xFu << 18 | 1u << 16 | 0x3FF0u)) | RCC_CFGR_PLL;
#endif
    clock_raised();
}

static void pins_and_usart(void)
{
#if defined(STM32_F4)
    RCC_AHB1ENR |= 1u;         /* GPIOA */
    RCC_APB2ENR |= 1u << 4;    /* USART1 */
    GPIO_MODER(GPIOA_BASE) = (GPIO_MODER(GPIOA_BASE) & ~(3u << 18 | 3u << 20)) | 2u << 18 /* PA9 AF */
                             | 1u << 20 /* PA10 output */;
    GPIO_AFRH(GPIOA_BASE) = (GPIO_AFRH(GPIOA_BASE) & ~(0xFu << 4)) | 7u << 4; /* PA9: AF7, USART1_TX */
#elif defined(STM32_L4)
    RCC_AHB2ENR |= 1u | 1u << 1; /* GPIOA, GPIOB */
    RCC_APB2ENR |= 1u << 14;     /* USART1 */
    GPIO_MODER(GPIOA_BASE) = (GPIO_MODER(GPIOA_BASE) & ~(3u << 18)) | 2u << 18; /* PA9 AF */
    GPIO_AFRH(GPIOA_BASE) = (GPIO_AFRH(GPIOA_BASE) & ~(0xFu << 4)) | 7u << 4; /* PA9: AF7, USART1_TX */
    GPIO_MODER(GPIOB_BASE) = (GPIO_MODER(GPIOB_BASE) & ~(3u << 6)) | 1u << 6;   /* PB3 output */
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
    flash_interface_for_clock();
#if defined(STM32_L4)
    clock_set_up(); /* QEMU's L4 models its clock tree: SysTick counts at the PLL's 80 MHz there too */
#else
    if (board_stamp_with_dwt)
        clock_set_up();
#endif
    pins_and_usart();
    cortex_m_soft_irq_enable();
}

void board_flush(void) {} /* every byte is written as it comes */

void board_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while (!(USART_STATUS(USART1_BASE) & USART_TXE))
            ;
        USART_TRANSMIT(USART1_BASE) = data[i];
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
    if (board_stamp_with_dwt)
        return BOARD_CPU_CLOCK_HZ;
    return SYSTICK_CTRL & SYSTICK_CTRL_CLKSOURCE_CPU ? BOARD_SYSTICK_CLOCK_HZ : BOARD_SYSTICK_CLOCK_HZ / 8u;
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

#if defined(STM32_F4)
/*
 * The latency timer: TIM2 as QEMU models it (hw/timer/stm32f2xx_timer.c), a
 * 1 GHz count of virtual time that interrupts `ARR` counts after the store
 * to ARR, as long as nothing moved its origin: a store to CNT, PSC or EGR's
 * UG sets the origin to the store's time and the model then adds that time
 * again to every deadline (each one lands at about twice the time it was
 * armed at). So the board never stores to those: CNT reads the time since
 * reset, and arming is a store to ARR. Its interrupt, once taken, re-arms
 * itself every ARR counts, and fires while CEN is set: the handler's stop
 * clears CEN, and each arming first moves that deadline away. The chip's
 * TIM2 counts at 84 MHz and knows one-pulse mode; its board code would
 * differ, so on the chip the irq-latency scenarios stop with a message
 * instead.
 */
#define TIM2_BASE 0x40000000u
#define TIM_CR1(base) REG((base) + 0x00u)
#define TIM_DIER(base) REG((base) + 0x0Cu)
#define TIM_SR(base) REG((base) + 0x10u)
#define TIM_CNT(base) REG((base) + 0x24u)
#define TIM_ARR(base) REG((base) + 0x2Cu)
#define TIM_CR1_CEN 1u
#define TIM_DIER_UIE 1u
#define NVIC_ISER(n) REG(0xE000E100u + 4u * (n))
#define NVIC_ICPR(n) REG(0xE000E280u + 4u * (n))
#define NVIC_IPR_BYTE(n) (*(volatile uint8_t *)(0xE000E400u + (n)))

/* An application without switchscope's harness (measure --build-example) links this board code too, and never
 * asks for cold caches: the harness's own flag replaces this one where it is linked. */
__attribute__((weak)) uint32_t harness_cold_caches = 0;

/* The count the timer expires at, and the one the interrupt's entry read. */
uint32_t board_latency_expiry = 0;
volatile uint32_t board_latency_read;
/* TIM2's counts in one instruction of QEMU's virtual time: two reads of the count in a row, once. */
static uint32_t tim2_counts_per_instruction;

static void latency_timer_set_up(void)
{
    uint32_t first, second;
    __asm__ volatile("ldr %[first], [%[cnt]]\n\t"
                     "ldr %[second], [%[cnt]]"
                     : [first] "=&r"(first), [second] "=&r"(second) : [cnt] "r"(&TIM_CNT(TIM2_BASE)) : "memory");
    tim2_counts_per_instruction = second - first;
}

void board_latency_timer_arm(uint32_t counts)
{
    if (board_stamp_with_dwt)
        harness_fail("irq-latency on the chip: this board code times TIM2 as QEMU models it; the chip's counts at "
                     "84 MHz in one-pulse mode, which it does not drive yet: measure irq-latency simulated");
    if (!tim2_counts_per_instruction)
        latency_timer_set_up();
    if (harness_cold_caches) /* cache=cold: the ART's caches emptied before each sample is armed */
        board_empty_caches();
    uint32_t now;
    TIM_CR1(TIM2_BASE) = 0;
    TIM_ARR(TIM2_BASE) = 0xFFFFFFFFu; /* the model's last deadline moved 4.3 s away: none fires while this is armed */
    TIM_SR(TIM2_BASE) = 0;
    NVIC_ICPR(BOARD_LATENCY_IRQ_NUMBER / 32) = 1u << (BOARD_LATENCY_IRQ_NUMBER % 32);
    NVIC_IPR_BYTE(BOARD_LATENCY_IRQ_NUMBER) = BOARD_LATENCY_IRQ_PRIORITY;
    NVIC_ISER(BOARD_LATENCY_IRQ_NUMBER / 32) = 1u << (BOARD_LATENCY_IRQ_NUMBER % 32);
    TIM_DIER(TIM2_BASE) = TIM_DIER_UIE;
    TIM_CR1(TIM2_BASE) = TIM_CR1_CEN;
    /* The expiry is kept before the arming store, as the interrupt may come at once: the count read, then three
     * instructions to the store (the add, the expiry's store, the arming store), then the delay. No interrupt of a
     * lower priority than the timer's (the kernel's tick) may come between the read and the store: BASEPRI holds
     * them off for those four instructions, and lets the timer's own through. */
    uint32_t basepri = BOARD_LATENCY_IRQ_PRIORITY + 0x10u, open = 0;
    __asm__ volatile("msr basepri, %[basepri]\n\t"
                     "ldr %[now], [%[cnt]]\n\t"
                     "add %[now], %[now], %[ahead]\n\t"
                     "str %[now], [%[expiry]]\n\t"
                     "str %[counts], [%[arr]]\n\t"
                     "msr basepri, %[open]"
                     : [now] "=&r"(now)
                     : [basepri] "r"(basepri), [open] "r"(open), [cnt] "r"(&TIM_CNT(TIM2_BASE)),
                       [ahead] "r"(counts + 3u * tim2_counts_per_instruction), [expiry] "r"(&board_latency_expiry),
                       [counts] "r"(counts), [arr] "r"(&TIM_ARR(TIM2_BASE))
                     : "memory");
}

void board_latency_timer_stop(void)
{
    TIM_CR1(TIM2_BASE) = 0;
    TIM_SR(TIM2_BASE) = 0;
    NVIC_ICPR(BOARD_LATENCY_IRQ_NUMBER / 32) = 1u << (BOARD_LATENCY_IRQ_NUMBER % 32);
}

/* SysTick, the kernel's tick, counts down at the core clock: the counts to the tick in TIM2's 1 GHz counts
 * (1e9 / 168 MHz = 125 / 21). */
uint32_t board_latency_counts_to_tick(void) { return cortex_m_systick_now() * 125u / 21u; }

/* The probe: the interrupt's entry reads the count in its third instruction ([latency_timer] read_offset),
 * keeps it, and goes on to the scenario's handler (r0 and r1 were stacked by the exception entry). */
CORTEX_M_LATENCY_ENTRY(".board_latency_entry", "0x0024", "0x4000"); /* TIM2 CNT; placed last (link.ld) */
#endif

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
