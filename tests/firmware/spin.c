/* One task that spins from its start: the kernel never switches (a tick now and then, no other task to run). */
#include "switchscope/harness.h"

static void spinning_task(void *arg)
{
    (void)arg;
    for (;;)
        ;
}

static void setup(void) { ss_task_create("spin", spinning_task, 0, 1); }

SCENARIO("spin", setup);
