"""Win-rate statistics over paired games.

The unit is the pair: one map played twice with sides swapped. Its score (mean of the two
games: 0, .25, .5, .75 or 1) is independent of the other pairs, while the two games of a pair
are not, so intervals and tests count pairs, never games.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Mapping, Sequence

# The pair interval with its Wilson fallback and Elo live in ocean.stats (the arena uses them too).
from ocean.stats import LEVEL, Estimate, t_quantile, elo, elo_estimate, estimate, wilson

__all__ = ["Estimate", "estimate", "panel_estimate", "paired_difference", "wilson", "elo", "elo_estimate",
           "panel_elo", "LEVEL"]


def panel_estimate(per_opponent: Mapping[str, Sequence[float]],
                   level: float = LEVEL) -> tuple[Estimate, dict[str, Estimate]]:
    """The objective (mean over opponents of the mean pair score) and each opponent's estimate.

    The panel interval is stratified: opponents are fixed strata, so its variance is the sum of
    the per-opponent variances over k**2 (each opponent counts once whatever its pair count).
    """
    each = {name: estimate(scores, level) for name, scores in per_opponent.items()}
    played = {name: scores for name, scores in per_opponent.items() if scores}
    if not played:
        return Estimate(math.nan, 0.0, 1.0, 0), each
    k = len(played)
    mean = math.fsum(math.fsum(s) / len(s) for s in played.values()) / k
    n = sum(len(s) for s in played.values())
    var = 0.0
    for scores in played.values():
        m = len(scores)
        if m > 1:
            mu = math.fsum(scores) / m
            var += math.fsum((s - mu) ** 2 for s in scores) / (m - 1) / m
    var /= k * k
    if var == 0.0 or n - k < 1:
        low, high = wilson(mean, n, level)
        return Estimate(mean, low, high, n), each
    half = t_quantile(0.5 + level / 2, n - k) * math.sqrt(var)
    return Estimate(mean, max(0.0, mean - half), min(1.0, mean + half), n), each


def paired_difference(a: Mapping, b: Mapping, level: float = LEVEL) -> Estimate:
    """Mean of ``a[key] - b[key]`` over the keys both hold (e.g. (opponent, seed) pairs played
    by two trials on the same maps), with a t-interval; the bounds are not clipped to [0, 1]."""
    diffs = [a[key] - b[key] for key in a.keys() & b.keys()]
    n = len(diffs)
    if n == 0:
        return Estimate(math.nan, -1.0, 1.0, 0)
    mean = math.fsum(diffs) / n
    if n < 2:
        return Estimate(mean, -1.0, 1.0, n)
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (n - 1))
    if sd == 0.0:
        # No spread seen: fall back to the largest spread a difference in [-1, 1] with this
        # mean can have, rather than claim certainty from a few identical pairs.
        sd = math.sqrt(max(0.0, 1.0 - mean * mean))
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


def panel_elo(per_opponent: Mapping[str, Estimate], level: float = LEVEL) -> Estimate:
    """Elo against the panel: the mean over opponents of each opponent's Elo difference.

    On the win-rate scale an easy opponent sits near 1 whatever the coefficients, so the panel's
    mean score is compressed by its easy opponents and gains against hard ones look small; on
    the Elo scale a step of odds counts the same against any opponent. The interval is
    stratified like ``panel_estimate``, each opponent's standard error being its Elo interval's
    half-width over z (the interval is asymmetric; its mean half-width stands in)."""
    each = [elo_estimate(e) for e in per_opponent.values() if e.n > 0 and not math.isnan(e.mean)]
    if not each:
        return Estimate(math.nan, -math.inf, math.inf, 0)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    k = len(each)
    mean = math.fsum(e.mean for e in each) / k
    # An opponent's finite side stands for its spread (an all-win score has only its lower bound);
    # an infinite end against one opponent leaves the panel's interval open on that side.
    half = z * math.sqrt(math.fsum((_finite_width(e) / (2 * z)) ** 2 for e in each)) / k
    low = -math.inf if any(math.isinf(e.low) for e in each) else mean - half
    high = math.inf if any(math.isinf(e.high) for e in each) else mean + half
    return Estimate(mean, low, high, sum(e.n for e in each))


def _finite_width(e: Estimate) -> float:
    """The interval's width, or twice its finite half where one end is infinite."""
    if math.isinf(e.low) and math.isinf(e.high):
        return 0.0
    if math.isinf(e.high):
        return 2 * (e.mean - e.low)
    if math.isinf(e.low):
        return 2 * (e.high - e.mean)
    return e.high - e.low
