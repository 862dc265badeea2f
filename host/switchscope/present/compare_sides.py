"""The two sides of `switchscope compare`, as read: each side's results and what its files say could not be
measured; a side that holds nothing, or was interrupted, is refused, since a gate must not pass on what was
never measured."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from switchscope import catalog
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import results_files, shards, suite
from switchscope.figures.result import Result


@dataclass
class Side:
    """One side of a comparison as read: its results, and what its files say the command that wrote them
    could not measure."""
    path: Path
    results: list[Result]
    failures: list[dict]


def load_side(path: Path, side: str) -> Side:
    """A side's results (of a JSON file of run, sweep, measure, analyze, or of a suite's directory: its
    runs/**/*.json; an intrusion report's rows are medians, not results, and are left out) and failures; a file written by a command that was interrupted, or that has not
    finished (a sweep's file while it runs), is refused: its missing results would read as "only in base"
    and the gate would pass on what was never measured."""
    found = results_files.read(path, side)
    suites = _suites_under(path)
    unfinished = [(each.path, each.incomplete, each.how_to_finish) for each in found if each.incomplete] + [
        (directory, "its suite was interrupted: its plan.json says it is not complete", results_files.SUITE_UNFINISHED)
        for directory, plan in suites if plan.get("complete") is False]
    if unfinished:
        where, why, hint = unfinished[0]
        raise SwitchscopeError(f"{side} {where}: incomplete ({why}): what it lacks would pass as not measured, and a "
                               "gate must not pass on that", hint)
    return Side(path, [r for each in found for r in each.results],
                [failure for each in found for failure in each.failures if isinstance(failure, dict)]
                + [failure for directory, plan in suites for failure in _failed_in_suite(directory, plan)])


def _suites_under(path: Path) -> list[tuple[Path, dict]]:
    """The suite directories at or under `path`, each with its plan.json: their run files are whole results,
    and only the plan knows what is missing (interrupted, or failed: a failed measurement leaves no file)."""
    if not path.is_dir():
        return []
    found = []
    for plan_file in sorted(path.rglob(suite.PLAN_FILE)):
        try:
            plan = json.loads(plan_file.read_text())
        except (OSError, ValueError, RecursionError):
            continue  # not a suite's plan: its results are read as any others
        if isinstance(plan, dict):
            found.append((plan_file.parent, plan))
    return found


def _failed_in_suite(directory: Path, plan: dict) -> list[dict]:
    """The measurements of a suite's share that left no result file (each failed where it was measured), as
    a results file lists its failures; none where the plan is another switchscope's (it cannot be planned
    again here)."""
    try:
        kernels = [catalog.KERNELS[name] for name in plan["kernels"]]
        targets = [catalog.TARGETS[name] for name in plan["targets"]]
        share = shards.Subset.parse(plan["subset"]["subset"])
        every = suite.measurements(suite.points(kernels, targets, int(plan["samples"])))
    except (KeyError, TypeError, ValueError, SwitchscopeError):
        return []
    if shards.plan_digest(every) != plan["subset"].get("plan"):
        return []
    return [{"job": str(point.job), "samples": point.samples,
             "error": f"no result in {directory} (the measurement failed where it was measured)"}
            for point in shards.share_of(every, share) if not suite.result_path(directory, point).is_file()]


def check_sides(base: Side, new: Side) -> None:
    """Refuse two sides of which one holds nothing: there is nothing to compare, and the gate must not pass."""
    said = {side: _failures_said(found.failures) for side, found in (("base", base), ("new", new))}
    if not base.results and not new.results:
        raise SwitchscopeError(f"base {base.path} and new {new.path} hold no results: nothing to compare"
                               f"{said['base']}{said['new']}", results_files.HINT)
    for side, found, other in (("new", new, "the change"), ("base", base, "the base")):
        if not found.results:
            raise SwitchscopeError(f"{side} {found.path} holds no results: the measurement of {other} measured "
                                   f"nothing{said[side]}", "measure it again; a job that compared nothing must not "
                                                           "pass")


def _failures_said(failures: list[dict]) -> str:
    if not failures:
        return ""
    first = failures[0]
    return (f" ({len(failures)} measurement{'s' if len(failures) > 1 else ''} failed, e.g. {first.get('job')}: "
            f"{first.get('error')})")


def failed_in_new(new: Side) -> list[str]:
    """The measurements the change's run could not make: each a regression the gate cannot see, so each
    fails it (a firmware that no longer runs is slower than any figure)."""
    return [f"{failure.get('job')}"
            + (f" ({failure['samples']} samples)" if failure.get("samples") else "")
            + f": {failure.get('error')}" for failure in new.failures]
