"""Pairing a capture's pulses into A-B-C-D patterns: a glitch, a pin that
drops for an instant, or a capture that starts or stops mid-pattern gives
either the right tCS for every pattern kept, with what was left out counted
and explained, or a refusal. Never a clamped 0, never a shifted pairing."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from switchscope.decode import scope


def train(patterns: int, t_ab: int, t_cs: int, inner: int, outer: int, start: int = 1000):
    """Edges (ns, level) of a clean capture: each pattern a bare pulse, a short gap, the window."""
    edges, now = [(0, 0)], start
    for _ in range(patterns):
        edges += [(now, 1), (now + t_ab, 0)]
        c = now + t_ab + inner
        edges += [(c, 1), (c + t_ab + t_cs, 0)]
        now = c + t_ab + t_cs + outer
    return edges


def pulses_of(edges):
    return scope.pulses(edges)


def edges_of(pulses):
    return [(0, 0)] + [edge for rise, fall in pulses for edge in ((rise, 1), (fall, 0))]


clean = st.fixed_dictionaries({
    "patterns": st.integers(6, 40), "t_ab": st.integers(40, 400), "t_cs": st.integers(1, 5000),
    "inner": st.integers(5, 300), "outer": st.integers(4000, 200_000),
})


def check(edges, t_cs, patterns, glitches):
    """The rule: refused, or every kept pattern's tCS exact and the leftovers counted."""
    try:
        kept, left_out = scope.paired(edges)
    except scope.ScopeError:
        return None
    assert [m.t_cs for m in kept] == [t_cs] * len(kept)
    assert all(item.reason for item in left_out)
    if glitches:
        assert left_out, "a glitch left no trace"
    assert len(kept) >= patterns - 3 * glitches - 2  # a glitch costs at most the patterns beside it, a cut one each
    return kept, left_out


@pytest.mark.property
@settings(max_examples=300, deadline=None)
@given(clean)
def test_a_clean_train_pairs_exactly(shape):
    kept, left_out = check(train(**shape), shape["t_cs"], shape["patterns"], 0)
    assert len(kept) == shape["patterns"] and not left_out


@pytest.mark.property
@settings(max_examples=300, deadline=None)
@given(clean, st.booleans(), st.booleans())
def test_a_capture_cut_mid_pattern_loses_only_that_pattern(shape, cut_start, cut_end):
    found = pulses_of(train(**shape))
    found = found[1 if cut_start else 0: len(found) - (1 if cut_end else 0)]
    kept, left_out = check(edges_of(found), shape["t_cs"], shape["patterns"], 0)
    assert len(kept) == shape["patterns"] - cut_start - cut_end
    assert all("of the capture" in item.reason for item in left_out)


@pytest.mark.property
@settings(max_examples=500, deadline=None)
@given(clean, st.data())
def test_a_high_glitch_anywhere_is_left_out_with_its_neighbours(shape, data):
    found = pulses_of(train(**shape))
    gap = data.draw(st.integers(0, len(found) - 2), label="gap")
    space = found[gap + 1][0] - found[gap][1]
    width = data.draw(st.integers(1, max(1, shape["t_ab"] * 2 // 5)), label="width")
    assume(space > width + 2)
    rise = data.draw(st.integers(found[gap][1] + 1, found[gap + 1][0] - width - 1), label="rise")
    glitched = sorted(found + [(rise, rise + width)])
    result = check(edges_of(glitched), shape["t_cs"], shape["patterns"], 1)
    if result:
        assert any("glitch" in item.reason for item in result[1])


@pytest.mark.property
@settings(max_examples=500, deadline=None)
@given(clean, st.data())
def test_a_pin_that_drops_for_an_instant_is_left_out(shape, data):
    found = pulses_of(train(**shape))
    index = data.draw(st.integers(0, len(found) - 1), label="pulse")
    rise, fall = found[index]
    assume(fall - rise >= 3)
    low_at = data.draw(st.integers(rise + 1, fall - 2), label="drop")
    low_width = data.draw(st.integers(1, fall - low_at - 1), label="drop width")
    split = found[:index] + [(rise, low_at), (low_at + low_width, fall)] + found[index + 1:]
    check(edges_of(split), shape["t_cs"], shape["patterns"], 1)


def test_a_last_window_split_by_a_drop_wider_than_half_the_gap_between_patterns_is_left_out():
    found = pulses_of(train(patterns=27, t_ab=177, t_cs=3359, inner=5, outer=4000))
    a, _ = found[-2]
    c, d = found[-1]
    # the window drops for 2,000 ns, half the 4,000 ns between patterns: its last piece, 108 ns, is no glitch
    # and sits past a gap as wide as a cut capture's last bare pulse may, but within the window
    found[-1:] = [(c, c + 1428), (c + 3428, d)]
    kept, left_out = scope.paired(edges_of(found))
    assert [m.t_cs for m in kept] == [3359] * 26
    assert [(item.time, item.reason) for item in left_out] == [
        (a, "next to a glitch or a pulse with no partner"), (c + 3428, "a pulse with no partner")]


@pytest.mark.property
@settings(max_examples=300, deadline=None)
@given(clean, st.data())
def test_a_lost_pulse_is_left_out_not_paired_across(shape, data):
    found = pulses_of(train(**shape))
    index = data.draw(st.integers(1, len(found) - 2), label="lost")
    check(edges_of(found[:index] + found[index + 1:]), shape["t_cs"], shape["patterns"], 1)


def test_a_window_no_longer_than_its_bare_pulse_is_left_out_not_clamped():
    found = pulses_of(train(patterns=10, t_ab=100, t_cs=500, inner=20, outer=10_000))
    a, b = found[6]
    c, _ = found[7]
    found[7] = (c, c + 80)  # a window of 80 ns after a bare pulse of 100 ns
    kept, left_out = scope.paired(edges_of(found))
    assert [m.t_cs for m in kept] == [500] * 9
    assert [(item.time, item.value) for item in left_out] == [(a, -20)]
    assert "no longer than its bare pulse" in left_out[0].reason


def test_a_capture_that_does_not_pair_is_refused():
    rises = [0, 150, 420, 1000, 1210, 1900, 2000, 2600]  # pulses at random, no pattern in them
    edges = [(0, 0)] + [edge for rise in rises for edge in ((rise + 1, 1), (rise + 60 + rise % 7, 0))]
    with pytest.raises(scope.ScopeError, match="do not pair cleanly"):
        scope.paired(edges)
