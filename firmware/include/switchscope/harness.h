/*
 * What the harness offers a scenario: the run parameters, the sample stream,
 * and the end of the run. A scenario file defines `const struct scenario
 * scenario` and nothing else global.
 */
#ifndef SWITCHSCOPE_HARNESS_H
#define SWITCHSCOPE_HARNESS_H

#include <stdint.h>
#include "switchscope/probe.h"

struct scenario {
    const char *name;
    /* Create the scenario's tasks and signals; runs before the kernel starts. */
    void (*setup)(void);
};

extern const struct scenario scenario;

/* How many samples the host asked for. */
uint32_t harness_samples(void);

/* Call once from a task, after the kernel started and before the first
 * window: calibrates the probe and describes the stamp timer to the host. */
void harness_begin(void);

/* Send the window just closed as sample `seq`, flagged if a tick fell in it.
 * `tag` is scenario-specific (0 when unused). */
void harness_send_sample(uint32_t seq, uint16_t tag);

/* Send a line of text to the host. */
void harness_log(const char *text);

/* Report that all samples were sent and stop the machine. */
void harness_finish(uint32_t samples_sent) __attribute__((noreturn));

/* Report a fatal condition (failed assertion, fault) and stop the machine. */
void harness_fail(const char *reason) __attribute__((noreturn));

#endif
