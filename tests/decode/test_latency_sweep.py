"""The irq-latency sweep from a watch log: assertions paired with handler entries, placed in the loop by the
last pass of its top, the loop's period from the iterations no interrupt fell into, and the held region."""

import numpy as np

from switchscope.decode.latency import Sweep, held_steps, masked_region, one_per_phase, sweep
from switchscope.decode.recording import Events


def events(lines):
    """Events from (count, name) pairs, as the simulator logs them."""
    names = sorted({name for _, name in lines})
    return Events(np.array([t for t, _ in lines], dtype=np.int64),
                  np.array([names.index(n) for _, n in lines]), names, np.full(len(lines), -1, dtype=np.int64))


def test_each_assertion_is_paired_with_the_next_entry_and_placed_from_the_last_loop_top():
    log = [(0, "loop"), (10, "loop"), (20, "loop"), (23, "assert@100"), (35, "enter"),
           (40, "loop"), (50, "loop"), (57, "assert@10e"), (57, "enter"), (60, "loop")]
    found = sweep(events(log), False, "test")
    assert found.latency == [12, 0]
    assert found.addresses == [0x100, 0x10E]
    assert found.phases == [3, 7]
    assert found.period == 10  # 0-10, 10-20 and 40-50: no interrupt fell into them; 20-40 and 50-60 are longer
    assert found.covered == 2


def test_an_assertion_logged_just_before_the_tops_pass_is_step_zero():
    log = [(0, "loop"), (10, "loop"), (20, "loop"), (30, "assert@200"), (30, "loop"), (35, "enter"), (40, "loop"),
           (50, "loop"), (54, "assert@204"), (60, "enter")]
    found = sweep(events(log), False, "test")
    assert found.phases == [10, 4]
    assert found.period == 10 and found.covered == 2  # step 10 of a 10-step loop is its step 0


def test_the_iteration_that_arms_a_sample_is_not_the_loops_period_however_often_it_runs_undisturbed():
    """After each handler the next pass of the loop's top arms the next sample: that iteration runs the
    arming code (12 steps here), the ones after it the workload's own (10). Every sample below waits past its
    arming iteration, so that iteration runs undisturbed more often than the workload's own does."""
    log = [(0, "loop"), (10, "loop"), (20, "loop")]
    now = 20
    for delay in (13, 15, 17):  # armed at the pass at `now`: 12 steps of arming, then ordinary iterations
        log += [(now + 12, "loop"), (now + 12 + delay - 12, f"assert@{delay:x}"), (now + delay + 1, "enter"),
                (now + 22, "loop")]
        now += 22
    found = sweep(events(log), False, "test")
    assert found.period == 10
    # each asserted after its arming iteration's end; the first sample's passes count the quiet ones before the
    # sweep began too, so it is never taken for an ordinary one
    assert found.ordinary == [False, True, True]
    assert found.phases == [1, 3, 5]


def sweep_of(phases, ordinary, period=4):
    return Sweep(latency=list(range(100, 100 + len(phases))), least=None, most=None, addresses=[0] * len(phases),
                 phases=phases, period=period, ordinary=ordinary)


def test_one_sample_per_phase_the_first_of_an_ordinary_iteration_no_tick_fell_into():
    # samples 0-1: the arming iteration; 2-5 the loop's steps 0-3 once, sample 3 with a tick in its window;
    # 6-9 the steps again (step 1 now undisturbed); 10-11: the tick round, not the loop's
    phases = [5, 6, 0, 1, 2, 3, 0, 1, 2, 4, 7, 8]
    ordinary = [False, False, True, True, True, True, True, True, True, True, True, True]
    disturbed = [False, False, False, True, False, False, False, False, False, False, False, False]
    kept, ticked, covered = one_per_phase(sweep_of(phases, ordinary), disturbed, loop_samples=10)
    assert kept == [2, 4, 5, 7]  # steps 0, 2, 3, then 1 from the second pass
    assert ticked == [3] and covered == 4
    # the same run longer (more loop rounds before the tick round): the same samples
    longer = one_per_phase(sweep_of(phases[:10] + [0, 1, 2, 3] + phases[10:], ordinary + [True] * 4),
                           disturbed[:10] + [False] * 4 + disturbed[10:], loop_samples=14)
    assert longer == (kept, ticked, covered)


def test_a_step_met_only_where_a_tick_fell_is_not_covered():
    phases, ordinary = [0, 1, 2], [True] * 3
    kept, ticked, covered = one_per_phase(sweep_of(phases, ordinary), [False, True, False], loop_samples=3)
    assert kept == [0, 2] and ticked == [1]
    assert covered == 2 < 4  # steps 1 and 3 never met undisturbed: the sweep covers part of the loop


def test_the_held_steps_are_the_run_of_steps_around_the_worst_that_waited_longer_than_usual():
    # a 10-step loop, one sample per step (in the order taken: steps 5..9 then 0..4); steps 8, 9, 0 and 1 held
    phases = [5, 6, 7, 8, 9, 0, 1, 2, 3, 4]
    latency = [12, 12, 12, 40, 35, 30, 25, 12, 12, 12]
    first, last, steps = held_steps(phases, latency, at=3, usual=12, period=10)
    assert (phases[first], phases[last], steps) == (8, 1, 4)  # followed across the loop's top
    assert held_steps(phases, latency, at=0, usual=12, period=10) == (0, 0, 0)  # not held at all
