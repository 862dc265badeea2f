/*
 * A fatal condition reported on the record stream (switchscope/harness_fail.h):
 * a FAULT record, then the machine stops. It needs only the stream and the
 * board's exit, so that the boards and the kernel ports, below the harness,
 * report through it too.
 */
#include "switchscope/harness_fail.h"
#include "switchscope/board.h"
#include "switchscope/record.h"

void harness_fail(const char *reason)
{
    const char *parts[3] = {reason, 0, 0};
    record_send_text(RECORD_FAULT, parts, 0);
    board_exit(3);
}

void harness_fail_formatted(const char *reason)
{
    const char *parts[3] = {0, 0, reason};
    record_send_text(RECORD_FAULT, parts, 1 << 2);
    board_exit(3);
}
