"""Win-rate statistics over paired games.

The unit is the pair: one map played twice with sides swapped. Its score (mean of the two
games: 0, .25, .5, .75 or 1) is independent of the other pairs, while the two games of a pair
are not, so intervals and tests count pairs, never games.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Mapping, Sequence

__all__ = ["Estimate", "estimate", "panel_estimate", "paired_difference", "wilson", "elo", "elo_estimate",
           "panel_elo", "LEVEL"]

LEVEL = 0.95


def _t_quantile(q: float, df: float) -> float:
    # SciPy costs most of a second to import; `tune status` and friends rarely need it.
    from scipy import stats

    return float(stats.t.ppf(q, df))


@dataclass(frozen=True)
class Estimate:
    """A mean score with its two-sided interval; ``n`` counts pairs."""

    mean: float
    low: float
    high: float
    n: int

    @property
    def games(self) -> int:
        return 2 * self.n

    def as_dict(self) -> dict:
        """JSON-safe (no NaN: an opponent not played yet has mean None)."""
        out = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}
        return {**out, "games": self.games}


def wilson(p: float, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval for a proportion ``p`` over ``n`` trials."""
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def estimate(scores: Sequence[float], level: float = LEVEL) -> Estimate:
    """Mean pair score with a t-interval over pairs.

    When the pairs show no spread (few pairs, all alike) the t-interval would claim certainty;
    then the Wilson interval over pairs stands in, which is conservative for any score in [0, 1].
    """
    n = len(scores)
    if n == 0:
        return Estimate(math.nan, 0.0, 1.0, 0)
    mean = math.fsum(scores) / n
    if n < 2:
        low, high = wilson(mean, n, level)
        return Estimate(mean, low, high, n)
    sd = math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / (n - 1))
    if sd == 0.0:
        low, high = wilson(mean, n, level)
        return Estimate(mean, low, high, n)
    half = _t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(mean, max(0.0, mean - half), min(1.0, mean + half), n)


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
    half = _t_quantile(0.5 + level / 2, n - k) * math.sqrt(var)
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
    half = _t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n)


def elo(score: float, games: int = 0) -> float:
    """The Elo difference (bot minus opponent) at which the logistic Elo model expects ``score``.

    A score of 0 or 1 has no finite Elo; with ``games`` it is moved half a game inside
    (0.5 / games from the edge), the usual continuity correction, else 1e-6."""
    edge = 0.5 / games if games > 0 else 1e-6
    p = min(1.0 - edge, max(edge, score))
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_estimate(e: Estimate) -> Estimate:
    """An opponent's score and interval in Elo: the Elo model is monotone, so the interval's
    ends map to the Elo interval's ends (exactly, no normal approximation)."""
    if e.n == 0 or math.isnan(e.mean):
        return Estimate(math.nan, -math.inf, math.inf, 0)
    return Estimate(elo(e.mean, e.games), elo(e.low, e.games), elo(e.high, e.games), e.n)


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
    half = z * math.sqrt(math.fsum(((e.high - e.low) / (2 * z)) ** 2 for e in each)) / k
    return Estimate(mean, mean - half, mean + half, sum(e.n for e in each))
