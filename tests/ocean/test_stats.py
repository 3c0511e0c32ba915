"""The one pair interval (with its Wilson fallback) and Elo, shared by the arena and the tuning
service: no zero-width interval, no -0, no clamped Elo for an all-win score."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from ocean.stats import elo, elo_estimate, estimate, format_elo, pair_estimate, wilson


def test_a_sweep_gets_an_interval_not_a_point():
    e = pair_estimate(np.ones(40))  # 20 pairs, all won: was printed 1.000 [1.00, 1.00]
    assert e.mean == 1.0 and e.high == 1.0 and e.low == pytest.approx(wilson(1.0, 20)[0]) and e.low < 0.9
    even = pair_estimate(np.array([1, 0] * 50, dtype=float))  # every pair split, no spread
    assert even.mean == 0.5 and even.low < 0.45 and even.high > 0.55


def test_pairs_are_the_unit():
    same_games = np.array([1, 1, 0, 0] * 25, dtype=float)  # pairs 1 and 0: spread
    assert pair_estimate(same_games).n == 50 and pair_estimate(same_games).low < 0.4


@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=60))
def test_every_interval_holds_its_mean_and_stays_in_zero_one(pairs):
    e = estimate(pairs)
    assert 0.0 <= e.low <= e.mean <= e.high <= 1.0
    assert e.low < e.high  # never a claim of certainty
    r = elo_estimate(e)
    assert r.low <= r.mean <= r.high and not math.isnan(r.mean)


def test_elo_never_prints_minus_zero_and_bounds_a_sweep_from_its_interval():
    assert format_elo(elo(0.5), -3.2, 3.2) == "+0 [-3, +3]"
    assert format_elo(-0.4, -10.0, 9.0) == "+0 [-10, +9]"
    won = elo_estimate(estimate([1.0] * 20))
    text = format_elo(won.mean, won.low, won.high)
    assert text == f"+{round(won.low)} or more (every game won)" and won.mean == won.low
    lost = elo_estimate(estimate([0.0] * 20))
    assert format_elo(lost.mean, lost.low, lost.high) == f"{round(lost.high)} or less (every game lost)"
    assert "inf" not in text  # a bound reads as one, not as an interval [-inf, -46] (issue 49)
    # more games, a higher bound: no ceiling at a fixed number
    assert elo_estimate(estimate([1.0] * 2000)).low > won.low + 400
