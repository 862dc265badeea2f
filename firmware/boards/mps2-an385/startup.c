/* Vector table and reset for the Cortex-M3 of mps2-an385. */
#include <stdint.h>
#include <string.h>
#include "switchscope/board.h"

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;
int main(void);
void board_fault_handler(void);

void Reset_Handler(void)
{
    memcpy(&__data_start, &__data_load, (size_t)((char *)&__data_end - (char *)&__data_start));
    memset(&__bss_start, 0, (size_t)((char *)&__bss_end - (char *)&__bss_start));
    main();
    board_exit(4);
}

/* Provided by the kernel port under these standard names (weak defaults in board.c). */
void SVC_Handler(void);
void PendSV_Handler(void);
void SysTick_Handler(void);

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
};
