/*
 * What every Cortex-M board shares: the reset handler and vector table,
 * SysTick's count for pacing, the software interrupt, the semihosting call
 * (parameters in, exit code out, on QEMU), and the report of an unexpected
 * exception. A board supplies the rest of board.h (a board that QEMU runs to
 * its end: cortex_m_semihosted.c, its flush, idle, exit and description).
 */
#if defined(__arm__)
#include <stdint.h>
#include <string.h>
#include "switchscope/board.h"
#include "switchscope/cortex_m.h"
#include "switchscope/harness_fail.h"
#include "switchscope/load.h" /* SWITCHSCOPE_LOAD_VOIP: the load timer's vector */

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;
int main(void);

#define CPACR CORTEX_M_REG(0xE000ED88u)
#define CPACR_CP10_CP11_FULL (0xFu << 20)

void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* Built for the FPU (hard float): CP10 and CP11, the FPU, full access before any floating-point
     * instruction (they fault until then); FPCCR keeps its reset value, automatic and lazy state
     * preservation on (ASPEN, LSPEN). */
    CPACR |= CPACR_CP10_CP11_FULL;
    __asm__ volatile("dsb\n isb" ::: "memory");
#endif
    memcpy(&__data_start, &__data_load, (size_t)((char *)&__data_end - (char *)&__data_start));
    memset(&__bss_start, 0, (size_t)((char *)&__bss_end - (char *)&__bss_start));
    main();
    board_exit(4);
}

#define NVIC_ISER0 CORTEX_M_REG(0xE000E100u)
#define NVIC_IPR_BYTE(n) (*(volatile uint8_t *)(0xE000E400u + (n)))
#define NVIC_STIR CORTEX_M_REG(0xE000EF00u)

#if CORTEX_M_ARMV6M
/* ARMv6-M: no MOVW/MOVT, SysTick's base from a literal of this function's own. */
uint32_t cortex_m_systick_now(void)
{
    uint32_t count;
    __asm__ volatile("ldr %0, =0xE000E010\n\t"
                     "ldr %0, [%0, #8]"
                     : "=l"(count));
    return count;
}

/* ARMv6-M reaches the priority registers a word at a time, and has no STIR: the
 * interrupt is pended through ISPR. */
#define NVIC_IPR_WORD(n) CORTEX_M_REG(0xE000E400u + 4u * ((n) / 4u))
#define NVIC_ISPR0 CORTEX_M_REG(0xE000E200u)

void cortex_m_soft_irq_enable(void)
{
    unsigned shift = 8u * (BOARD_SOFT_IRQ_NUMBER % 4u);
    NVIC_IPR_WORD(BOARD_SOFT_IRQ_NUMBER) =
        (NVIC_IPR_WORD(BOARD_SOFT_IRQ_NUMBER) & ~(0xFFu << shift)) | (uint32_t)BOARD_SOFT_IRQ_PRIORITY << shift;
    NVIC_ISER0 = 1u << BOARD_SOFT_IRQ_NUMBER;
}

void board_soft_irq_pend(void) { NVIC_ISPR0 = 1u << BOARD_SOFT_IRQ_NUMBER; }
#else
uint32_t cortex_m_systick_now(void)
{
    uint32_t count;
    __asm__ volatile("movw %0, #0xE010\n\t"
                     "movt %0, #0xE000\n\t"
                     "ldr %0, [%0, #8]"
                     : "=r"(count));
    return count;
}

void cortex_m_soft_irq_enable(void)
{
    NVIC_IPR_BYTE(BOARD_SOFT_IRQ_NUMBER) = BOARD_SOFT_IRQ_PRIORITY;
    NVIC_ISER0 = 1u << BOARD_SOFT_IRQ_NUMBER;
}

void board_soft_irq_pend(void) { NVIC_STIR = BOARD_SOFT_IRQ_NUMBER; }
#endif

