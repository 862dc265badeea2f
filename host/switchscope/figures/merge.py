"""`switchscope merge`: the shares of one plan (each a CI job's --subset), or
any results, joined into one. A share is checked against the others: the
same plan (its digest, the same for every job that planned it), no share
missing, and a measurement two shares hold must have given the same samples."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from switchscope import catalog
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import floor, results_files, suite
from switchscope.figures.matrix import Point, result_key
from switchscope.figures.result import Result
from switchscope.figures.shards import plan_digest

HINT = "merge takes every share of one plan: the directories of one suite, or the --json files of one sweep"


def _shares_complete(subsets: list[tuple[Path, dict]]) -> None:
    """Every share of one plan, each once (a share given twice must be the same one)."""
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


def merge_suites(directories: list[Path]) -> MergedSuite:
    plans = []
    for directory in directories:
        path = directory / suite.PLAN_FILE
        try:
            plans.append((directory, json.loads(path.read_text())))
        except (OSError, ValueError):
            raise SwitchscopeError(f"{directory} is no suite directory: it has no readable {suite.PLAN_FILE}",
                                   HINT) from None
    unfinished = [str(directory) for directory, p in plans if p.get("complete") is False]
    if unfinished:
        raise SwitchscopeError(f"{', '.join(unfinished)}: its suite was interrupted, its share is not complete",
                               "finish it first: switchscope suite --out DIR --resume, with the options it was "
                               "started with")
    try:
        asked = {(tuple(p["kernels"]), tuple(p["targets"]), int(p["samples"])) for _, p in plans}
        for _, p in plans:
            p["wall_seconds"], p["workers"] = float(p["wall_seconds"]), int(p["workers"])
            if not isinstance(p["subset"]["subset"], str) or not isinstance(p["subset"]["plan"], str):
                raise TypeError
    except (KeyError, TypeError, ValueError):
        raise SwitchscopeError(f"a {suite.PLAN_FILE} among {', '.join(map(str, directories))} is not one switchscope "
                               "suite wrote", HINT) from None
    if len(asked) != 1:
        said = "; ".join(f"{directory}: {', '.join(p['kernels'])} on {', '.join(p['targets'])}, {p['samples']} samples"
                         for directory, p in plans)
        raise SwitchscopeError(f"these directories hold different suites: {said}", HINT)
    _shares_complete([(directory, p["subset"]) for directory, p in plans])
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
                (result,) = results_files.read_file(path, "input").results
                held.append((path, result))
        for path, result in held[1:]:
            if not _same(held[0][1], result):
                raise _disagree(f"{point.job} ({point.samples} samples)", held[0][0], path)
        outcomes.append((point, held[0][1] if held else "no result in any share (it failed where it was measured)"))
    floor.attach([outcome for _, outcome in outcomes if isinstance(outcome, Result)])
    return MergedSuite(kernels, targets, samples, outcomes, found,
                       sum(p["wall_seconds"] for _, p in plans), max(p["workers"] for _, p in plans))


def merge_files(files: list[Path]) -> tuple[list[Result], list]:
    """The results of several JSON files as one list (a result two files hold, once), and their failures."""
    read = [results_files.read_file(path, "input") for path in files]
    unfinished = [found for found in read if found.incomplete]
    if unfinished:
        raise SwitchscopeError(f"{unfinished[0].path} is unfinished ({unfinished[0].incomplete}): merged, it would "
                               "pass for a whole one", "finish it first: the same sweep again with --resume and "
                               f"--json {unfinished[0].path}")
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
    return [result for _, result in merged.values()], [failure for found in read for failure in found.failures]
