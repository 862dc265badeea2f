/*
 * What the harness offers a scenario: the measuring loop and the sample
 * stream. A scenario file defines `const struct scenario scenario` and
 * nothing else global.
 */
#ifndef SWITCHSCOPE_HARNESS_H
#define SWITCHSCOPE_HARNESS_H

#include <stdint.h>
#include "switchscope/fp_work.h"
#include "switchscope/harness_fail.h" /* harness_fail: a fatal condition */
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

/* How many samples the host asked for. */
uint32_t harness_samples(void);

/* A numeric run parameter the host passed ("name=value"), or `fallback`. */
uint32_t harness_parameter(const char *name, uint32_t fallback);

/* For a scenario that runs its own sampling loop (harness_run does all three):
 * harness_begin() once from a task after the kernel started and before the
 * first window (it calibrates the probe and describes the stamp timer);
 * harness_record() after each window has closed; harness_end() after the
 * last, which stops the machine. */
void harness_begin(void);
void harness_record(uint32_t seq, uint16_t tag);
void harness_end(uint32_t samples_sent) __attribute__((noreturn));
/* Send every sample in full: its stamps are of another timer than the stamp
 * timer (the latency timer), whose lengths the compact record cannot give. */
void harness_full_records(void);

/* Tell the host a numeric fact about the run (key is a board text). A scenario
 * whose first windows are not samples says how many with "warmup_windows". */
void harness_describe(const char *key, uint32_t value);

/* Send a line of text (a board text: SS_TEXT("...")) to the host. */
void harness_log(const char *text);

#endif
