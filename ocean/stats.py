"""Win rates over paired games and their Elo: the one implementation the arena and the tuning
service share.

The unit is the pair: one map played twice with sides swapped. Its score (mean of the two
games: 0, .25, .5, .75 or 1) is independent of the other pairs, while the two games of a pair
are not, so intervals count pairs, never games. Where the pairs show no spread (a few pairs,
all alike) a t-interval would claim certainty; the Wilson interval stands in.

Elo: the logistic model's difference (bot minus opponent) at which a score is expected. A score
of 1 (every pair won) or 0 has no finite Elo: it is given as a bound, the Elo of the interval's
finite end ("+412 or more"), never as a clamped number.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Sequence

import numpy as np

__all__ = ["Estimate", "LEVEL", "wilson", "estimate", "pair_estimate", "t_quantile", "elo", "elo_estimate",
           "format_elo"]

LEVEL = 0.95


def t_quantile(q: float, df: float) -> float:
    """Student's t quantile ``q`` with ``df`` degrees of freedom."""
    # SciPy costs most of a second to import; most commands never need it.
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
    # At p = 0 (p = 1) the lower (upper) end is exactly 0 (1); rounding would leave 1e-17 there.
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return low, high


def estimate(scores: Sequence[float], level: float = LEVEL) -> Estimate:
    """Mean pair score with a t-interval over pairs (``scores``: one per pair, in [0, 1]).

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
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(mean, max(0.0, mean - half), min(1.0, mean + half), n)


def pair_estimate(game_scores, level: float = LEVEL) -> Estimate:
    """``estimate`` from per-game scores in pair order (games 2i and 2i+1 are one map, sides
    swapped): the pairs are independent, the two games of a pair are not."""
    pairs = np.asarray(game_scores, dtype=float).reshape(-1, 2).mean(axis=1)
    return estimate([float(p) for p in pairs], level)


def elo(score: float) -> float:
    """The Elo difference (bot minus opponent) at which the logistic Elo model expects
    ``score``: +inf at 1 and -inf at 0 (no finite difference explains them), 0.0 (never -0.0)
    at one half."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: -0.0 becomes 0.0


def elo_estimate(e: Estimate) -> Estimate:
    """A score's estimate in Elo: the Elo model is monotone, so the interval's ends map to the
    Elo interval's ends (exactly, no normal approximation). A score of 1 (every pair won) has no
    finite Elo: its mean is then the bound its interval gives, the Elo of the interval's lower
    end (the bot is at least that much stronger; the upper end is +inf); a score of 0 the
    reverse. NaN mean for an opponent not played."""
    if e.n == 0 or math.isnan(e.mean):
        return Estimate(math.nan, -math.inf, math.inf, 0)
    low, high = elo(e.low), elo(e.high)
    mean = elo(e.mean)
    if math.isinf(mean):
        mean = low if mean > 0 else high
    return Estimate(mean, low, high, e.n)


def _elo_number(x: float | None) -> str:
    if x is None or math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    rounded = round(x)
    return f"{rounded + 0:+d}"  # + 0: a rounded -0.4 prints +0, not -0


def format_elo(mean: float | None, low: float | None, high: float | None) -> str:
    """An Elo difference with its interval for people: ``+123 [+98, +150]``. A score of 1 or 0 has
    no finite Elo, only the bound its interval gives, and reads as one: ``+446 or more (every game
    won)``, ``-46 or less (every game lost)`` (issue 49: ``<= -46 [-inf, -46]`` beside a score of
    0.000 read as an interval)."""
    if mean is not None and high is not None and math.isinf(high) and high > 0 and mean == low:
        return f"{_elo_number(mean)} or more (every game won)"
    if mean is not None and low is not None and math.isinf(low) and low < 0 and mean == high:
        return f"{_elo_number(mean)} or less (every game lost)"
    return f"{_elo_number(mean)} [{_elo_number(low)}, {_elo_number(high)}]"
