/* The gauge: 200 million instructions of straight-line work and nothing else (no device, no exception), on
 * FreeRTOS's board and build, so that QEMU's time for them is what a switchscope run's time is set against. */
#include "switchscope/harness.h"

#define ROUNDS 40000000u /* five instructions a round: subs, three nops, bne */

static void setup(void)
{
    uint32_t left = ROUNDS;
    __asm__ volatile("1: subs %0, %0, #1\n nop\n nop\n nop\n bne 1b" : "+r"(left));
    board_exit(0);
}

SCENARIO("gauge", setup);
