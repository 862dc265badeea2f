/*
 * --config fp_tasks=N (0, 1, 2): the first N of a scenario's measured tasks
 * use the FPU, so that a switch saves and restores a floating-point context
 * (s16-s31 by the kernel, s0-s15 and FPSCR by the core's lazy stacking) for
 * none, one or both of the tasks it goes between. Task 0 is the measuring
 * task (the one that runs the harness's loop), task 1 its partner; in rotate
 * the tasks in their order. Each does a float multiply-add on a volatile once
 * an iteration, outside the windows, so its FP context is live at every
 * switch rather than left over from its first iteration. Only on a cpu with
 * an FPU (the kernels' kernel.toml refuses it elsewhere).
 */
#ifndef SWITCHSCOPE_FP_WORK_H
#define SWITCHSCOPE_FP_WORK_H

#ifndef SWITCHSCOPE_FP_TASKS
#define SWITCHSCOPE_FP_TASKS 0
#endif

void ss_fp_work(void);

/* In the loop of measured task `task`: its FP work, when it is one of the first fp_tasks. */
#define SS_FP_WORK(task)                      \
    do {                                      \
        if ((task) < SWITCHSCOPE_FP_TASKS)    \
            ss_fp_work();                     \
    } while (0)

#endif
