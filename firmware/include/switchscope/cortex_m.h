/*
 * Helpers every Cortex-M board shares (firmware/common/cortex_m.c): the reset
 * and vector table, semihosting and the fault report. The board supplies
 * BOARD_SOFT_IRQ_NUMBER in its board_config.h.
 */
#ifndef SWITCHSCOPE_CORTEX_M_H
#define SWITCHSCOPE_CORTEX_M_H

#define SEMIHOSTING_SYS_GET_CMDLINE 0x15
#define SEMIHOSTING_SYS_EXIT_EXTENDED 0x20
#define SEMIHOSTING_APPLICATION_EXIT 0x20026

/* A semihosting call: a debugger, or QEMU, answers it; on a bare chip it is a fault. */
int cortex_m_semihosting(int operation, void *argument);
/* The command line the host passed ("samples=1000 ..."), or "". */
const char *cortex_m_semihosting_cmdline(void);
/* End the simulation with this exit code. */
void cortex_m_semihosting_exit(int code) __attribute__((noreturn));

void board_fault_handler(void);

#endif
