"""`switchscope suite`: the experiment matrix of the seeds for every kernel
and target, written to a results directory.

- every kernel side by side on each target, in its default configuration,
  the floor kernel among them, and each figure as a multiple of the floor's:
  the BeRTOS scenarios and Rhealstone's (semaphore shuffle, deadlock break,
  message latency);
- BeRTOS layout: each scenario under {cooperative, preemptive} x {priorities
  off (NOPRI), on (PRI)}, once per switch mechanism where a kernel offers two;
- the Cortex-M3 study's curves: switch time against the number of rotating
  tasks, and against the number of switches (100, 1000, 10000);
- the study's comparison of its two switch mechanisms (software, PendSV),
  where a kernel offers both on a target: the same two curves for each, the
  switch counts being the study's (100, 300, 1000, 3000, 10000).

The directory holds one JSON per run (runs/), and what present.suite_page
writes of them: summary.md, index.html (the HTML report of them all) and the
figures (plots/, SVG). This module measures; `write` is given by the caller.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.plan import plan
from switchscope.common import outputs
from switchscope.common.errors import Interrupted, SwitchscopeError
from switchscope.figures import floor, matrix, results_files
from switchscope.figures.matrix import Point
from switchscope.figures.shards import Subset, manifest, share_of
from switchscope.figures.result import Result

BERTOS_SCENARIOS = ("resume", "signal", "yield", "isr")
RHEALSTONE_SCENARIOS = ("sem-shuffle", "deadlock-raise", "deadlock-release", "msg")
BERTOS_COLUMNS = (("Cooperative NOPRI", {"preemption": "off", "priorities": "off"}),
                  ("Cooperative PRI", {"preemption": "off", "priorities": "on"}),
                  ("Preemptive NOPRI", {"preemption": "on", "priorities": "off"}),
                  ("Preemptive PRI", {"preemption": "on", "priorities": "on"}))
SWITCH_COUNTS = (100, 1000, 10000)
MECHANISMS = ("software", "pendsv")  # the values of a kernel's `switch` option the study compares
MECHANISM_SWITCH_COUNTS = (100, 300, 1000, 3000, 10000)
MAX_ROTATE_TASKS = 8
SWITCHES_TASKS = 4


def points(kernels: list[catalog.Kernel], targets: list[catalog.Target], samples: int) -> list[Point]:
    probe = [catalog.METHODS["probe"]]
    bertos = [catalog.SCENARIOS[name] for name in BERTOS_SCENARIOS]
    rotate = [catalog.SCENARIOS["rotate"]]
    found = []
    side_by_side = bertos + [catalog.SCENARIOS[name] for name in RHEALSTONE_SCENARIOS]
    for target in targets:  # every kernel side by side, in its default configuration
        found += [Point(job, samples, "kernels") for job in plan(kernels, [target], side_by_side, probe).jobs]
    for kernel in kernels:
        for target in targets:
            # a kernel without the BeRTOS options has no such table: plan() leaves it out; one with both switch
            # mechanisms on this target has the table once per mechanism, a column group each
            for mechanism in (MECHANISMS if offers_both_mechanisms(kernel, target) else (None,)):
                chosen = {"switch": mechanism} if mechanism else {}
                for column, options in BERTOS_COLUMNS:
                    found += [Point(job, samples, bertos_group(column, mechanism))
                              for job in plan([kernel], [target], bertos, probe, [{**options, **chosen}],
                                              strict_options=False).jobs]
            tasks = list(range(2, min(MAX_ROTATE_TASKS, target.max_tasks) + 1))
            found += [Point(job, samples, "tasks") for job in plan([kernel], [target], rotate, probe, tasks=tasks).jobs]
            switches_tasks = min(SWITCHES_TASKS, target.max_tasks)
            found += [Point(job, count, "switches")
                      for job in plan([kernel], [target], rotate, probe, tasks=[switches_tasks]).jobs
                      for count in SWITCH_COUNTS]
            found += _mechanism_points(kernel, target, samples, tasks, switches_tasks)
    return found


def bertos_group(column: str, mechanism: str | None = None) -> str:
    """A BeRTOS cell's point group: "bertos:COLUMN", or "bertos:COLUMN:MECHANISM" in a mechanism's group."""
    return f"bertos:{column}" + (f":{mechanism}" if mechanism else "")


def offers_both_mechanisms(kernel: catalog.Kernel, target: catalog.Target) -> bool:
    try:
        for mechanism in MECHANISMS:
            configs.resolve({"switch": mechanism}, kernel, target, catalog.SCENARIOS["rotate"])
    except SwitchscopeError:  # no such option, or not both values on this target
        return False
    return True


def _mechanism_points(kernel: catalog.Kernel, target: catalog.Target, samples: int, tasks: list[int],
                      switches_tasks: int) -> list[Point]:
    """Both switch mechanisms against tasks and switches, where the kernel offers both on the target."""
    rotate, probe = [catalog.SCENARIOS["rotate"]], [catalog.METHODS["probe"]]
    if not offers_both_mechanisms(kernel, target):
        return []
    found = []
    for mechanism in MECHANISMS:
        variant = [{"switch": mechanism}]
        found += [Point(job, samples, "mechanism-tasks") for job in plan([kernel], [target], rotate, probe, variant,
                                                                     tasks=tasks).jobs]
        found += [Point(job, count, "mechanism-switches")
                  for job in plan([kernel], [target], rotate, probe, variant, tasks=[switches_tasks]).jobs
                  for count in MECHANISM_SWITCH_COUNTS]
    return found


def run_name(point: Point) -> str:
    """What a point measures, as a file name: two points of one name (the default configuration is both a
    kernel's side-by-side entry and a BeRTOS column) are one measurement."""
    job = point.job
    defaults = configs.resolve({}, job.kernel, job.target, job.scenario, job.tasks)
    tasks = f"-{job.tasks}tasks" if job.tasks else ""
    label = job.config.label(defaults).replace(",", "_").replace("=", "-") if job.config else "default"
    return f"{job.scenario.name}{tasks}-{label}-{point.samples}"


def result_path(out: Path, point: Point) -> Path:
    return out / "runs" / point.job.kernel.name / point.job.target.name / f"{run_name(point)}.json"


def _measurement(point: Point) -> tuple[str, str, str]:
    return point.job.kernel.name, point.job.target.name, run_name(point)


def every_point(found: list[Point], outcomes: list[tuple[Point, Result | str]]) -> list[tuple[Point, Result | str]]:
    """Each point of the suite with the outcome of the measurement it shares with others."""
    by_measurement = {_measurement(point): outcome for point, outcome in outcomes}
    return [(point, by_measurement[_measurement(point)]) for point in found if _measurement(point) in by_measurement]


def _write_result(out: Path, point: Point, outcome: Result | str) -> None:
    """Each result as soon as it is measured: an interrupted suite keeps it."""
    if isinstance(outcome, Result):
        outputs.write_text(result_path(out, point), json.dumps({"results": [outcome.to_json()]}, indent=1) + "\n")


def _written_before(out: Path, point: Point) -> Result | None:
    """The result an earlier run of the suite wrote for this point, if it is a whole one."""
    try:
        (result,) = results_files.read_file(result_path(out, point)).results
    except (SwitchscopeError, ValueError):  # missing, damaged, or not one result: measured again
        return None
    return result if result.count + result.excluded == point.samples else None


PLAN_FILE = "plan.json"  # in a suite's directory: what it measured, for merge
WRITTEN = (PLAN_FILE, "runs", "summary.md", "index.html")  # what a suite or a merge writes into its directory


def check_out(out: Path, option: str = "--out", resumable: bool = False) -> None:
    """Refuse a directory that already holds a suite's results (before any work): the new results would mix
    with the old, and a later report or merge would read both."""
    held = [name for name in WRITTEN if (out / name).exists()]
    if held:
        resume = ", or --resume to go on with the run that wrote them" if resumable else ""
        raise SwitchscopeError(f"{option} {out}: already holds a suite's results ({', '.join(held)}), which "
                               "these would mix with", f"give a new directory{resume}, or remove them first")


def _read_plan(out: Path) -> dict:
    try:
        plan = json.loads((out / PLAN_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return plan if isinstance(plan, dict) else {}


def _check_resumed_plan(out: Path, plan: dict, measurements: list[Point], subset: Subset | None) -> None:
    """--resume goes on with the same plan and share only (`plan`: what out's plan.json holds): another
    one's results are not this one's."""
    written = plan.get("subset")
    if not isinstance(written, dict):
        return  # a directory written before plans were kept: its results say for themselves
    asked = manifest(measurements, subset or Subset(1, 1))
    if (written.get("plan"), written.get("subset")) != (asked["plan"], asked["subset"]):
        raise SwitchscopeError(f"--resume: {out} holds share {written.get('subset')} of plan {written.get('plan')}, "
                               f"this is share {asked['subset']} of plan {asked['plan']} (the kernels, targets, "
                               "samples or share differ)",
                               "resume with the options of the run that wrote it, or give a new directory")


def write_plan(out: Path, kernels, targets, samples: int, measurements: list[Point], subset: Subset | None,
               wall: float, workers: int, complete: bool = True) -> None:
    """What this suite directory holds: the suite asked for, the plan's digest and its share of it, and
    whether every measurement of the share is done (written first as not, so that --resume and merge know
    an interrupted directory's plan)."""
    subset = subset or Subset(1, 1)
    plan = {"kernels": [k.name for k in kernels], "targets": [t.name for t in targets], "samples": samples,
            "subset": manifest(measurements, subset), "complete": complete,
            "wall_seconds": round(wall, 3), "workers": workers}
    outputs.write_text(out / PLAN_FILE, json.dumps(plan, indent=1) + "\n")


def measurements(found: list[Point]) -> list[Point]:
    """Each measurement once, however many tables show it."""
    distinct: dict[tuple, Point] = {}
    for point in found:
        distinct.setdefault(_measurement(point), point)
    return list(distinct.values())


def run(kernels, targets, samples: int, out: Path, workers: int | None, write, progress=None, resume: bool = False,
        subset: Subset | None = None, cluster: str | None = None):
    """Measure the suite into `out`, each result written as soon as it is
    measured, and return (each measurement's outcome, the files written, the
    seconds it took); with `resume`, the points whose results are already there are
    read back instead of measured. Then `write(out, outcomes, samples,
    wall_seconds, workers, incomplete=None, share=None, planned=())` writes the summary of every
    point's outcome (one measurement shown in two tables is in both) and
    returns the files it wrote; interrupted, it writes that of what is complete, marked
    incomplete, and lets the interruption go on. With `subset`, only that share of the measurements
    (figures/shards.py); the directory's plan.json says which, for merge. With `cluster`, on a Dask
    cluster (figures/cluster.py)."""
    found = points(kernels, targets, samples)
    every = measurements(found)
    distinct = share_of(every, subset) if subset else every
    written_plan = _read_plan(out) if resume else {}
    if resume:
        _check_resumed_plan(out, written_plan, every, subset)
    workers = workers or os.cpu_count() or 1
    kept = {index: result for index, point in enumerate(distinct)
            if resume and (result := _written_before(out, point)) is not None}
    earlier = float(written_plan.get("wall_seconds") or 0)  # a resumed run's time adds up
    out.mkdir(parents=True, exist_ok=True)
    write_plan(out, kernels, targets, samples, every, subset, earlier, workers, complete=False)
    started = time.monotonic() - earlier
    try:
        outcomes = matrix.run_points(distinct, workers, progress,
                                     lambda point, outcome, _: _write_result(out, point, outcome), kept, cluster)
    except Interrupted as interruption:
        outcomes = getattr(interruption, "completed", [(distinct[i], kept[i]) for i in sorted(kept)])
        for point, outcome in outcomes:  # the signal may have cut the last one's write short
            if not result_path(out, point).is_file():
                _write_result(out, point, outcome)
        write_plan(out, kernels, targets, samples, every, subset, time.monotonic() - started, workers,
                   complete=False)
        write(out, every_point(found, outcomes), samples, time.monotonic() - started, workers,
              incomplete=f"interrupted after {len(outcomes)} of {len(distinct)} measurements",
              share=str(subset) if subset else None, planned=found if subset else ())
        interruption.kept = f"{len(outcomes)} of {len(distinct)} measurements kept in {out}"
        raise
    wall = time.monotonic() - started
    write_plan(out, kernels, targets, samples, every, subset, wall, workers)
    measured = [(point, outcome) for point, outcome in outcomes if isinstance(outcome, Result)]
    floor.attach([outcome for _, outcome in measured])
    for point, outcome in measured:
        if outcome.x_floor:  # written again with its multiple of the floor, known once the floor was measured
            _write_result(out, point, outcome)
    return outcomes, write(out, every_point(found, outcomes), samples, wall, workers,
                           share=str(subset) if subset else None, planned=found if subset else ()), wall
