"""The test's statistics against values derived independently: a brute-force constrained maximum
likelihood, the Brownian approximation of the ratio, and the invariants a ratio of likelihoods
must keep (monotone in wins, antisymmetric under swapping the bots)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.optimize import minimize

from tuning.stats import sprt
from tuning.stats.sprt import GAUNTLET, PENTANOMIAL, REGULARIZER, Settings

counts5 = st.lists(st.integers(0, 40), min_size=5, max_size=5).filter(lambda c: sum(c) > 0)


def _loglik_max(counts, constraint, support=PENTANOMIAL) -> float:
    """max over distributions p on ``support`` with constraint(p) == 0 of sum(n log p), by a general
    optimizer (SLSQP) on the regularized counts: nothing of the module's own method."""
    n = np.where(np.asarray(counts, dtype=float) > 0, counts, REGULARIZER)
    k = len(support)
    cons = [{"type": "eq", "fun": lambda p: p.sum() - 1.0}, {"type": "eq", "fun": constraint}]
    best = -math.inf
    for start in (n / n.sum(), np.full(k, 1.0 / k)):
        r = minimize(lambda p: -(n * np.log(np.maximum(p, 1e-300))).sum() / n.sum(), start, constraints=cons,
                     bounds=[(1e-12, 1.0)] * k, method="SLSQP", options={"ftol": 1e-15, "maxiter": 2000})
        if r.success:
            best = max(best, -r.fun * n.sum())
    return best


def _brute_llr(counts, elo0, elo1, normalized=False, support=PENTANOMIAL) -> float:
    def constraint_at(elo):
        if normalized:
            t = math.sqrt(2.0) * elo / sprt.NELO_PER_T

            def tv(p):
                mu = (p * support).sum()
                return (mu - 0.5) / math.sqrt((p * (support - mu) ** 2).sum()) - t
            return tv
        s = float(sprt.logistic_score(elo))
        return lambda p: (p * support).sum() - s
    return _loglik_max(counts, constraint_at(elo1), support) - _loglik_max(counts, constraint_at(elo0), support)


@pytest.mark.parametrize("counts", [[10, 20, 40, 25, 5], [0, 3, 10, 4, 1], [34, 0, 112, 0, 54], [1, 0, 0, 0, 0],
                                    [5, 1, 30, 2, 9]])
@pytest.mark.parametrize("normalized", [False, True])
def test_the_ratio_is_the_constrained_maximum_likelihood_found_by_brute_force(counts, normalized):
    mine = sprt.llr(counts, 0.0, 25.0, normalized=normalized)
    assert mine == pytest.approx(_brute_llr(counts, 0.0, 25.0, normalized), abs=1e-6)


def test_the_gauntlet_ratio_is_the_constrained_maximum_likelihood_too():
    counts = [1, 0, 6, 0, 20, 1, 9, 0, 3]
    assert sprt.llr(counts, -10, 30, support=GAUNTLET) == pytest.approx(
        _brute_llr(counts, -10, 30, support=GAUNTLET), abs=1e-6)


def test_for_many_pairs_the_ratio_approaches_its_brownian_approximation():
    # Fishtest's GSPRT approximation: LLR ~ N (s1 - s0)(2 mu - s0 - s1) / (2 var) for bounds close together.
    counts = np.array([2100, 300, 5200, 350, 2050])
    n = counts.sum()
    mu = (counts * PENTANOMIAL).sum() / n
    var = (counts * (PENTANOMIAL - mu) ** 2).sum() / n
    s0, s1 = sprt.logistic_score(0.0), sprt.logistic_score(5.0)
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert sprt.llr(counts, 0.0, 5.0) == pytest.approx(approx, rel=0.01)


def test_bounds_scores_and_counts():
    assert sprt.sprt_bounds(0.05, 0.05) == pytest.approx((-math.log(19), math.log(19)))
    assert Settings().bounds == pytest.approx((-2.944439, 2.944439), abs=1e-6)
    assert sprt.logistic_score(0.0) == 0.5
    for elo in (-300.0, -5.0, 0.0, 5.0, 400.0):
        assert sprt.logistic_elo(sprt.logistic_score(elo)) == pytest.approx(elo)
    assert list(sprt.pentanomial([0, 0.25, 0.5, 0.5, 1])) == [1, 1, 2, 0, 1]
    assert list(sprt.gauntlet_counts([1.0, 0.5], [0.0, 0.75])) == [0, 0, 0, 1, 0, 0, 0, 0, 1]
    with pytest.raises(ValueError, match="not one of the outcomes"):
        sprt.pentanomial([0.3])
    with pytest.raises(ValueError, match="elo1 must be above elo0"):
        Settings(elo0=5, elo1=0)
    with pytest.raises(ValueError, match="alpha must be between 0 and 0.5"):
        Settings(alpha=0.5)


