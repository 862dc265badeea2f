/*
 * The FP work of the measured tasks with --config fp_tasks (fp_work.h): one
 * multiply-add of floats on a volatile, so the FPU really runs (a load, the
 * arithmetic and a store of FP registers) and the task has an FP context.
 * Built without an FPU (fp_tasks is refused there) it does nothing: no
 * software floating point is linked for it.
 */
#include "switchscope/fp_work.h"

#if defined(__ARM_FP)
static volatile float accumulator = 1.0f;

void ss_fp_work(void) { accumulator = accumulator * 0.5f + 1.0f; }
#else
void ss_fp_work(void) {}
#endif
