"""`switchscope merge`: the shares of one plan (each a CI job's --subset), or
any results, joined into one. A share is checked against the others: the
same plan (its digest, the same for every job that planned it), no share
missing, and a measurement two shares hold must have given the same samples."""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path

from switchscope import catalog
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import floor, results_files, suite
from switchscope.figures.matrix import Point, result_key
from switchscope.figures.result import Result
from switchscope.figures.shards import Subset, plan_digest

HINT = "merge takes every share of one plan: the directories of one suite, or the --json files of one sweep"
MAX_INPUT_BYTES = 1 << 30  # a results file that size holds some 150 million samples: more is no file of switchscope's
MAX_PLAN_BYTES = 1 << 20  # a suite's plan.json is a few lines


def check_input(path: Path, limit: int | None = None) -> None:
    """An input, before it is opened: a directory, or a regular file of at most `limit` bytes (by default
    MAX_INPUT_BYTES). A FIFO would wait for a writer for ever, a device (/dev/zero) never end."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    try:
        status = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise SwitchscopeError(f"no such file or directory: {path}", HINT) from None
    except OSError as error:
        raise SwitchscopeError(f"{path}: cannot be read ({error.strerror})") from None
    if stat.S_ISDIR(status.st_mode):
        return
    if not stat.S_ISREG(status.st_mode):
        raise SwitchscopeError(f"{path}: is not a regular file or a directory (a FIFO, a device or a socket)",
                               "give the --json files or the suite directories switchscope wrote")
    if status.st_size > limit:
        raise SwitchscopeError(f"{path}: {status.st_size:,} bytes, more than merge reads ({limit:,} bytes at most)",
                               HINT)


def check_out_of_suites(out: Path) -> None:
    """--out outside every suite's directory: inside one (its runs/), what merge writes would be read as that
    suite's results."""
    for folder in Path(out).resolve().parents:
        if (folder / suite.PLAN_FILE).is_file():
            raise SwitchscopeError(f"--out {out}: is inside the suite directory {folder}, whose files are read as "
                                   "its results", "give a path outside every suite's directory")


def _share_of(path: Path, entry) -> Subset:
    """A share's K/N, checked: a damaged one (3/2) is said as such, not as the share it seems to leave out."""
    text = entry.get("subset") if isinstance(entry, dict) else None
    if not isinstance(text, str) or not isinstance(entry.get("plan"), str):
        raise SwitchscopeError(f"{path}: its share is not one switchscope wrote ({entry!r:.80})", HINT)
    try:
        return Subset.parse(text)
    except SwitchscopeError:
        raise SwitchscopeError(f"{path}: share {text[:20]} is invalid: a share is K/N, 1 <= K <= N",
                               "merge the shares as switchscope wrote them (--subset K/N)") from None


def _shares_complete(subsets: list[tuple[Path, dict]]) -> None:
    """Every share of one plan, each once (a share given twice must be the same one)."""
    for path, entry in subsets:
        _share_of(path, entry)
    plans = {(entry.get("plan"), str(entry.get("subset", "")).partition("/")[2]) for _, entry in subsets}
    if len(plans) != 1:
        said = ", ".join(f"{path}: {entry.get('subset')} of plan {entry.get('plan')}" for path, entry in subsets)
        if len({plan for plan, _ in plans}) == 1:
            raise SwitchscopeError(f"these are shares of one plan split in different numbers of shares: {said}",
                                   "merge the shares of one split (the N of --subset K/N the same)")
        raise SwitchscopeError(f"these are shares of different plans: {said}", HINT)
    count = int(next(iter(plans))[1] or 1)
    seen = {int(str(entry["subset"]).partition("/")[0]) for _, entry in subsets}
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in seen]
    if missing:
        raise SwitchscopeError(f"share{'s' if len(missing) > 1 else ''} {', '.join(missing)} of the plan "
                               f"{next(iter(plans))[0]} missing: merging the rest would leave a gap", HINT)


def _same(first: Result, second: Result) -> bool:
    return first.samples == second.samples and first.excluded_samples == second.excluded_samples


def _disagree(what: str, first: Path, second: Path) -> SwitchscopeError:
    return SwitchscopeError(f"{what} was measured in {first} and in {second}, with other samples: the same "
                            "firmware on the same simulator gives identical samples, so one of them is not "
                            "what it says it is", "measure that share again, or leave one of them out")


@dataclass
class MergedSuite:
    kernels: list
    targets: list
    samples: int
    outcomes: list[tuple[Point, Result | str]]  # every measurement of the plan with its result, or why none
    found: list[Point]  # every point of the suite, for its tables
    wall_seconds: float
    workers: int


# what a suite's plan.json holds, each field's type and how it is said
PLAN_FIELDS = {"kernels": ((list,), "a list of kernel names"), "targets": ((list,), "a list of target names"),
               "samples": ((int,), "a whole number"), "wall_seconds": ((int, float), "a number"),
               "workers": ((int,), "a whole number"), "subset": ((dict,), "a share (subset, plan, points)")}


