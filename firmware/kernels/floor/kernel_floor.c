/*
 * floor: the least a task switch can cost, with the porting layer's calls so
 * that every scenario runs. A task is its saved stack pointer, a ready flag
 * and a priority; the next task is found by looking at each task (at most
 * FLOOR_MAX_TASKS). A switch between tasks is a function call, so it saves
 * and restores exactly the registers the C ABI makes a called function keep;
 * the stack pointer goes into the task. That switch, the interrupt entries
 * and the tick are the core's, in its port (portable/<instruction set>/,
 * which kernel.toml picks for the target's CPU; floor.h says what a port
 * supplies); everything here is the same on every core.
 *
 * Interrupts are masked while the scheduler's state changes and across a
 * switch; the resumed task unmasks them.
 */
#include <stdint.h>
#include <string.h>
#include "floor.h"
#include "switchscope/harness_fail.h"

#define FLOOR_MAX_SIGNALS 4
#define FLOOR_MAX_MUTEXES 1
#define FLOOR_MAX_QUEUES 1
#define FLOOR_MAX_MESSAGE 64
#define FLOOR_POOL_BYTES 512 /* tm-memory's: four blocks of 128 bytes */
#ifndef FLOOR_STACK_BYTES
#define FLOOR_STACK_BYTES 1024
#endif
#ifndef FLOOR_MAX_TASKS
#if defined(BOARD_KERNEL_HEAP_BYTES) /* a board with little RAM says how much the kernel may have */
#define FLOOR_MAX_TASKS (BOARD_KERNEL_HEAP_BYTES / FLOOR_STACK_BYTES)
#else
#define FLOOR_MAX_TASKS 16 /* rotate's most */
#endif
#endif
#ifndef FLOOR_STACK_ALIGN
#define FLOOR_STACK_ALIGN 8 /* AAPCS's at a public interface, and more than the AVR needs */
#endif

struct ss_signal {
    uint8_t given;
    ss_task *waiter;
};

/* One waiter at most: the scenarios' need. The owner runs at the waiter's
 * priority while it is the more urgent (inheritance), at its own (base) after. */
struct ss_mutex {
    ss_task *owner;
    ss_task *waiter;
    uint8_t base;
};

/* One message: handed straight to a waiting receiver, else kept; copied by the C library's memcpy, as
 * FreeRTOS copies it. */
struct ss_queue {
    uint8_t bytes;
    uint8_t full;
    ss_task *receiver;
    uint8_t *receiver_buffer;
    ss_task *sender;
    uint8_t message[FLOOR_MAX_MESSAGE];
};

/* Blocks of one size on a free list: allocating takes its head, freeing puts the block back at the head. */
struct ss_pool {
    void *free;
};

static ss_task tasks[FLOOR_MAX_TASKS];
static uint8_t stacks[FLOOR_MAX_TASKS][FLOOR_STACK_BYTES] __attribute__((aligned(FLOOR_STACK_ALIGN)));
static uint8_t task_count;
static ss_signal signals[FLOOR_MAX_SIGNALS];
static uint8_t signal_count;
static ss_mutex mutexes[FLOOR_MAX_MUTEXES];
static uint8_t mutex_count;
static ss_queue queues[FLOOR_MAX_QUEUES];
static uint8_t queue_count;
static ss_pool pool;
static uint8_t pool_memory[FLOOR_POOL_BYTES] __attribute__((aligned(8)));
volatile uint32_t floor_ticks;
ss_task *volatile floor_current;
ss_task *volatile floor_pending;
static ss_task startup; /* main's context, saved once and never resumed */

void floor_task_returned(void) { harness_fail(SS_TEXT("floor: a task returned from its function")); }

/* The most urgent ready task; among equals, the first after `after` in the ring. */
static ss_task *most_urgent(ss_task *after)
{
    ss_task *best = 0, *end = tasks + task_count, *task = after ? after : end - 1;
    for (uint8_t left = task_count; left; left--) {
        if (++task == end)
            task = tasks;
        if (task->ready && (!best || task->priority > best->priority))
            best = task;
    }
    if (!best)
        harness_fail(SS_TEXT("floor: no task is ready"));
    return best;
}

/* After `task` became ready or more urgent: run it at once if it is more urgent than the running one
 * (which is the most urgent of the others). */
static void preempt_if_more_urgent(ss_task *task, int from_handler)
{
    if (task->ready && task->priority > floor_current->priority) {
        if (from_handler)
            floor_switch_from_handler(task);
        else
            floor_switch_to(task);
    }
}