def test_no_pairs_no_evidence_and_a_stack_is_each_row_alone():
    assert sprt.llr([0, 0, 0, 0, 0], 0, 5) == 0.0
    rows = np.array([[10, 20, 40, 25, 5], [0, 0, 0, 0, 0], [3, 0, 9, 0, 8]])
    for normalized in (False, True):
        stacked = sprt.llr(rows, 0, 5, normalized=normalized)
        assert np.allclose(stacked, [sprt.llr(r, 0, 5, normalized=normalized) for r in rows])


def test_the_closest_distributions_meet_their_constraints():
    pdf = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    p = sprt.closest_with_score(pdf, PENTANOMIAL, 0.55)
    assert p.sum() == pytest.approx(1.0) and (p * PENTANOMIAL).sum() == pytest.approx(0.55)
    q = sprt.closest_with_t(pdf, PENTANOMIAL, 0.3)
    mu = (q * PENTANOMIAL).sum()
    assert q.sum() == pytest.approx(1.0)
    assert (mu - 0.5) / math.sqrt((q * (PENTANOMIAL - mu) ** 2).sum()) == pytest.approx(0.3)


def test_identical_bots_every_pair_split_reach_h0_in_about_two_hundred_pairs():
    # Two equal deterministic bots split every pair (each wins the side it wins on): the ratio falls
    # by about 0.0145 per pair at the default bounds.
    assert sprt.decide(sprt.llr([0, 0, 200, 0, 0], 0, 5), Settings()) is None
    assert sprt.decide(sprt.llr([0, 0, 210, 0, 0], 0, 5), Settings()) == "H0"


def test_the_estimate_reads_the_counts():
    e = sprt.estimate([34, 0, 112, 0, 54])
    assert e.pairs == 200 and e.score == pytest.approx(0.55)
    assert e.elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))
    assert e.elo_low < e.elo < e.elo_high and e.nelo_low < e.nelo < e.nelo_high
    # the score interval is normal over pairs with the pairs' own spread
    sd = math.sqrt((34 * 0.55 ** 2 + 112 * 0.05 ** 2 + 54 * 0.45 ** 2) / 200)
    assert e.score_high - e.score == pytest.approx(1.959964 * sd / math.sqrt(200), rel=1e-3)
    empty = sprt.estimate([0, 0, 0, 0, 0])
    assert empty.pairs == 0 and math.isnan(empty.elo)


@settings(max_examples=60, deadline=None)
@given(counts5, st.integers(0, 3), st.booleans())
def test_a_better_outcome_for_one_pair_never_lowers_the_ratio(counts, worse, normalized):
    """Replacing one pair's outcome by the next better one (a loss by a draw, ...) is more evidence
    for the new bot: its ratio for H1 must not fall."""
    if counts[worse] == 0:
        return
    better = list(counts)
    better[worse] -= 1
    better[worse + 1] += 1
    assert sprt.llr(better, 0, 10, normalized=normalized) >= sprt.llr(counts, 0, 10, normalized=normalized) - 1e-9


@settings(max_examples=60, deadline=None)
@given(counts5, st.floats(-20, 20), st.floats(1, 30), st.booleans())
def test_swapping_the_bots_mirrors_the_test(counts, elo0, width, normalized):
    """Base against new, with the hypotheses mirrored, is the same test with the ratio's sign turned."""
    elo1 = elo0 + width
    mirrored = sprt.llr(counts[::-1], -elo1, -elo0, normalized=normalized)
    assert mirrored == pytest.approx(-sprt.llr(counts, elo0, elo1, normalized=normalized), abs=1e-7)
    e, m = sprt.estimate(counts), sprt.estimate(counts[::-1])
    assert m.elo == pytest.approx(-e.elo, abs=1e-9)
    assert (m.elo_low, m.elo_high) == pytest.approx((-e.elo_high, -e.elo_low), abs=1e-7)
    assert (m.nelo_low, m.nelo_high) == pytest.approx((-e.nelo_high, -e.nelo_low), abs=1e-7)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), min_size=5, max_size=5), min_size=1, max_size=12))
def test_the_first_crossing_is_the_first_look_at_or_past_a_bound(batches):
    s = Settings(0, 40)
    lower, upper = s.bounds
    ratios = s.llr(np.cumsum(np.array(batches), axis=0))
    hit = sprt.first_crossing(ratios, lower, upper)
    for i, r in enumerate(np.atleast_1d(ratios)):
        if hit is None or i < hit:
            assert sprt.decide(float(r), s) is None
        elif i == hit:
            assert sprt.decide(float(r), s) in ("H1", "H0")
