/*
 * The latency timer's NVIC priority on a Cortex-M board (the irq-latency
 * scenarios): --config irq_priority=high (-DSWITCHSCOPE_IRQ_PRIORITY=high)
 * puts it at 0x00, the chip's highest, above every level a kernel masks with
 * BASEPRI; otherwise it is at the board's software interrupt's
 * (BOARD_SOFT_IRQ_PRIORITY, defined before this is included).
 */
#ifndef SWITCHSCOPE_LATENCY_PRIORITY_H
#define SWITCHSCOPE_LATENCY_PRIORITY_H

#include "switchscope/config_value.h"

#define IRQ_PRIORITY_IS_high 1
#define IRQ_PRIORITY_IS_low 0
#if defined(SWITCHSCOPE_IRQ_PRIORITY) && SWITCHSCOPE_IS(IRQ_PRIORITY_IS_, SWITCHSCOPE_IRQ_PRIORITY)
#define BOARD_LATENCY_IRQ_PRIORITY 0x00
#else
#define BOARD_LATENCY_IRQ_PRIORITY BOARD_SOFT_IRQ_PRIORITY
#endif

#endif