int cortex_m_semihosting(int operation, void *argument)
{
    register int r0 __asm__("r0") = operation;
    register void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

const char *cortex_m_semihosting_cmdline(void)
{
    static char cmdline[128];
    struct { char *buffer; int length; } block = {cmdline, sizeof cmdline - 1};
    if (cortex_m_semihosting(SEMIHOSTING_SYS_GET_CMDLINE, &block) != 0)
        return "";
    cmdline[block.length] = '\0';
    return cmdline;
}

void cortex_m_semihosting_exit(int code)
{
    struct { uint32_t reason; uint32_t code; } block = {SEMIHOSTING_APPLICATION_EXIT, (uint32_t)code};
    for (;;)
        cortex_m_semihosting(SEMIHOSTING_SYS_EXIT_EXTENDED, &block);
}

/*
 * Run by switchscope's simulator runner (run parameter stream=semihosting),
 * the record stream leaves in batches, by semihosting's SYS_WRITE to QEMU's
 * own standard output (opened by name, for appending: a blocking write of
 * the whole batch, where a console chardev shared with the UART would drop
 * what a full pipe did not take): one trap and one host write per batch,
 * where a UART model costs a write to the device and one host write per
 * byte. The bytes are the UART's would be; they leave outside the measured
 * windows, so no figure moves.
 */
#define BATCH_BYTES 512
#define SEMIHOSTING_SYS_OPEN 0x01
#define SEMIHOSTING_SYS_WRITE 0x05
#define SEMIHOSTING_MODE_APPEND 8 /* "a" */

static int batching;
static uint8_t batch[BATCH_BYTES];
static size_t batched;
static int console = -1;

void cortex_m_batch_stream_start(void)
{
    batching = strstr(cortex_m_semihosting_cmdline(), "stream=semihosting") != 0;
}

void cortex_m_batch_flush(void)
{
    if (!batched)
        return;
    if (console < 0) {
        static const char name[] = "/dev/stdout";
        struct { const char *name; uint32_t mode; uint32_t length; } open = {name, SEMIHOSTING_MODE_APPEND,
                                                                            sizeof name - 1};
        console = cortex_m_semihosting(SEMIHOSTING_SYS_OPEN, &open);
    }
    struct { int handle; const uint8_t *data; uint32_t length; } write = {console, batch, (uint32_t)batched};
    cortex_m_semihosting(SEMIHOSTING_SYS_WRITE, &write);
    batched = 0;
}

int cortex_m_batch_write(const uint8_t *data, size_t len)
{
    if (!batching)
        return 0;
    while (len) { /* a plain copy loop: QEMU runs it as one translated block per byte */
        size_t room = BATCH_BYTES - batched, take = len < room ? len : room;
        for (size_t i = 0; i < take; i++)
            batch[batched + i] = data[i];
        batched += take, data += take, len -= take;
        if (batched == BATCH_BYTES)
            cortex_m_batch_flush();
    }
    return 1;
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
#if CORTEX_M_ARMV6M /* no IT, no TST with an immediate: EXC_RETURN's bit 2 says which stack */
    if ((uint32_t)__builtin_return_address(0) & 4u)
        __asm__ volatile("mrs %0, psp" : "=r"(frame));
    else
        __asm__ volatile("mrs %0, msp" : "=r"(frame));
#else
    __asm__ volatile("tst lr, #4\n ite eq\n mrseq %0, msp\n mrsne %0, psp" : "=r"(frame));
#endif
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
void switchscope_load_irq(void) __attribute__((weak, alias("board_fault_handler")));
void switchscope_latency_irq(void) __attribute__((weak, alias("board_fault_handler")));

#define EXTERNAL_IRQS 32

__attribute__((section(".vectors"), used))
static void (*const vector_table[16 + EXTERNAL_IRQS])(void) = {
    [0] = (void (*)(void))&__stack_top,
    [1] = Reset_Handler,
    [2] = board_fault_handler,  /* NMI */
    [3] = board_fault_handler,  /* HardFault */
    [4] = board_fault_handler,  /* MemManage */
    [5] = board_fault_handler,  /* BusFault */
    [6] = board_fault_handler,  /* UsageFault */
    [11] = SVC_Handler,
    [12] = board_fault_handler, /* DebugMonitor */
    [14] = PendSV_Handler,
    [15] = SysTick_Handler,
    [16 + BOARD_SOFT_IRQ_NUMBER] = switchscope_soft_irq,
#ifdef BOARD_LATENCY_IRQ_NUMBER
    [16 + BOARD_LATENCY_IRQ_NUMBER] = board_latency_entry, /* the irq-latency scenarios' timer */
#endif
#if SWITCHSCOPE_LOAD_VOIP
    [16 + BOARD_LOAD_IRQ_NUMBER] = switchscope_load_irq, /* load=voip's timer */
#endif
};
#endif
