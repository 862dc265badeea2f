/*
 * msg (Rhealstone's intertask message latency): the low task sends a message
 * of SWITCHSCOPE_MSG_SIZE bytes (--config msg_size, default 4: a 32-bit
 * word) through a queue the high task is blocked receiving from. Window: from
 * just before ss_queue_send() in the low task to just after ss_queue_receive()
 * returns in the high task, the message copied. The low task checks, outside
 * the window, that the message arrived whole.
 */
#include "switchscope/harness.h"

#ifndef SWITCHSCOPE_MSG_SIZE
#define SWITCHSCOPE_MSG_SIZE 4
#endif

static ss_queue *queue;
static uint8_t received[SWITCHSCOPE_MSG_SIZE];

static void high_task(void *arg)
{
    (void)arg;
    for (;;) {
        SS_FP_WORK(1); /* before it blocks: its FP context is live when the window resumes it */
        ss_queue_receive(queue, received);
        PROBE_CLOSE();
    }
}

static uint16_t window(uint32_t seq)
{
    uint8_t message[SWITCHSCOPE_MSG_SIZE];
    SS_FP_WORK(0);
    for (unsigned i = 0; i < SWITCHSCOPE_MSG_SIZE; i++)
        message[i] = (uint8_t)(seq + i);
    ss_queue *target = queue; /* loaded before the window opens */
    PROBE_OPEN();
    ss_queue_send(target, message);
    ss_complete_switch(); /* where the configuration does not switch by itself */
    for (unsigned i = 0; i < SWITCHSCOPE_MSG_SIZE; i++)
        if (received[i] != message[i])
            harness_fail(SS_TEXT("msg: the message received is not the one sent"));
    return 0;
}

static void low_task(void *arg)
{
    (void)arg;
    harness_run(window);
}

static void setup(void)
{
    queue = ss_queue_create(SWITCHSCOPE_MSG_SIZE);
    ss_task_create("high", high_task, 0, 2);
    ss_task_create("low", low_task, 0, 1);
}

SCENARIO("msg", setup);
