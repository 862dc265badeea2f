"""The scenarios: the files of firmware/scenarios/, each a situation a kernel
switches in (or, for the latency kind, an interrupt it lets through), listed
with what each measures."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    check: bool = False  # a self-test of the ruler, not a switch; left out of "all"
    # what is timed and how a run becomes samples (figures/kinds.py): "switch", a window a task switch falls
    # in; "latency", an interrupt's assertion to its handler, not a switch (the board's latency timer)
    kind: str = "switch"
    source: Path | None = None  # default: firmware/scenarios/<name>.c
    # a window of a scenario that measures several, one per build: the file it shares, named for the scenario
    # (firmware/scenarios/<group>.c), and the -D that picks its window
    group: str | None = None
    defines: tuple[tuple[str, str], ...] = ()
    # a test of a published suite (thread-metric): chosen by the suite's name, left out of "all"; its window is
    # one round of the test's loops, which counts `loops_per_round` of the loops the suite counts
    suite: str | None = None
    loops_per_round: int = 0
    tasks: int = 2  # the tasks it creates, which a C kernel's heap must hold (board.toml's max_tasks)

    @property
    def file_name(self) -> str:
        return f"{self.group or self.name}.c"

    @property
    def latency(self) -> bool:
        """Whether it times an interrupt's latency, which needs the board's latency timer."""
        return self.kind == "latency"


THREAD_METRIC_SUITE = "thread-metric"

# Thread-Metric's eight tests (firmware/scenarios/thread_metric.h): each loop as the suite counts it, its
# counters summed; the window is a round, from the measuring task's place in its loop back to it
THREAD_METRIC = [
    Scenario(name, summary, suite=THREAD_METRIC_SUITE, loops_per_round=loops, tasks=tasks, defines=defines)
    for name, loops, tasks, summary, defines in [
        ("tm-basic", 1, 1, "Thread-Metric's basic processing: one task works through 1024 words, no kernel service "
                           "(the baseline)", ()),
        ("tm-cooperative", 5, 5, "Thread-Metric's cooperative scheduling: five tasks of one priority, each counting "
                                 "and yielding (a round: five loops, five switches)", ()),
        ("tm-preemptive", 5, 5, "Thread-Metric's preemptive scheduling: five tasks of five priorities, each "
                                "resuming the next more urgent and suspending itself (a round: five loops, eight "
                                "switches)", ()),
        ("tm-interrupt", 2, 1, "Thread-Metric's interrupt processing: a task pends a software interrupt whose "
                               "handler gives a semaphore the task takes (a round: two loops, no switch)", ()),
        ("tm-interrupt-preemption", 3, 2, "Thread-Metric's interrupt preemption: the handler of a software "
                                          "interrupt resumes a more urgent task (a round: three loops, two switches)",
         ()),
        ("tm-message", 1, 1, "Thread-Metric's message processing: one task sends a 16-byte message to a queue and "
                             "receives it back", ()),
        ("tm-synchronization", 1, 1, "Thread-Metric's synchronization processing: one task gives a semaphore and "
                                     "takes it", ()),
        ("tm-memory", 1, 1, "Thread-Metric's memory allocation: one task allocates a 128-byte block and frees it",
         (("SWITCHSCOPE_USES_POOL", "1"),)),
    ]
]

SCENARIOS = {
    s.name: s
    for s in [
        Scenario("resume", "a low-priority task resumes a suspended high-priority task (embOS method)"),
        Scenario("signal", "a low-priority task gives a signal a high-priority task waits on (BeRTOS method)"),
        Scenario("yield", "two tasks of equal priority yield to each other (cooperative switch)"),
        Scenario("isr", "an interrupt handler wakes a high-priority task that preempts the low-priority one"),
        Scenario("rotate", "N tasks (--tasks, default 2) rotated by priority changes, one sample per switch "
                           "(the Cortex-M3 study's method)"),
        Scenario("sem-shuffle", "a low-priority task releases a semaphore a high-priority task asked for and "
                                "blocked on (Rhealstone's semaphore shuffle; --config lock=mutex: a mutex)",
                 defines=(("SWITCHSCOPE_USES_LOCK", "1"),)),
        Scenario("deadlock-raise", "a high-priority task asks for the mutex a low-priority task holds, a medium one "
                                   "ready: until the holder runs raised (Rhealstone's deadlock break, first window)",
                 group="deadlock-break", tasks=3,
                 defines=(("SWITCHSCOPE_DEADLOCK_WINDOW", "raise"), ("SWITCHSCOPE_USES_MUTEX", "1"))),
        Scenario("deadlock-release", "the raised holder releases the mutex: until the high-priority task holds it "
                                     "(Rhealstone's deadlock break, second window)",
                 group="deadlock-break", tasks=3,
                 defines=(("SWITCHSCOPE_DEADLOCK_WINDOW", "release"), ("SWITCHSCOPE_USES_MUTEX", "1"))),
        Scenario("msg", "a low-priority task sends a message (--config msg_size, bytes) to a high-priority task "
                        "blocked receiving it (Rhealstone's intertask message latency)"),
        *THREAD_METRIC,
        Scenario("irq-latency", "a peripheral timer's interrupt asserted at every step of signal's loop, timed to "
                                "its handler's first instruction (worst case, and the code that causes it)",
                 kind="latency"),
        Scenario("ruler", "self-test: times blocks of N no-ops, each must read exactly N", check=True),
        Scenario("irq-ruler", "self-test: an interrupt asserted at every step of a loop with one masked region "
                              "of known length", check=True, kind="latency"),
    ]
}
