"""Many measurements at once: the points of a sweep or a suite, run on all
cores. Every point is one job (kernel, target, scenario, method,
configuration, tasks) at one sample count, and gives a full distribution."""

from __future__ import annotations

import multiprocessing
import os
import signal
from dataclasses import dataclass
from typing import Callable

from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.common.errors import INTERRUPTING_SIGNALS, Interrupted, SwitchscopeError, ignore_signal
from switchscope.figures import results_files
from switchscope.figures.measure import measure
from switchscope.figures.result import AlteredResult, Result
from switchscope.common.tools import die_with_parent


@dataclass(frozen=True)
class Point:
    job: Job
    samples: int
    group: str = ""  # what the point belongs to in a report (e.g. "bertos", "tasks", "switches")


MAX_POINTS = 10_000  # values one list may give: a sweep of more is a typo, not an experiment


def parse_counts(text: str, what: str, maximum: int) -> list[int]:
    """"2-8" or "100,1000,10000" (or a mix: "2-4,8") as a list of integers from 1 to `maximum`."""
    found = []
    try:
        for part in text.split(","):
            low, sep, high = part.partition("-")
            first, last = (int(low), int(high)) if sep else (int(low), int(low))
            if not 1 <= first <= maximum or not 1 <= last <= maximum:
                raise SwitchscopeError(f"{what} takes numbers from 1 to {maximum}, not '{part}'")
            if first > last:
                raise SwitchscopeError(f"{what} '{part}': the range is reversed", f"write it {last}-{first}")
            if len(found) + last - first + 1 > MAX_POINTS:
                raise SwitchscopeError(f"{what} '{text}' gives more than {MAX_POINTS} values")
            if twice := sorted(set(found) & set(range(first, last + 1))):  # each would be measured twice
                raise SwitchscopeError(f"{what} '{text}' gives {twice[0]} twice", "give each number once")
            found += list(range(first, last + 1))
    except ValueError:
        raise SwitchscopeError(f"{what} takes numbers and ranges such as 2-8 or 100,1000,10000, not '{text}'") from None
    if not found:
        raise SwitchscopeError(f"{what} needs at least one number, not '{text}'")
    return found


def config_variants(pairs: list[str]) -> list[dict[str, str]]:
    """["preemption=on,off", "opt=-O0,-O2"] (or "preemption=on,off,opt=-O0,-O2") -> every combination, as
    option dicts (an option or a value given twice refused)."""
    return configs.variants(pairs)


def point_key(point: Point) -> tuple:
    """What identifies a point's result: kernel, target, scenario, method, options, tasks, unit, samples."""
    job = point.job
    tasks = (job.tasks or 2) if job.scenario.name == "rotate" else None  # 2: the firmware's default
    return (job.kernel.name, job.target.name, job.scenario.name, job.method.name,
            tuple(sorted(job.resolved_config().as_dict().items())), tasks, job.counted_in, point.samples)


def result_key(result: Result) -> tuple:
    return (result.kernel, result.target, result.scenario, result.method, tuple(sorted(result.options.items())),
            result.tasks, result.unit, result.count + result.excluded)


def results_already_in(path, points: list[Point], share: dict | None = None,
                       plan: dict | None = None) -> dict[int, Result]:
    """index -> result of every point whose result a JSON file of an earlier sweep holds (none if there is no
    file). The file must be this sweep's (`plan`: its digest and point count) and this share's (`share`: its
    manifest): resuming rewrites it, and what another sweep measured, or meant to, would be lost."""
    if path is None or not path.exists():
        return {}
    try:
        written = results_files.read_file(path)  # compare's reader and its rules: what it refuses, resume does
    except AlteredResult as error:
        raise SwitchscopeError(f"--resume: {error.message}",
                               f"{path}'s results cannot be kept: measure the sweep again into a new --json file "
                               "(or remove this one first)") from None
    except SwitchscopeError as error:
        raise SwitchscopeError(f"--resume: {path} is not the JSON of a sweep ({error.message})",
                               "give the --json file the interrupted sweep was writing") from None
    other = "resume with the options of the sweep that wrote it, or give a new --json file"
    held, asked = (((given or {}).get("subset"), (given or {}).get("plan")) for given in (written.subset, share))
    if held != asked:
        said = [f"share {which[0]} of plan {which[1]}" if which != (None, None) else "a whole sweep"
                for which in (held, asked)]
        raise SwitchscopeError(f"--resume: {path} holds {said[0]}, this is {said[1]}", other)
    if plan and written.plan and written.plan.get("digest") != plan["digest"]:
        raise SwitchscopeError(f"--resume: {path} holds a sweep of another plan ({written.plan.get('points')} points, "
                               f"this one has {plan['points']}): its kernels, targets, scenarios, options, tasks or "
                               "samples differ", other)
    keys = {point_key(point): index for index, point in enumerate(points)}
    foreign = [result for result in written.results if result_key(result) not in keys]
    if foreign:
        raise SwitchscopeError(f"--resume: {path} holds {len(foreign)} result{'s' if len(foreign) > 1 else ''} of "
                               f"another sweep (e.g. {foreign[0].kernel}/{foreign[0].target}/{foreign[0].scenario}"
                               f"{f', {foreign[0].tasks} tasks' if foreign[0].tasks else ''})", other)
    return {keys[result_key(result)]: result for result in written.results}


