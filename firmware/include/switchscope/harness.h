/*
 * What the harness offers a scenario: the measuring loop and the sample
 * stream. A scenario file defines `const struct scenario scenario` and
 * nothing else global.
 */
#ifndef SWITCHSCOPE_HARNESS_H
#define SWITCHSCOPE_HARNESS_H

#include <stdint.h>
#include "switchscope/probe.h"

struct scenario {
    const char *name; /* a board text */
    /* Create the scenario's tasks and signals; runs before the kernel starts. */
    void (*setup)(void);
};

extern const struct scenario scenario;

/* Defines the scenario of this file: SCENARIO("resume", setup); */
#define SCENARIO(name_, setup_)                                    \
    static const char scenario_name_[] SS_TEXT_STORAGE = name_;   \
    const struct scenario scenario = {scenario_name_, setup_}

/*
 * The measuring loop, run by the scenario's measuring task: calibrates the
 * probe, then for each sample waits for the next kernel tick, calls
 * `window(seq)` (which must open the probe window, cause the switch, and
 * return once the other task has closed it) and sends the sample tagged with
 * the value `window` returned. Ends the run after the requested count.
 */
void harness_run(uint16_t (*window)(uint32_t seq)) __attribute__((noreturn));

/* Call once from a task, after the kernel started and before the first
 * window: calibrates the probe and describes the stamp timer to the host.
 * harness_run() does this itself. */
void harness_begin(void);

/* Send a line of text (a board text: SS_TEXT("...")) to the host. */
void harness_log(const char *text);

/* Report a fatal condition (failed assertion, fault) and stop the machine.
 * The reason is a board text; harness_fail_formatted takes one built in RAM. */
void harness_fail(const char *reason) __attribute__((noreturn));
void harness_fail_formatted(const char *reason) __attribute__((noreturn));

#endif
