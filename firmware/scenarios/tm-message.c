/*
 * tm-message (Thread-Metric's message processing): one task sends a 16-byte
 * message to a queue and receives it back, copied in and out, and counts a
 * loop. No switch. A round is one loop.
 */
#include "thread_metric.h"

#define MESSAGE_BYTES 16

static ss_queue *queue;
static uint32_t sent[MESSAGE_BYTES / 4], received[MESSAGE_BYTES / 4];
static volatile uint32_t loops;

static void round(void)
{
    sent[0] = loops;
    ss_queue_send(queue, sent);
    ss_queue_receive(queue, received);
    if (received[0] != sent[0])
        harness_fail(SS_TEXT("tm-message: the message received is not the one sent"));
    loops = sent[0] + 1;
}

THREAD_METRIC_TEST(round, 1)

static void setup(void)
{
    queue = ss_queue_create(MESSAGE_BYTES);
    ss_task_create("thread-0", measuring_task, 0, 1);
}

SCENARIO("tm-message", setup);
