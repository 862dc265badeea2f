/* A scenario that never ends: says so, then spins. */
#include "switchscope/harness.h"

static void stuck_task(void *arg)
{
    (void)arg;
    harness_begin();
    harness_log(SS_TEXT("about to spin forever"));
    for (;;)
        ;
}

static void setup(void) { ss_task_create("stuck", stuck_task, 0, 1); }

SCENARIO("hang", setup);
