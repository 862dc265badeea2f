/* Every odd window is held open until the kernel tick has fired inside it,
 * so the host must flag and exclude exactly those samples. */
#include "switchscope/harness.h"

static void task(void *arg)
{
    (void)arg;
    harness_begin();
    uint32_t samples = harness_samples();
    for (uint32_t seq = 0; seq < samples; seq++) {
        ss_wait_next_tick();
        uint32_t tick = ss_tick_count();
        if (seq & 1) {
            PROBE_OPEN();
            while (ss_tick_count() == tick)
                ;
            PROBE_CLOSE();
        } else {
            PROBE_OPEN();
            PROBE_CLOSE();
        }
        harness_send_sample(seq, 0);
    }
    harness_finish(samples);
}

static void setup(void) { ss_task_create("tick", task, 0, 1); }

const struct scenario scenario = {"tick_window", setup};