ss_task *ss_task_create(const char *name, ss_task_fn fn, void *arg, unsigned priority)
{
    (void)name;
    if (task_count == FLOOR_MAX_TASKS)
        harness_fail(SS_TEXT("floor: more tasks than FLOOR_MAX_TASKS"));
    uint8_t was = floor_interrupts_mask();
    ss_task *task = &tasks[task_count];
    floor_prepare_stack(task, stacks[task_count] + FLOOR_STACK_BYTES, fn, arg);
    task->priority = (uint8_t)priority;
    task->ready = 1;
    task_count++;
    if (floor_current)
        preempt_if_more_urgent(task, 0);
    floor_interrupts_restore(was);
    return task;
}

void ss_task_suspend_self(void)
{
    uint8_t was = floor_interrupts_mask();
    floor_current->ready = 0;
    floor_switch_to(most_urgent(floor_current));
    floor_interrupts_restore(was);
}

void ss_task_resume(ss_task *task)
{
    uint8_t was = floor_interrupts_mask();
    task->ready = 1;
    preempt_if_more_urgent(task, 0);
    floor_interrupts_restore(was);
}

void ss_task_resume_from_isr(ss_task *task)
{
    /* preempt_if_more_urgent's test, written out: a caller more of that static function would change how the
     * compiler inlines it into the others, and every other scenario's code with it */
    task->ready = 1;
    if (task->priority > floor_current->priority)
        floor_switch_from_handler(task);
}

void ss_task_set_priority(ss_task *task, unsigned priority)
{
    uint8_t was = floor_interrupts_mask();
    uint8_t lowered_self = task == floor_current && priority < task->priority;
    task->priority = (uint8_t)priority;
    if (lowered_self) /* another task may now be the more urgent */
        floor_switch_to(most_urgent(floor_current));
    else
        preempt_if_more_urgent(task, 0);
    floor_interrupts_restore(was);
}

/* The running task is the most urgent ready one: the next ready task of its priority in the ring, if any. */
void ss_yield(void)
{
    uint8_t was = floor_interrupts_mask();
    ss_task *end = tasks + task_count, *task = floor_current;
    for (uint8_t left = task_count - 1; left; left--) {
        if (++task == end)
            task = tasks;
        if (task->ready && task->priority == floor_current->priority) {
            floor_switch_to(task);
            break;
        }
    }
    floor_interrupts_restore(was);
}

void ss_complete_switch(void) {} /* every call above switches at once */

ss_signal *ss_signal_create(void)
{
    if (signal_count == FLOOR_MAX_SIGNALS)
        harness_fail(SS_TEXT("floor: more signals than FLOOR_MAX_SIGNALS"));
    return &signals[signal_count++];
}

void ss_signal_wait(ss_signal *signal)
{
    uint8_t was = floor_interrupts_mask();
    if (signal->given) {
        signal->given = 0;
    } else {
        signal->waiter = floor_current;
        floor_current->ready = 0;
        floor_switch_to(most_urgent(floor_current));
    }
    floor_interrupts_restore(was);
}

static void give(ss_signal *signal, int from_handler)
{
    ss_task *waiter = signal->waiter;
    if (!waiter) {
        signal->given = 1;
        return;
    }
    signal->waiter = 0;
    waiter->ready = 1;
    preempt_if_more_urgent(waiter, from_handler);
}

void ss_signal_give(ss_signal *signal)
{
    uint8_t was = floor_interrupts_mask();
    give(signal, 0);
    floor_interrupts_restore(was);
}

void ss_signal_give_from_isr(ss_signal *signal) { give(signal, 1); }

ss_mutex *ss_mutex_create(void)
{
    if (mutex_count == FLOOR_MAX_MUTEXES)
        harness_fail(SS_TEXT("floor: more mutexes than FLOOR_MAX_MUTEXES"));
    return &mutexes[mutex_count++];
}

static void take_mutex(ss_mutex *mutex, ss_task *task)
{
    mutex->owner = task;
    mutex->base = task->priority;
}

void ss_mutex_lock(ss_mutex *mutex)
{
    uint8_t was = floor_interrupts_mask();
    if (!mutex->owner) {
        take_mutex(mutex, floor_current);
    } else {
        if (mutex->waiter)
            harness_fail(SS_TEXT("floor: a second task waits for a mutex"));
        mutex->waiter = floor_current;
        floor_current->ready = 0;
        if (floor_current->priority > mutex->owner->priority)
            mutex->owner->priority = floor_current->priority; /* inherited */
        floor_switch_to(most_urgent(floor_current)); /* back here owning it */
    }
    floor_interrupts_restore(was);
}

