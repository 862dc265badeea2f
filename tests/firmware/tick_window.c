/* Every odd window is held open until the kernel tick has fired inside it,
 * so the host must flag and exclude exactly those samples; every even window
 * is empty. Each has its own function so the compiler cannot merge them. */
#include "switchscope/harness.h"

static void __attribute__((noinline)) empty_window(void)
{
    PROBE_OPEN();
    PROBE_CLOSE();
}

static void __attribute__((noinline)) window_across_a_tick(void)
{
    uint32_t tick = ss_tick_count();
    PROBE_OPEN();
    while (ss_tick_count() == tick)
        ;
    PROBE_CLOSE();
}

static uint16_t window(uint32_t seq)
{
    if (seq & 1)
        window_across_a_tick();
    else
        empty_window();
    return 0;
}

static void task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void) { ss_task_create("tick", task, 0, 1); }

SCENARIO("tick_window", setup);
