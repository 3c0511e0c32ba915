"""The power of a budget, checked against closed forms and simulated studies."""
import math

import numpy as np
import pytest

from tuning.stats.estimates import paired_difference
from tuning.stats.power import (budget_split, detectable_gain, half_width, pairs_for_gain, paired_sd, pooled_sd,
                                unseen_spread)


def test_closed_forms():
    # 1.96 and 1.96 + 0.8416: the 95% interval and 80% power of a two-sided z test
    assert half_width(0.4, 100) == pytest.approx(1.959964 * 0.04, rel=1e-6)
    assert detectable_gain(0.4, 100) == pytest.approx((1.959964 + 0.841621) * 0.04, rel=1e-6)
    assert detectable_gain(0.4, 400) == pytest.approx(detectable_gain(0.4, 100) / 2)
    for sd, gain in ((0.3, 0.02), (0.5, 0.05), (0.25, 0.1)):
        n = pairs_for_gain(sd, gain)
        assert detectable_gain(sd, n) <= gain < detectable_gain(sd, n - 1)
    with pytest.raises(ValueError, match="gain must be above 0"):
        pairs_for_gain(0.3, 0.0)
    with pytest.raises(ValueError, match="at least one pair"):
        half_width(0.3, 0)


@pytest.mark.parametrize("pairs", [30, 200])
def test_a_gain_of_the_detectable_size_is_detected_four_times_in_five(pairs):
    """Simulated studies: pair differences around the detectable gain; the lab's own interval
    (paired_difference) lies above 0 in about 80% of them, and is as wide as predicted."""
    rng = np.random.default_rng(7)
    sd = 0.35
    gain = detectable_gain(sd, pairs)
    repeats = 3000
    detected, widths = 0, []
    draws = rng.normal(gain, sd, size=(repeats, pairs))
    for row in draws:
        e = paired_difference(dict(enumerate(row)), dict.fromkeys(range(pairs), 0.0))
        detected += e.low > 0
        widths.append((e.high - e.low) / 2)
    # the t interval is a little wider than z's at 30 pairs: power a little under 0.8
    assert 0.75 <= detected / repeats <= 0.83
    assert np.mean(widths) == pytest.approx(half_width(sd, pairs), rel=0.05)


def test_on_game_like_scores_the_pooled_spread_predicts_the_interval():
    """Pair scores in {0, 1/2, 1} against two opponents of different strength: the spread
    within opponents, pooled, predicts the width of the difference of two such bots."""
    rng = np.random.default_rng(3)
    pairs = 400

    def bot(p_by_opponent):
        return {(o, s): rng.binomial(2, p) / 2 for o, p in p_by_opponent.items() for s in range(pairs)}

    a = bot({"x": 0.3, "y": 0.7})
    sd = pooled_sd({o: [v for (name, _), v in a.items() if name == o] for o in "xy"})
    assert sd == pytest.approx(math.sqrt(0.21 / 2), rel=0.1)  # binomial(2, p)/2: variance p(1-p)/2
    b = bot({"x": 0.3, "y": 0.7})
    measured, n = paired_sd(a, b)
    assert n == 2 * pairs and measured == pytest.approx(math.sqrt(2) * sd, rel=0.1)
    e = paired_difference(a, b)
    assert (e.high - e.low) / 2 == pytest.approx(half_width(math.sqrt(2) * sd, 2 * pairs), rel=0.1)


def test_pooled_spread_ignores_the_opponents_means():
    assert pooled_sd({"a": [0.0, 1.0], "b": [10.0, 11.0]}) == pytest.approx(math.sqrt(0.5))
    assert math.isnan(pooled_sd({"a": [1.0]}))
    assert paired_sd({1: 1.0}, {1: 0.0}) == (pytest.approx(math.nan, nan_ok=True), 1)


def test_a_spread_never_seen_is_floored_not_zero():
    assert 0 < unseen_spread(1.0, 16) < 0.2
    assert unseen_spread(0.5, 16) == pytest.approx(0.5)
    assert unseen_spread(1.0, 100) < unseen_spread(1.0, 10)


def test_budget_split():
    sd, gain = 0.4, 0.05
    per = 2 * math.ceil(pairs_for_gain(sd, gain) / 3)
    trials, per_opponent = budget_split(100 * per * 3, sd, gain, 3)
    assert (trials, per_opponent) == (100, per)
    trials, per_opponent = budget_split(3 * per * 3, sd, gain, 3, min_trials=10)  # too few: shared out
    assert trials == 10 and per_opponent % 2 == 0 and per_opponent * 3 * 10 <= 3 * per * 3
    trials, per_opponent = budget_split(100_000, sd, 0.01, 2, max_pairs_per_opponent=50)  # the seed bank caps
    assert per_opponent == 100 and trials == 500
