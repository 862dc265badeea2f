/* A scenario that crashes: says so, then runs an undefined instruction. */
#include "switchscope/harness.h"

static void crashing_task(void *arg)
{
    (void)arg;
    harness_begin();
    harness_log(SS_TEXT("about to execute an undefined instruction"));
    __asm__ volatile("udf #0");
}

static void setup(void) { ss_task_create("crash", crashing_task, 0, 1); }

SCENARIO("crash", setup);
