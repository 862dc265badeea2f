/*
 * mps2-an385 under QEMU: CMSDK UART0 for the record stream, semihosting for the
 * run parameters and the exit code, SysTick for stamps, NVIC STIR for the
 * software interrupt.
 */
#include <stdint.h>
#include "switchscope/board.h"
#include "switchscope/harness.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

#define UART0_DATA REG(0x40004000u)
#define UART0_STATE REG(0x40004004u)
#define UART0_CTRL REG(0x40004008u)
#define UART0_BAUDDIV REG(0x40004010u)
#define UART_STATE_TX_FULL 0x1u
#define UART_CTRL_TX_ENABLE 0x1u

#define SYSTICK_CTRL REG(0xE000E010u)
#define SYSTICK_LOAD REG(0xE000E014u)
#define SYSTICK_CTRL_CLKSOURCE_CPU 0x4u

#define NVIC_ISER0 REG(0xE000E100u)
#define NVIC_IPR_BYTE(n) (*(volatile uint8_t *)(0xE000E400u + (n)))
#define NVIC_STIR REG(0xE000EF00u)

#define SEMIHOSTING_SYS_GET_CMDLINE 0x15
#define SEMIHOSTING_SYS_EXIT_EXTENDED 0x20
#define SEMIHOSTING_APPLICATION_EXIT 0x20026

static int semihosting_call(int operation, void *argument)
{
    register int r0 __asm__("r0") = operation;
    register void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void board_init(void)
{
    UART0_BAUDDIV = 16;
    UART0_CTRL = UART_CTRL_TX_ENABLE;
    NVIC_IPR_BYTE(BOARD_SOFT_IRQ_NUMBER) = BOARD_SOFT_IRQ_PRIORITY;
    NVIC_ISER0 = 1u << BOARD_SOFT_IRQ_NUMBER;
}

void board_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while (UART0_STATE & UART_STATE_TX_FULL)
            ;
        UART0_DATA = data[i];
    }
}

const char *board_parameters(void)
{
    static char cmdline[128];
    struct { char *buffer; int length; } block = {cmdline, sizeof cmdline - 1};
    if (semihosting_call(SEMIHOSTING_SYS_GET_CMDLINE, &block) != 0)
        return "";
    cmdline[block.length] = '\0';
    return cmdline;
}

uint32_t board_stamp_modulus(void) { return SYSTICK_LOAD + 1u; }
int board_stamp_counts_down(void) { return 1; }

uint32_t board_stamp_now(void)
{
    /* SysTick's count register at an offset from SysTick's base: the simulator
     * logs only loads from the register's own address, the probe's stamps. */
    uint32_t count;
    __asm__ volatile("movw %0, #0xE010\n\t"
                     "movt %0, #0xE000\n\t"
                     "ldr %0, [%0, #8]"
                     : "=r"(count));
    return count;
}

uint32_t board_stamp_clock_hz(void)
{
    /* CLKSOURCE=1 is the core clock; 0 would be the 1 MHz reference. */
    return (SYSTICK_CTRL & SYSTICK_CTRL_CLKSOURCE_CPU) ? BOARD_CPU_CLOCK_HZ : 1000000u;
}

/* FPGAIO LED register: bit 0 is LED0. */
__asm__(".syntax unified\n"
        ".thumb\n"
        ".section .text.board_scope, \"ax\", %progbits\n"
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

/* Idle spins: the instruction counts between windows stay as they were. */
void board_idle(void) {}

void board_soft_irq_pend(void) { NVIC_STIR = BOARD_SOFT_IRQ_NUMBER; }

void board_exit(int code)
{
    struct { uint32_t reason; uint32_t code; } block = {SEMIHOSTING_APPLICATION_EXIT, (uint32_t)code};
    for (;;)
        semihosting_call(SEMIHOSTING_SYS_EXIT_EXTENDED, &block);
}

void board_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("board"), SS_TEXT(BOARD_NAME));
    emit(SS_TEXT("cpu"), SS_TEXT(BOARD_CPU));
    emit(SS_TEXT("f_cpu_hz"), SS_TEXT(BOARD_CPU_CLOCK_HZ_TEXT));
    emit(SS_TEXT("scope_pin"), SS_TEXT(BOARD_SCOPE_PIN));
}

static void hex32(char *out, uint32_t value)
{
    for (int i = 7; i >= 0; i--, value >>= 4)
        out[i] = "0123456789abcdef"[value & 0xF];
}

/* Every unexpected exception lands here: report which, and where it struck. */
void board_fault_handler(void)
{
    uint32_t ipsr, *frame;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    __asm__ volatile("tst lr, #4\n ite eq\n mrseq %0, msp\n mrsne %0, psp" : "=r"(frame));
    static char reason[] = "exception xxxxxxxx at pc=0xxxxxxxxx lr=0xxxxxxxxx";
    hex32(reason + 10, ipsr & 0x1FF);
    hex32(reason + 27, frame[6]);
    hex32(reason + 41, frame[5]);
    harness_fail_formatted(reason);
}

/* Handlers a kernel port provides under these standard names; a kernel that
 * does not use one leaves it on the fault handler. */
void SVC_Handler(void) __attribute__((weak, alias("board_fault_handler")));
void PendSV_Handler(void) __attribute__((weak, alias("board_fault_handler")));
void SysTick_Handler(void) __attribute__((weak, alias("board_fault_handler")));
void switchscope_soft_irq(void) __attribute__((weak, alias("board_fault_handler")));