BYTES_PER_SAMPLE_HELD = 64  # a kept sample as the host holds it until its result is written (list, JSON)


def check_fits_in_memory(points: list[Point]) -> None:
    """Refuse, before it starts, a sweep whose samples would not fit in this machine's memory."""
    total = sum(point.samples for point in points)
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return
    if total * BYTES_PER_SAMPLE_HELD > memory // 2:
        raise SwitchscopeError(f"the sweep holds {total:,} samples in all, about "
                               f"{total * BYTES_PER_SAMPLE_HELD / 2**30:.1f} GiB: more than half of this machine's "
                               f"{memory / 2**30:.1f} GiB", "measure fewer points or fewer samples per point")


_busy = False  # in a worker: whether a measurement is under way
_signalled = 0  # in a worker: the signal it obeyed, once one came


def _on_signal_in_worker(signal_number, _frame):
    """A worker that is measuring unwinds (its simulator is ended and its
    scratch directory removed on the way out); an idle one just exits. The
    first signal is the one obeyed: a command killed outright sends one to
    each worker for every thread of the command that dies, and a second one
    would cut the clean-up short."""
    global _signalled
    for number in INTERRUPTING_SIGNALS:
        signal.signal(number, ignore_signal)
    _signalled = signal_number
    if _busy:
        raise Interrupted(signal_number)
    os._exit(128 + signal_number)


def _start_worker(command_pid: int) -> None:
    for number in INTERRUPTING_SIGNALS:
        signal.signal(number, _on_signal_in_worker)
    # the command killed outright (SIGKILL, the OOM killer): its workers end too, and their simulators with them
    die_with_parent(signal.SIGTERM)
    if os.getppid() != command_pid:  # it died before the line above took effect
        os._exit(128 + signal.SIGTERM)


def _measure(item: tuple[int, Point]) -> tuple[int, Result | str]:
    global _busy
    index, point = item
    _busy = True
    try:
        return index, measure(point.job, point.samples)
    except SwitchscopeError as error:
        return index, str(error)
    except Interrupted as interruption:
        os._exit(interruption.exit_status)
    except BaseException:
        if _signalled:  # a clean-up the signal cut into failed (a compiler ended under it, a scratch directory
            os._exit(128 + _signalled)  # half removed): the command says it was interrupted, no traceback
        raise
    finally:
        _busy = False


def run_points(points: list[Point], workers: int | None = None,
               progress: Callable[[int, int, Point, "Result | str"], None] | None = None,
               on_outcome: Callable[[Point, "Result | str", list], None] | None = None,
               done: dict[int, Result] | None = None, cluster: str | None = None) -> list[tuple[Point, Result | str]]:
    """Measure every point, `workers` at a time (default: every core); each
    outcome is the result, or the error's message. The order is the points'.
    `done`: the outcomes known before, by index (what a resumed run read
    back): not measured again, but returned with the others.
    `on_outcome(point, outcome, completed)` sees each new outcome as soon as it
    is known (to write it), with every outcome known so far in the points'
    order; `progress(done, total, point, outcome)` then counts it. On an
    interruption every worker and its simulator is ended, and the
    Interrupted exception carries those (`completed`). `cluster`: on a Dask
    cluster instead of the local pool (figures/cluster.py)."""
    workers = workers or os.cpu_count() or 1
    outcomes: dict[int, Result | str] = dict(done or {})
    todo = [(index, point) for index, point in enumerate(points) if index not in outcomes]

    def completed() -> list[tuple[Point, Result | str]]:
        return [(points[index], outcomes[index]) for index in sorted(outcomes)]

    if not todo:
        return completed()

    def take(index: int, outcome: Result | str) -> None:
        outcomes[index] = outcome
        if on_outcome:
            on_outcome(points[index], outcome, completed())
        if progress:
            progress(len(outcomes), len(points), points[index], outcome)

    if cluster:
        from switchscope.figures import cluster as dask_cluster  # imported only here: dask is an optional extra
        try:
            dask_cluster.run(todo, cluster, take)
        except Interrupted as interruption:
            interruption.completed = completed()
            raise
        return completed()
    pool = multiprocessing.get_context("fork").Pool(min(workers, len(todo)), initializer=_start_worker,
                                                     initargs=(os.getpid(),))
    try:
        for index, outcome in pool.imap_unordered(_measure, todo):
            take(index, outcome)
        pool.close()
    except Interrupted as interruption:
        pool.terminate()
        interruption.completed = completed()
        raise
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return completed()
