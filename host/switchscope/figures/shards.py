"""--subset K/N: a share of a plan's points, for CI jobs that split a matrix
between them. Every job plans the same points in the same order, so each
computes the same shares without talking to the others. The points that
share a firmware build go to one share together (it is built once, there);
the builds are dealt out largest first, each to the share with the least
work so far, a build counting as BUILD_COST runs. The plan's digest, kept
with every share's results, lets `merge` see that the shares belong together
and which ones are missing."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from switchscope.catalog.configs import RUN_OPTIONS
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.matrix import Point, point_key

BUILD_COST = 1.5  # a build takes 1 to 2 s, a point's run about 1 s: what a share's work is counted in
MOST_SHARES = 1000


@dataclass(frozen=True)
class Subset:
    index: int  # 1 to count
    count: int

    @classmethod
    def parse(cls, text: str) -> "Subset":
        try:
            index, count = (int(part) for part in text.split("/"))
        except ValueError:
            index = count = 0
        if not 1 <= index <= count <= MOST_SHARES:
            raise SwitchscopeError(f"--subset {text}: K/N is expected, 1 <= K <= N <= {MOST_SHARES}",
                                   "e.g. --subset 2/8 for the second of eight CI jobs")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def build_key(point: Point) -> tuple:
    """What a point's firmware is: the points with one key run one build. Every option but the run options
    (which the firmware reads when it starts) goes into the build: its -D, and the compiler's flags (opt)."""
    job = point.job
    built = {name: value for name, value in job.resolved_config().as_dict().items() if name not in RUN_OPTIONS}
    return (job.kernel.name, job.target.name, job.scenario.name, job.method.name, tuple(sorted(built.items())))


def shares(points: list[Point], count: int) -> list[list[int]]:
    """The indices of the points in each of `count` shares, each in plan order."""
    builds: dict[tuple, list[int]] = {}
    for index, point in enumerate(points):
        builds.setdefault(build_key(point), []).append(index)
    work = [0.0] * count
    dealt: list[list[int]] = [[] for _ in range(count)]
    for indices in sorted(builds.values(), key=lambda group: (-len(group), group[0])):
        least = min(range(count), key=lambda share: (work[share], share))
        dealt[least] += indices
        work[least] += BUILD_COST + len(indices)
    return [sorted(share) for share in dealt]


def share_of(points: list[Point], subset: Subset) -> list[Point]:
    return [points[index] for index in shares(points, subset.count)[subset.index - 1]]


def plan_digest(points: list[Point]) -> str:
    """The same for every job that plans the same points."""
    digest = hashlib.sha256()
    for point in points:
        digest.update(repr(point_key(point)).encode())
    return digest.hexdigest()[:16]


def manifest(points: list[Point], subset: Subset) -> dict:
    """What a share's results say of it, for merge: which share, of which plan, of how many points."""
    return {"subset": str(subset), "plan": plan_digest(points), "points": len(points)}
