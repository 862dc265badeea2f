/* FreeRTOS's tick on a RISC-V board: what the port's port.c does for a
 * machine timer at numbered addresses (vPortSetupTimerInterrupt and the
 * enabling of the timer's interrupt), with the addresses the board's linker
 * script gives (board_config.h). FreeRTOSConfig.h names none to the port,
 * which would fold numbers into its code, whose size would then depend on the
 * machine's; the port then leaves this function to the application (a weak
 * symbol it calls from xPortStartScheduler). Every firmware built on
 * FreeRTOS here links it: the scenarios' and an application's
 * (kernel.toml, application_files). The port's tick handler reprograms
 * mtimecmp through pullMachineTimerCompareRegister, set here. */
#include "FreeRTOS.h"
#include "task.h"
#include "switchscope/board.h"

#if defined(__riscv)
extern uint64_t ullNextTime;
extern const size_t uxTimerIncrementsForOneTick;
extern volatile uint64_t *pullMachineTimerCompareRegister;
void vPortSetupTimerInterrupt(void);
void vPortSetupTimerInterrupt(void)
{
    volatile uint32_t *const time_high = (volatile uint32_t *)(BOARD_MTIME_ADDRESS + 4u);
    volatile uint32_t *const time_low = (volatile uint32_t *)BOARD_MTIME_ADDRESS;
    uint32_t high, low, hart;
    __asm__ volatile("csrr %0, mhartid" : "=r"(hart));
    pullMachineTimerCompareRegister = (volatile uint64_t *)(BOARD_MTIMECMP_ADDRESS + hart * sizeof(uint64_t));
    do {
        high = *time_high;
        low = *time_low;
    } while (high != *time_high);
    ullNextTime = (((uint64_t)high << 32) | low) + (uint64_t)uxTimerIncrementsForOneTick;
    *pullMachineTimerCompareRegister = ullNextTime;
    ullNextTime += (uint64_t)uxTimerIncrementsForOneTick; /* the time to use after the next tick */
    __asm__ volatile("csrs mie, %0" ::"r"(0x880)); /* the machine timer's and external interrupts, as the port */
}
#endif
