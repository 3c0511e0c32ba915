"""The Elo of a sequential test that stopped: an estimate and interval that account for the stop.

A test that stops as soon as its ratio crosses a bound stops more often on a lucky run than on an
unlucky one: the fixed-sample interval (``sprt.estimate``, normal over the units counted) then
covers the truth less often than it says, and after a stop at H1 the estimate is too high. The
remedy, as Fishtest reports for its SPRT tests, is to order the outcomes a test can have and ask,
for each candidate true score, how likely an outcome worse than the one observed is:

- the ratio is modelled as a Brownian motion in the number of units, started at 0 between the two
  bounds; for a candidate score the outcomes fall as the distribution of that score closest to the
  observed one (``sprt.closest_with_score``), and the drift and variance per unit are those of the
  ratio's increments on such outcomes (``log p1 - log p0`` of each outcome, p0 and p1 the test's
  two fits to that distribution: its ratio per unit is then the drift, exactly the observed slope
  at the observed score);
- outcomes are ordered as Siegmund orders them: a stop at H0 is worse the earlier it came, a stop
  at H1 is better the earlier it came, so "worse than a stop at H1 at time T" is "no stop at H1
  before T", and "worse than a stop at H0 at time T" is "a stop at H0 before T";
- the observed time is where the ratio's observed slope reaches the bound (the overshoot of the
  last batch taken out), the observed point the bound itself.

The probability of a worse outcome falls as the true score rises; the estimate is the score at
which it is one half (median-unbiased), the interval's ends where it is ``(1 -+ level) / 2``.
The chance of a stop at a bound before T is a sum of image terms (the first-passage law of a
drifting Brownian motion, reflected across both bounds), each a pair of normal tails computed in
logarithms so that a strong drift neither overflows nor cancels.

Only a stop at a bound is adjusted here: a test that ran to its maximum reports the fixed-sample
interval. Plain NumPy/SciPy, like ``sprt``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tuning.stats.sprt import (LEVEL, NELO_PER_T, PENTANOMIAL, Estimate, Settings, _regularized,
                               closest_with_score, logistic_elo, logistic_score)

__all__ = ["stop_probability", "StoppedEstimate", "stopped_estimate"]

_BISECTIONS = 45  # halvings of the score's bracket: far below any printed digit


def _log_first_passage(d, m, sigma2, T):
    """log P(a Brownian motion with drift ``m`` and variance ``sigma2`` per unit time, from 0,
    reaches ``d`` > 0 by time ``T``) (the inverse Gaussian law)."""
    from scipy.special import log_ndtr

    root = np.sqrt(sigma2 * T)
    first = log_ndtr((m * T - d) / root)
    second = 2.0 * m * d / sigma2 + log_ndtr((-m * T - d) / root)
    return np.logaddexp(first, second)


def stop_probability(lower: float, upper: float, mu, sigma2, T, at_upper: bool = True):
    """P(a Brownian motion from 0 with drift ``mu`` and variance ``sigma2`` per unit stops at
    ``upper`` (``at_upper``) or at ``lower`` before leaving the other side, by time ``T``).
    Broadcasts over ``mu`` and ``sigma2``."""
    mu, sigma2 = np.broadcast_arrays(np.asarray(mu, dtype=float), np.asarray(sigma2, dtype=float))
    width = upper - lower
    start = -lower if at_upper else upper  # distance from the far bound, in the bound's direction
    if not at_upper:
        mu = -mu
    gamma = mu / sigma2
    spread = math.sqrt(float(np.max(sigma2 * T))) if np.size(sigma2) else 0.0
    terms = int(4 + math.ceil(8.0 * spread / width))
    total = np.zeros(mu.shape)
    for k in range(-terms, terms + 1):
        # the image at (2k + 1) width - start: its passage law, weighted by the reflections' drift factor
        d = (2 * k + 1) * width - start
        sign = 1.0 if d > 0 else -1.0
        log_p = _log_first_passage(abs(d), sign * mu, sigma2, T)
        total += sign * np.exp(gamma * (width - start - d) + log_p)
    return np.clip(total, 0.0, 1.0)


@dataclass(frozen=True)
class StoppedEstimate(Estimate):
    """The stop-adjusted score, Elo and normalized Elo of a test stopped at ``result`` ("H1"/"H0"),
    each with its interval; ``time`` the units at which the ratio's slope reached the bound."""

    result: str
    time: float


