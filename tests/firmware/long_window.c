/* Every odd window is held open for longer than the stamp timer's period,
 * so its stamps alone would give its length modulo the period: the firmware
 * must flag it and the host leave it out. Every even window is empty. */
#include "switchscope/harness.h"

static void __attribute__((noinline)) empty_window(void)
{
    PROBE_OPEN();
    PROBE_CLOSE();
}

/* Spins, counting stamp-timer counts read outside the probe, for one and a
 * half periods of the timer. */
static void __attribute__((noinline)) window_longer_than_the_period(void)
{
    uint32_t modulus = board_stamp_modulus(), counted = 0, last = board_stamp_now(), now;
    int down = board_stamp_counts_down();
    PROBE_OPEN();
    while (counted < modulus + modulus / 2) {
        now = board_stamp_now();
        uint32_t counts = down ? last - now : now - last;
        counted += counts >= modulus ? counts + modulus : counts; /* across a wrap */
        last = now;
    }
    PROBE_CLOSE();
}

static uint16_t window(uint32_t seq)
{
    if (seq & 1)
        window_longer_than_the_period();
    else
        empty_window();
    return 0;
}

static void task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void) { ss_task_create("long", task, 0, 1); }

SCENARIO("long_window", setup);
