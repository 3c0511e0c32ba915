"""The stop-adjusted Elo of ``tune test`` (issue 32): the Brownian stopping law it rests on, the
estimate's place against the fixed-sample one, the edge cases."""
import math

import numpy as np
import pytest

from tuning.stats import sprt
from tuning.stats.sprt import GAUNTLET, Settings
from tuning.stats.sprtelo import stop_probability, stopped_estimate


@pytest.mark.parametrize("mu, var", [(0.1, 0.1), (-0.1, 0.1), (0.0, 0.2), (2.0, 0.1), (0.02, 0.01)])
def test_a_stop_by_a_long_time_is_the_chance_of_ever_stopping_there(mu, var):
    lower, upper = Settings().bounds
    up, down = (float(stop_probability(lower, upper, mu, var, 1e5, at_upper=u)) for u in (True, False))
    assert up + down == pytest.approx(1.0, abs=1e-9)
    gamma, width = mu / var, upper - lower
    ever = -lower / width if mu == 0 else -math.expm1(2 * gamma * lower) / -math.expm1(-2 * gamma * width)
    assert up == pytest.approx(ever, abs=1e-9)


def test_the_stopping_law_agrees_with_a_simulated_walk():
    # 4000 Brownian paths on a fine grid: the chance of each stop by time 50 within sampling error
    rng = np.random.default_rng(3)
    lower, upper = Settings().bounds
    mu, var, T, dt = 0.05, 0.1, 50.0, 0.02
    x = np.zeros(4000)
    up = np.zeros(4000, bool)
    down = np.zeros(4000, bool)
    for _ in range(int(T / dt)):
        alive = ~(up | down)
        x[alive] += mu * dt + math.sqrt(var * dt) * rng.standard_normal(alive.sum())
        up |= alive & (x >= upper)
        down |= alive & (x <= lower)
    # the grid misses crossings between its points: the simulated chances sit a little low
    assert up.mean() == pytest.approx(float(stop_probability(lower, upper, mu, var, T)), abs=0.03)
    assert down.mean() == pytest.approx(float(stop_probability(lower, upper, mu, var, T, at_upper=False)), abs=0.015)


def test_after_a_stop_at_h1_the_estimate_is_lower_and_the_interval_wider_than_fixed_samples():
    counts = [340, 0, 1120, 0, 600]  # overshot H1 (LLR 7.8): a stop at 0/5 Elo with much to spare
    s = Settings()
    assert sprt.decide(s.llr(counts), s) == "H1"
    fixed, stopped = sprt.estimate(counts), stopped_estimate(counts, s, "H1")
    assert stopped.elo < fixed.elo and stopped.elo_low < fixed.elo_low and stopped.elo_high > fixed.elo_high
    assert stopped.elo_low < stopped.elo < stopped.elo_high and stopped.nelo_low < stopped.nelo < stopped.nelo_high
    assert stopped.time < sum(counts)  # the overshoot is taken out
    # a stop at H0 mirrors a stop at H1 with the bots swapped
    mirror = stopped_estimate(counts[::-1], Settings(-5, 0), "H0")
    assert (mirror.elo, mirror.elo_low, mirror.elo_high) == pytest.approx(
        (-stopped.elo, -stopped.elo_high, -stopped.elo_low), abs=0.05)


def test_only_a_stop_at_a_bound_is_adjusted():
    assert stopped_estimate([10, 0, 30, 0, 10], Settings(), "max") is None
    assert stopped_estimate([10, 0, 30, 0, 10], Settings(), None) is None
    assert stopped_estimate([0, 0, 0, 0, 0], Settings(), "H1") is None


@pytest.mark.parametrize("counts", [[0, 0, 0, 0, 250], [250, 0, 0, 0, 0]])
def test_an_all_win_or_all_loss_result_never_has_a_zero_width_interval(counts):
    fixed = sprt.estimate(counts)  # was [1199.8, 1199.8]: the regularizer's spread claimed certainty
    assert fixed.elo_high - fixed.elo_low > 100 and fixed.score_high - fixed.score_low > 0.01
    s = Settings()
    stopped = stopped_estimate(counts, s, sprt.decide(s.llr(counts), s))
    assert stopped.elo_high - stopped.elo_low > 100
    gauntlet = sprt.estimate([0] * 8 + [40], GAUNTLET)
    assert gauntlet.score_high - gauntlet.score_low > 0.01


def test_normalized_bounds_past_the_limit_make_the_ratio_nan_and_inside_it_finite():
    for support in (sprt.PENTANOMIAL, GAUNTLET):
        limit = sprt.normalized_limit(support)
        counts = np.arange(3, 3 + len(support))
        assert math.isfinite(sprt.llr(counts, 0, limit - 0.5, normalized=True, support=support))
        assert math.isfinite(sprt.llr(counts, -(limit - 0.5), 0, normalized=True, support=support))
        with np.errstate(all="ignore"):
            assert math.isnan(sprt.llr(counts, 0, limit + 0.5, normalized=True, support=support))
