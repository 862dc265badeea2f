"""Unit tests of the arithmetic from stamps to statistics."""

import math
from fractions import Fraction

import pytest

from switchscope.decode.stats import (counts_to_units, elapsed_counts, intervals, overhead,
                                  percentile_nearest_rank, statistics)

pytestmark = pytest.mark.smoke  # pure: part of the quick subset

MODULUS = 25000  # SysTick period of mps2-an385 at a 1 kHz tick


class TestElapsedCounts:
    def test_down_counter_without_wrap(self):
        assert elapsed_counts(start=24000, end=23850, modulus=MODULUS, counts_down=True) == 150

    def test_down_counter_wrapping_exactly_at_the_reload_value(self):
        # 0 is followed by the reload value modulus-1: one count elapsed
        assert elapsed_counts(start=0, end=MODULUS - 1, modulus=MODULUS, counts_down=True) == 1

    def test_down_counter_wrapping_across_zero(self):
        assert elapsed_counts(start=10, end=MODULUS - 5, modulus=MODULUS, counts_down=True) == 15

    def test_zero_elapsed(self):
        assert elapsed_counts(start=1234, end=1234, modulus=MODULUS, counts_down=True) == 0
        assert elapsed_counts(start=0, end=0, modulus=MODULUS, counts_down=False) == 0

    def test_up_counter_wrapping_exactly_at_the_modulus(self):
        assert elapsed_counts(start=MODULUS - 1, end=0, modulus=MODULUS, counts_down=False) == 1
        assert elapsed_counts(start=65530, end=4, modulus=65536, counts_down=False) == 10

    def test_almost_a_full_period(self):
        assert elapsed_counts(start=MODULUS - 1, end=0, modulus=MODULUS, counts_down=True) == MODULUS - 1

    @pytest.mark.parametrize("start,end", [(MODULUS, 0), (0, MODULUS), (-1, 0), (0, 2**32)])
    def test_stamp_outside_the_timer_range_is_rejected(self, start, end):
        with pytest.raises(ValueError, match="outside the timer's range"):
            elapsed_counts(start, end, MODULUS, counts_down=True)


class TestCountsToUnits:
    PER_INSTRUCTION = Fraction(32, 5)  # 25 MHz timer, 256 ns per instruction

    def test_exact_multiples(self):
        assert counts_to_units(64, self.PER_INSTRUCTION) == 10
        assert counts_to_units(0, self.PER_INSTRUCTION) == 0

    def test_rounds_half_up(self):
        assert counts_to_units(5, Fraction(10)) == 1
        assert counts_to_units(4, Fraction(10)) == 0
        assert counts_to_units(15, Fraction(10)) == 2

    def test_recovers_every_instruction_count_at_every_timer_phase(self):
        # Two reads of a timer at 6.4 counts per instruction: whatever the phase
        # of the first read, the truncated difference converts back to N exactly.
        for n in range(0, 400):
            for phase in [Fraction(k, 10) for k in range(64)]:
                counts = math.floor(phase + n * self.PER_INSTRUCTION) - math.floor(phase)
                assert counts_to_units(counts, self.PER_INSTRUCTION) == n

    def test_cycles_pass_through(self):
        assert counts_to_units(283, Fraction(1)) == 283


class TestOverheadCorrection:
    def test_overhead_is_the_least_calibration_reading(self):
        assert overhead([7, 6, 6, 8]) == 6

    def test_no_calibration_is_an_error(self):
        with pytest.raises(ValueError):
            overhead([])


class TestStatistics:
    def test_summary_of_a_known_distribution(self):
        stats = statistics([3, 1, 2, 2, 10])
        assert stats["min"] == 1 and stats["max"] == 10
        assert stats["median"] == 2
        assert stats["mode"] == 2
        assert stats["mean"] == pytest.approx(3.6)
        assert stats["stddev"] == pytest.approx(math.sqrt(((3 - 3.6) ** 2 + (1 - 3.6) ** 2 + 2 * (2 - 3.6) ** 2
                                                           + (10 - 3.6) ** 2) / 5))

    def test_even_count_median_is_the_mean_of_the_middle_two(self):
        assert statistics([1, 2, 3, 10])["median"] == 2.5

    def test_mode_tie_takes_the_smallest(self):
        assert statistics([5, 5, 3, 3, 9])["mode"] == 3

    def test_single_sample(self):
        stats = statistics([42])
        assert stats == {"min": 42, "median": 42, "mode": 42, "mean": 42, "max": 42, "stddev": 0, "p99": 42}

    def test_p99_nearest_rank(self):
        values = list(range(1, 101))  # 1..100
        assert percentile_nearest_rank(values, 99) == 99
        assert statistics(list(range(1, 201)))["p99"] == 198
        assert statistics([1] * 99 + [500])["p99"] == 1
        assert statistics([1] * 98 + [500, 500])["p99"] == 500

    def test_empty_is_an_error(self):
        with pytest.raises(ValueError):
            statistics([])


class TestIntervals:
    def test_alternating_markers(self):
        events = [(10, "open"), (25, "close"), (40, "open"), (41, "close")]
        assert intervals(events, "open", "close") == ([15, 1], 0)

    def test_both_markers_on_one_instruction_read_zero(self):
        assert intervals([(7, "open"), (7, "close")], "open", "close") == ([0], 0)

    def test_a_close_before_any_open_is_ignored(self):
        assert intervals([(3, "close"), (10, "open"), (12, "close")], "open", "close") == ([2], 0)

    def test_an_open_reached_again_restarts_the_interval_and_is_counted(self):
        found, unpaired = intervals([(10, "open"), (20, "open"), (26, "close"), (30, "open")], "open", "close")
        assert found == [6]
        assert unpaired == 2  # the one overtaken at 20, and the last one, never closed