void ss_mutex_unlock(ss_mutex *mutex)
{
    uint8_t was = floor_interrupts_mask();
    ss_task *waiter = mutex->waiter;
    floor_current->priority = mutex->base; /* what it inherited, given back */
    mutex->owner = 0;
    if (waiter) {
        mutex->waiter = 0;
        take_mutex(mutex, waiter);
        waiter->ready = 1;
        floor_switch_to(most_urgent(floor_current));
    }
    floor_interrupts_restore(was);
}

ss_queue *ss_queue_create(unsigned bytes)
{
    if (queue_count == FLOOR_MAX_QUEUES || bytes < 1 || bytes > FLOOR_MAX_MESSAGE)
        harness_fail(SS_TEXT("floor: one queue, of 1 to FLOOR_MAX_MESSAGE bytes"));
    ss_queue *queue = &queues[queue_count++];
    queue->bytes = (uint8_t)bytes;
    return queue;
}

void ss_queue_send(ss_queue *queue, const void *message)
{
    uint8_t was = floor_interrupts_mask();
    if (queue->full) { /* one sender at a time: it waits for the receiver to empty the queue */
        queue->sender = floor_current;
        floor_current->ready = 0;
        floor_switch_to(most_urgent(floor_current));
    }
    ss_task *receiver = queue->receiver;
    if (receiver) {
        memcpy(queue->receiver_buffer, message, queue->bytes);
        queue->receiver = 0;
        receiver->ready = 1;
        preempt_if_more_urgent(receiver, 0);
    } else {
        memcpy(queue->message, message, queue->bytes);
        queue->full = 1;
    }
    floor_interrupts_restore(was);
}

void ss_queue_receive(ss_queue *queue, void *message)
{
    uint8_t was = floor_interrupts_mask();
    if (queue->full) {
        memcpy(message, queue->message, queue->bytes);
        queue->full = 0;
        ss_task *sender = queue->sender;
        if (sender) {
            queue->sender = 0;
            sender->ready = 1;
            preempt_if_more_urgent(sender, 0);
        }
    } else {
        queue->receiver = floor_current;
        queue->receiver_buffer = message;
        floor_current->ready = 0;
        floor_switch_to(most_urgent(floor_current)); /* back here with the message */
    }
    floor_interrupts_restore(was);
}

ss_pool *ss_pool_create(unsigned bytes, unsigned blocks)
{
    bytes = (bytes + 7u) & ~7u;
    if (pool.free || bytes < sizeof(void *) || (uint32_t)bytes * blocks > sizeof pool_memory)
        harness_fail(SS_TEXT("floor: one pool, of at most FLOOR_POOL_BYTES"));
    for (unsigned i = blocks; i--;) {
        void **block = (void **)(pool_memory + i * bytes);
        *block = pool.free;
        pool.free = block;
    }
    return &pool;
}

void *ss_pool_allocate(ss_pool *from)
{
    uint8_t was = floor_interrupts_mask();
    void **block = from->free;
    if (!block)
        harness_fail(SS_TEXT("floor: the pool has no free block"));
    from->free = *block;
    floor_interrupts_restore(was);
    return block;
}

void ss_pool_free(ss_pool *to, void *block)
{
    uint8_t was = floor_interrupts_mask();
    *(void **)block = to->free;
    to->free = block;
    floor_interrupts_restore(was);
}

uint32_t ss_tick_count(void)
{
    uint8_t was = floor_interrupts_mask();
    uint32_t now = floor_ticks;
    floor_interrupts_restore(was);
    return now;
}

void ss_wait_next_tick(void)
{
    uint32_t tick = ss_tick_count();
    while (ss_tick_count() == tick)
        ;
}

void ss_kernel_start(void)
{
    floor_interrupts_mask();
    floor_current = most_urgent(0);
    floor_start_tick();
    floor_switch(&startup, floor_current); /* the task unmasks interrupts */
    harness_fail(SS_TEXT("floor: the start returned"));
}

void ss_kernel_describe(void (*emit)(const char *key, const char *value))
{
    emit(SS_TEXT("kernel"), SS_TEXT("floor"));
    emit(SS_TEXT("kernel_version"), SS_TEXT("1"));
    emit(SS_TEXT("config.switch"), SS_TEXT("call: the ABI's callee-saved registers"));
    emit(SS_TEXT("config.priorities"), SS_TEXT("on"));
    emit(SS_TEXT("config.mutex"), SS_TEXT("priority inheritance, one waiter"));
#if defined(SWITCHSCOPE_USES_POOL) /* said only where a pool is used: every other build stays as it was */
    emit(SS_TEXT("config.pool"), SS_TEXT("a free list of fixed blocks"));
#endif
}
