"""The software-vs-PendSV comparison: which results pair up, and the figures of each row, worked by hand."""

from switchscope.figures.result import Result
from switchscope.present import mechanism


def result(switch, samples, tasks=4, excluded=0, **options):
    return Result(kind="scenario", scenario="rotate", method="probe", unit="cycles", samples=list(samples),
                  overhead=8, first=samples[0], kernel="freertos", target="mps2-an385", tasks=tasks,
                  excluded_samples=[{"seq": 0, "value": 999, "reason": "tick"}] * excluded, options={"opt": "-O2", "switch": switch, **options}, f_cpu_hz=25_000_000)


def test_only_results_that_differ_in_the_mechanism_alone_are_paired():
    results = [result("software", [313] * 10), result("pendsv", [287] * 10),
               result("software", [300] * 10, tasks=5),  # no PendSV partner
               result("pendsv", [287] * 10, tasks=5, opt="-Os")]  # another configuration
    paired = mechanism.paired(results)
    assert len(paired) == 1
    (points,) = paired.values()
    assert list(points) == [(4, 10)] and set(points[(4, 10)]) == {"software", "pendsv"}


def test_a_row_gives_both_medians_their_difference_and_pendsvs_excess_in_percent():
    points = mechanism.paired([result("software", [320, 320, 330]), result("pendsv", [300, 300, 310])])
    (row,) = mechanism.rows(next(iter(points.values())), "tasks")
    # medians 320 and 300: PendSV is 20 cycles, 6.25% shorter; at 40 ns a cycle 12.80 and 12.00 µs
    assert row == ["4", "320", "300", "-20", "-6.2%", "12.80", "12.00"]


def test_totals_are_every_switch_at_the_mean_of_the_kept_ones():
    # software: 3 kept of 4 (mean 100), PendSV: 4 kept (mean 102.5): 400 and 410 cycles for 4 switches
    points = mechanism.paired([result("software", [90, 100, 110], excluded=1),
                               result("pendsv", [100, 100, 105, 105])])
    (row,) = mechanism.rows(next(iter(points.values())), "switches")
    assert row == ["4", "3 / 4", "400", "410", "10", "+2.5%", "16.00", "16.40"]
