/*
 * The porting layer: everything a kernel must supply for the scenarios to run.
 *
 * Scenarios are written once against these functions. A kernel port implements
 * them in firmware/kernels/<kernel>/ with its native API and nothing else: no
 * timing, no output. Priorities are abstract: 1 is the lowest a scenario may use,
 * larger is more urgent; the port maps them onto the kernel's own scale.
 */
#ifndef SWITCHSCOPE_KERNEL_H
#define SWITCHSCOPE_KERNEL_H

#include <stdint.h>

typedef struct ss_task ss_task;      /* a task (thread) of the kernel */
typedef struct ss_signal ss_signal;  /* a binary signal one task can wait on */
typedef struct ss_mutex ss_mutex;    /* a lock with an owner (sem-shuffle's mutex, deadlock-break) */
typedef struct ss_queue ss_queue;    /* a queue of one message (msg) */
typedef struct ss_pool ss_pool;      /* blocks of one size to allocate and free (tm-memory) */
typedef void (*ss_task_fn)(void *arg);

/* Create a task ready to run once the kernel starts (or at once if it runs). */
ss_task *ss_task_create(const char *name, ss_task_fn fn, void *arg, unsigned priority);

/* Suspend the calling task until another one resumes it. */
void ss_task_suspend_self(void);

/* Make a suspended task ready; switches to it at once if it is more urgent. */
void ss_task_resume(ss_task *task);

/* From an interrupt handler: make a suspended task ready; switches to it on
 * the way out of the handler if it is more urgent than the interrupted task. */
void ss_task_resume_from_isr(ss_task *task);

/* Change a task's priority; switches at once if that makes another task more urgent. */
void ss_task_set_priority(ss_task *task, unsigned priority);

/* Give the processor to the next ready task of the same priority. */
void ss_yield(void);

/* Called right after a call that made a more urgent task ready. Where the
 * kernel's configuration switches at once (preemptive, priorities in use) the
 * switch has already happened and this does nothing; where it does not
 * (cooperative scheduling, or all tasks at one priority) it yields, so that
 * the switch happens here, inside the window. */
void ss_complete_switch(void);

ss_signal *ss_signal_create(void);
void ss_signal_wait(ss_signal *signal);          /* block until given */
void ss_signal_give(ss_signal *signal);          /* from a task */
void ss_signal_give_from_isr(ss_signal *signal); /* from an interrupt handler */

/* A mutex whose holder inherits the priority of the most urgent task
 * waiting for it, where the kernel has priority inheritance (a kernel that
 * has none says deadlock-break does not apply, in its kernel.toml). Locking
 * a held mutex blocks; unlocking hands it to the most urgent waiter and
 * switches at once if that task is more urgent than the unlocking one is
 * once its inherited priority is dropped. */
ss_mutex *ss_mutex_create(void);
void ss_mutex_lock(ss_mutex *mutex);
void ss_mutex_unlock(ss_mutex *mutex);

/* A queue that holds one message of `bytes` bytes (1 to 64), copied in and
 * out. Sending to a task blocked on receiving hands it the message and
 * switches at once if it is more urgent; sending to a full queue blocks, as
 * receiving from an empty one does. */
ss_queue *ss_queue_create(unsigned bytes);
void ss_queue_send(ss_queue *queue, const void *message);
void ss_queue_receive(ss_queue *queue, void *message);

/* `blocks` blocks of `bytes` bytes each; allocating from a pool with none
 * free is a fatal error (the scenarios free what they allocate). A kernel
 * with no block pool of its own allocates from its heap, and says so in
 * ss_kernel_describe. */
ss_pool *ss_pool_create(unsigned bytes, unsigned blocks);
void *ss_pool_allocate(ss_pool *pool);
void ss_pool_free(ss_pool *pool, void *block);

/* Ticks since the kernel started, and a block until the next tick begins. */
uint32_t ss_tick_count(void);
void ss_wait_next_tick(void);

/* The highest priority a task may be created at. Needed only by a kernel
 * that offers load=voip, whose encoding tasks run there (load_voip.c). */
unsigned ss_highest_priority(void);

/* Start scheduling the created tasks; never returns. */
void ss_kernel_start(void);

/* Facts about the kernel build, sent to the host as key=value pairs:
 * calls emit(key, value) once per configuration item. */
void ss_kernel_describe(void (*emit)(const char *key, const char *value));

#endif
