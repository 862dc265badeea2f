/*
 * The report of a fatal condition (a failed check, an unexpected exception,
 * a kernel out of memory), for every part of the firmware: the boards' and
 * the kernel ports' handlers call it as the scenarios do. The program
 * supplies it: switchscope's builds with firmware/common/harness_fail.c (a
 * FAULT record on the stream), an application of its own with its own
 * (examples/starter/main.c).
 */
#ifndef SWITCHSCOPE_HARNESS_FAIL_H
#define SWITCHSCOPE_HARNESS_FAIL_H

/* Report it and stop the machine. The reason is a board text (SS_TEXT);
 * harness_fail_formatted takes one built in RAM. */
void harness_fail(const char *reason) __attribute__((noreturn));
void harness_fail_formatted(const char *reason) __attribute__((noreturn));

#endif