def _drift(p, settings: Settings, support) -> tuple[np.ndarray, np.ndarray]:
    """The ratio's drift and variance per unit when outcomes fall as ``p`` (rows of
    distributions): the increments ``log p1 - log p0`` of the test's two fits to ``p`` itself,
    their mean and variance under ``p``. Normalized bounds are read as scores at ``p``'s spread."""
    if settings.normalized:
        # the t-value bounds as scores at p's own spread (the fixed point of ``closest_with_t``
        # once per bisection step would cost seconds for a small change)
        mean = (p * support).sum(axis=-1)
        sd = np.sqrt((p * (support - mean[..., None]) ** 2).sum(axis=-1))
        s0, s1 = (0.5 + math.sqrt(2.0) * e / NELO_PER_T * sd for e in (settings.elo0, settings.elo1))
    else:
        s0, s1 = logistic_score(settings.elo0), logistic_score(settings.elo1)
    p0, p1 = closest_with_score(p, support, s0), closest_with_score(p, support, s1)
    jumps = np.log(p1) - np.log(p0)
    mu = (p * jumps).sum(axis=-1)
    return mu, np.maximum((p * (jumps - mu[..., None]) ** 2).sum(axis=-1), 1e-300)


def stopped_estimate(counts, settings: Settings, result: str, support=PENTANOMIAL,
                     level: float = LEVEL) -> StoppedEstimate | None:
    """The stop-adjusted estimate of a test whose ratio for ``counts`` crossed a bound (``result``
    "H1" or "H0"); None for any other result, no units, or a stop the model cannot place (no
    score gives it a chance within the level: units all alike under normalized bounds), where
    the fixed-sample interval is all there is."""
    if result not in ("H1", "H0"):
        return None
    counts = np.asarray(counts, dtype=float)
    support = np.asarray(support, dtype=float)
    n = float(counts.sum())
    if n <= 0:
        return None
    reg = _regularized(counts)
    pdf = reg / reg.sum()
    lower, upper = settings.bounds
    bound = upper if result == "H1" else lower
    ratio = float(settings.llr(counts, support))
    # the time the observed ratio's slope reaches the bound (its overshoot taken out)
    time = n * bound / ratio if ratio * bound > 0 and abs(ratio) > abs(bound) else n

    def worse(score):
        """P(an outcome worse than the observed one) at true ``score`` (an array)."""
        mu, var = _drift(closest_with_score(pdf, support, score), settings, support)
        hit = stop_probability(lower, upper, mu, var, time, at_upper=result == "H1")
        return 1.0 - hit if result == "H1" else hit

    edge = 1e-9 * (support[-1] - support[0])
    lo = np.full(3, support[0] + edge)
    hi = np.full(3, support[-1] - edge)
    # the score at which a worse outcome has probability q: the interval's low end, the estimate, the high end
    targets = np.array([0.5 + level / 2.0, 0.5, 0.5 - level / 2.0])
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        above = worse(mid) > targets  # still too likely: the true score is higher
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    low, centre, high = 0.5 * (lo + hi)
    if high - low < 1e-6 * (support[-1] - support[0]):
        return None  # no score puts the observed stop inside the level: the model cannot place it
    games = int(round(2 * n))

    def nelo(score):
        p = closest_with_score(pdf, support, score)
        sd = math.sqrt(float((p * (support - (p * support).sum()) ** 2).sum()))
        return (score - 0.5) / sd * NELO_PER_T / math.sqrt(2.0)

    return StoppedEstimate(float(centre), float(low), float(high),
                           logistic_elo(centre, games), logistic_elo(low, games), logistic_elo(high, games),
                           nelo(centre), nelo(low), nelo(high), result=result, time=time)
