"""Intervals over pairs: coverage on simulated results, degenerate cases, stratified panels."""
import math
import random

import pytest

from tuning.stats.estimates import (Estimate, elo, elo_estimate, estimate, paired_difference, panel_elo, panel_estimate,
                                     wilson)


def _pairs(rng, p, n):
    # a pair = two games; the second game is correlated with the first (same map)
    out = []
    for _ in range(n):
        first = rng.random() < p
        second = first if rng.random() < 0.4 else rng.random() < p
        out.append((first + second) / 2)
    return out


def test_the_t_interval_over_pairs_covers_the_true_mean_about_95_percent():
    rng = random.Random(1)
    covered = 0
    for _ in range(600):
        e = estimate(_pairs(rng, 0.62, 60))
        covered += e.low <= 0.62 <= e.high
    assert 0.92 <= covered / 600 <= 0.98


def test_no_spread_falls_back_to_wilson_instead_of_claiming_certainty():
    e = estimate([1.0, 1.0, 1.0])
    assert e.mean == 1.0 and e.high == 1.0 and e.low == pytest.approx(wilson(1.0, 3)[0]) and e.low < 0.5
    single = estimate([0.5])
    assert single.n == 1 and single.low < 0.5 < single.high
    empty = estimate([])
    assert math.isnan(empty.mean) and (empty.low, empty.high) == (0.0, 1.0)


def test_wilson_matches_a_known_value():
    low, high = wilson(0.5, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)


def test_panel_estimate_weighs_each_opponent_once():
    strong = [1.0] * 10 + [0.75] * 10  # 20 pairs, mean 0.875
    weak = [0.0, 0.25, 0.5, 0.25]  # 4 pairs, mean 0.25
    total, each = panel_estimate({"a": strong, "b": weak})
    assert total.mean == pytest.approx((0.875 + 0.25) / 2)
    assert total.n == 24 and each["a"].mean == pytest.approx(0.875) and each["b"].n == 4
    assert total.low < total.mean < total.high
    # the panel is less certain than its best-measured opponent alone
    assert total.high - total.low > each["a"].high - each["a"].low


def test_paired_difference_uses_only_shared_keys_and_cancels_map_luck():
    rng = random.Random(2)
    luck = {("x", s): rng.random() * 0.8 for s in range(50)}
    better = {k: min(1.0, v + 0.1) for k, v in luck.items()}
    base = dict(luck)
    base[("x", 999)] = 0.0  # not shared: ignored
    d = paired_difference(better, base)
    assert d.n == 50 and d.mean == pytest.approx(sum(better[k] - luck[k] for k in luck) / 50)
    assert d.low > 0  # a consistent small gain is detected despite large map-to-map spread
    same = paired_difference(luck, luck)
    assert same.mean == 0 and same.low < 0 < same.high  # identical scores never claim certainty


def test_elo_is_the_logistic_model_of_the_score():
    assert elo(0.5) == 0.0
    assert math.isclose(elo(1 / (1 + 10 ** -0.5)), 200.0)  # odds of sqrt(10): +200
    assert math.isclose(elo(0.25), -elo(0.75))
    assert math.copysign(1.0, elo(0.5)) == 1.0  # never -0
    assert elo(1.0) == math.inf and elo(0.0) == -math.inf  # no clamp: no finite Elo explains them


def test_an_all_win_or_all_loss_score_is_a_bound_from_its_interval_not_a_clamped_number():
    won = estimate([1.0] * 50)
    r = elo_estimate(won)
    assert r.mean == r.low == elo(won.low) and r.high == math.inf and 300 < r.low < 2000
    lost = elo_estimate(estimate([0.0] * 50))
    assert lost.mean == lost.high == pytest.approx(-r.low) and lost.low == -math.inf
    more = elo_estimate(estimate([1.0] * 500))
    assert more.low > r.low  # more evidence, a higher bound (no fixed +545 ceiling)
    # a panel with an all-win opponent stays finite below and open above
    panel = panel_elo({"easy": won, "hard": Estimate(0.4, 0.35, 0.45, 200)})
    assert math.isfinite(panel.mean) and math.isfinite(panel.low) and panel.high == math.inf


def test_an_opponents_elo_interval_is_its_score_interval_mapped():
    e = Estimate(0.6, 0.55, 0.65, 200)
    r = elo_estimate(e)
    assert (r.mean, r.low, r.high, r.n) == (elo(0.6), elo(0.55), elo(0.65), 200)
    assert r.low < r.mean < r.high
    assert math.isnan(elo_estimate(Estimate(math.nan, 0.0, 1.0, 0)).mean)


def test_panel_elo_weighs_a_step_of_odds_alike_against_every_opponent():
    hard = Estimate(0.30, 0.25, 0.35, 200)
    easy = Estimate(0.95, 0.93, 0.97, 200)
    panel = panel_elo({"hard": hard, "easy": easy})
    assert math.isclose(panel.mean, (elo(0.30) + elo(0.95)) / 2)
    assert panel.low < panel.mean < panel.high and panel.n == 400
    # the same gain in odds against the hard opponent moves the Elo as much as against the easy one,
    # while on the win-rate scale it is four times as large
    odds = 10 ** (50 / 400)
    better_hard = panel_elo({"hard": Estimate(0.3 * odds / (0.7 + 0.3 * odds), 0.25, 0.35, 200), "easy": easy})
    better_easy = panel_elo({"hard": hard, "easy": Estimate(0.95 * odds / (0.05 + 0.95 * odds), 0.93, 0.97, 200)})
    assert math.isclose(better_hard.mean - panel.mean, 25.0) and math.isclose(better_easy.mean - panel.mean, 25.0)
    # a wider interval against one opponent widens the panel's
    wide = panel_elo({"hard": Estimate(0.30, 0.15, 0.45, 200), "easy": easy})
    assert wide.high - wide.low > panel.high - panel.low