def _read_plan(directory: Path) -> dict:
    """A suite directory's plan.json, each field of the type it must have, or why it is no suite's."""
    path = directory / suite.PLAN_FILE
    if not path.is_file():
        raise SwitchscopeError(f"{directory} is no suite directory: it has no {suite.PLAN_FILE}", HINT)
    check_input(path, MAX_PLAN_BYTES)
    try:
        plan = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):
        raise SwitchscopeError(f"{directory} is no suite directory: its {suite.PLAN_FILE} cannot be read as JSON",
                               HINT) from None
    if not isinstance(plan, dict):
        raise SwitchscopeError(f"{path}: is not one switchscope suite wrote (not a JSON object)", HINT)
    for key, (kinds, what) in PLAN_FIELDS.items():
        value = plan.get(key)
        wrong = not isinstance(value, kinds) or isinstance(value, bool) or \
            (kinds == (list,) and not (value and all(isinstance(name, str) for name in value)))
        if wrong:
            raise SwitchscopeError(f"{path}: is not one switchscope suite wrote: '{key}' is {value!r:.60}, not {what}",
                                   HINT)
    return plan


def merge_suites(directories: list[Path]) -> MergedSuite:
    plans = [(directory, _read_plan(directory)) for directory in directories]
    unfinished = [str(directory) for directory, p in plans if p.get("complete") is False]
    if unfinished:
        raise SwitchscopeError(f"{', '.join(unfinished)}: its suite was interrupted, its share is not complete",
                               results_files.SUITE_UNFINISHED)
    asked = {(tuple(p["kernels"]), tuple(p["targets"]), p["samples"]) for _, p in plans}
    if len(asked) != 1:
        said = "; ".join(f"{directory}: {', '.join(p['kernels'])} on {', '.join(p['targets'])}, {p['samples']} samples"
                         for directory, p in plans)
        raise SwitchscopeError(f"these directories hold different suites: {said}", HINT)
    _shares_complete([(directory / suite.PLAN_FILE, p["subset"]) for directory, p in plans])
    kernels_named, targets_named, samples = next(iter(asked))
    unknown = [name for name in kernels_named if name not in catalog.KERNELS] + \
        [name for name in targets_named if name not in catalog.TARGETS]
    if unknown:
        raise SwitchscopeError(f"these shares measured {', '.join(unknown)}, which this switchscope does not know",
                               "merge with the switchscope that measured them")
    kernels = [catalog.KERNELS[name] for name in kernels_named]
    targets = [catalog.TARGETS[name] for name in targets_named]
    found = suite.points(kernels, targets, samples)
    every = suite.measurements(found)
    if plan_digest(every) != plans[0][1]["subset"]["plan"]:
        raise SwitchscopeError("these shares were planned by another switchscope (or another catalog): its plan "
                               "is not the one this one makes", "merge with the switchscope that measured them")
    outcomes = []
    for point in every:
        held = []
        for directory in directories:
            path = suite.result_path(directory, point)
            if path.is_file():
                check_input(path)
                results = results_files.read_file(path, "input").results
                if len(results) != 1:
                    raise SwitchscopeError(f"{path}: holds {len(results)} results, where a suite's run file holds "
                                           "one", "merge the directories as the suites wrote them")
                held.append((path, results[0]))
        for path, result in held[1:]:
            if not _same(held[0][1], result):
                raise _disagree(f"{point.job} ({point.samples} samples)", held[0][0], path)
        missing = (f"no result in any share: none of them holds {suite.result_path(Path(), point)} (it failed where "
                   "it was measured, or the file was removed)")
        outcomes.append((point, held[0][1] if held else missing))
    floor.attach([outcome for _, outcome in outcomes if isinstance(outcome, Result)])
    return MergedSuite(kernels, targets, samples, outcomes, found,
                       sum(p["wall_seconds"] for _, p in plans), max(p["workers"] for _, p in plans))


def merge_files(files: list[Path]) -> tuple[list[Result], list]:
    """The results of several JSON files as one list (a result two files hold, once), and their failures."""
    for path in files:
        check_input(path)
    read = [results_files.read_file(path, "input") for path in files]
    unfinished = [found for found in read if found.incomplete]
    if unfinished:
        raise SwitchscopeError(f"{unfinished[0].path} is unfinished ({unfinished[0].incomplete}): merged, it would "
                               "pass for a whole one", unfinished[0].how_to_finish)
    subsets = [(found.path, found.subset) for found in read if found.subset]
    if subsets and len(subsets) != len(read):
        raise SwitchscopeError("some of these files are shares of a plan (--subset) and some are not", HINT)
    if subsets:
        _shares_complete(subsets)
    merged: dict[tuple, tuple[Path, Result]] = {}
    for found in read:
        for result in found.results:
            key = result_key(result) + (result.source, result.kind)
            if key in merged and not _same(merged[key][1], result):
                raise _disagree(f"{result.kernel}/{result.target}/{result.scenario}", merged[key][0], found.path)
            merged.setdefault(key, (found.path, result))
    failures = list({json.dumps(failure, sort_keys=True): failure for found in read for failure in found.failures
                     }.values())  # a share given twice lists its failures once
    if subsets:
        _all_points_held(subsets, len(merged), len(failures))
    return [result for _, result in merged.values()], failures


def _all_points_held(subsets: list[tuple[Path, dict]], results: int, failures: int) -> None:
    """Every point of a sweep's plan is in one share, measured or failed: a result taken out of a share would
    leave the merged file short of it, and nothing would say so."""
    points = subsets[0][1].get("points")
    if isinstance(points, int) and results + failures < points:
        short = points - results - failures
        raise SwitchscopeError(f"the shares hold {results} result{'s' if results != 1 else ''} and {failures} "
                               f"failure{'s' if failures != 1 else ''} for the plan's {points} points: {short} "
                               f"point{'s are' if short > 1 else ' is'} in none of them (a result removed from a "
                               "share, or a share of another run)", "merge the shares as the sweeps wrote them, or "
                                                                    "measure the missing share again")
