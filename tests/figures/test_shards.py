"""--subset K/N over a real plan: every point in exactly one share for N = 1 to 5, a firmware's points
kept together, the shares' work close, and every job computing the same shares."""

import pytest

from switchscope import catalog
from switchscope.catalog.plan import plan
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import suite
from switchscope.figures.matrix import Point, config_variants
from switchscope.figures.shards import BUILD_COST, Subset, build_key, plan_digest, share_of, shares

PLAN = suite.points([catalog.KERNELS["freertos"], catalog.KERNELS["floor"]],
                    [catalog.TARGETS["mps2-an385"], catalog.TARGETS["atmega328p"]], 100)


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_every_point_is_in_exactly_one_share(count):
    dealt = shares(PLAN, count)
    assert sorted(index for share in dealt for index in share) == list(range(len(PLAN)))
    together = {}
    for number, share in enumerate(dealt):
        for index in share:
            assert together.setdefault(build_key(PLAN[index]), number) == number  # one build, one share
    work = [len({build_key(PLAN[i]) for i in share}) * BUILD_COST + len(share) for share in dealt]
    biggest_build = max(sum(1 for p in PLAN if build_key(p) == key) for key in map(build_key, PLAN))
    assert max(work) - min(work) <= BUILD_COST + biggest_build  # greedy dealing: at most one build apart


def test_every_job_computes_the_same_shares_and_digest():
    again = suite.points([catalog.KERNELS["freertos"], catalog.KERNELS["floor"]],
                         [catalog.TARGETS["mps2-an385"], catalog.TARGETS["atmega328p"]], 100)
    assert shares(again, 4) == shares(PLAN, 4) and plan_digest(again) == plan_digest(PLAN)
    assert plan_digest(PLAN[:-1]) != plan_digest(PLAN)
    assert share_of(PLAN, Subset(2, 3)) == [PLAN[i] for i in shares(PLAN, 3)[1]]


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "2/0", "1/1001"])
def test_a_bad_subset_is_refused(text):
    with pytest.raises(SwitchscopeError, match="K/N"):
        Subset.parse(text)


def test_each_optimisation_level_is_a_firmware_of_its_own():
    """-O0 and -O2 compile to two images: a sweep over them splits by level (the task count, read when the
    firmware starts, does not split an image)."""
    jobs = plan([catalog.KERNELS["freertos"]], [catalog.TARGETS["mps2-an385"]], [catalog.SCENARIOS["rotate"]],
                [catalog.METHODS["probe"]], config_variants(["opt=-O0,-O2"]), tasks=[2, 3]).jobs
    points = [Point(job, 100) for job in jobs]
    dealt = [[points[i].job.resolved_config()["opt"] for i in share] for share in shares(points, 2)]
    assert sorted(map(set, dealt), key=sorted) == [{"-O0"}, {"-O2"}] and all(len(share) == 2 for share in dealt)
