/*
 * The interrupt-latency sweep, shared by the irq-latency scenarios
 * (firmware/common/latency.c): the sample count and the step come from the
 * host; each sample arms the board's latency timer one step further than the
 * last, and its handler sends the sample.
 */
#ifndef SWITCHSCOPE_LATENCY_H
#define SWITCHSCOPE_LATENCY_H

#include <stdint.h>

/* Once, from the task that arms, after the kernel started. */
void latency_begin(void);

/* Arms the latency timer for the next sample. */
void latency_arm(void);

/* From the top of a workload's loop: arms the latency timer for the next
 * sample unless it is armed already, and not in the loop's first few
 * iterations, which the host times the loop on. */
void latency_arm_if_idle(void);

/* From switchscope_latency_irq(), first: stops the timer, sends the sample,
 * ends the run after the last. */
void latency_sample_taken(void);

#endif
