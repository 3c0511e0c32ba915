"""The statistics of a sequential validation (``tune validate``): a race that drops candidates
clearly worse than the best, an SPRT that decides the survivor's head to head against the
reference, and a non-inferiority test with a margin in Elo.

- **The race** (irace's post-selection race, ``psRace``): the candidates and the reference play
  the training panel on common maps in rounds; after each round a candidate whose paired
  difference to the leader (the best mean over the maps every survivor played) is shown below 0
  by a two-sided test at ``alpha / (m (m - 1) / 2)`` (Bonferroni over every pair of the ``m``:
  the leader is the luckiest of them, so correcting for the ``m - 1`` comparisons with it alone
  would drop candidates as good as it far more often than ``alpha``: 22% of races of 3 equal
  candidates, measured) is dropped. At a look, a candidate as good as the leader is dropped at
  most ``alpha`` of the time.
- **The head to head**: Fishtest's verification of an SPSA result: the pentanomial GSPRT of
  ``tuning.stats.sprt`` between logistic Elo ``elo0`` and ``elo1`` with Wald's bounds, looked at
  after each round, truncated at a maximum of games (then: no decision, and what it would take).
- **Not worse**: the paired difference to the reference with its 95% interval; it passes when the
  interval's low end lies above minus the margin, the margin given in Elo and turned into score
  units at the reference's own score (a one-sided test at 2.5%: a set truly worse by the margin
  passes at most 2.5% of the time).

Pure: the standard library, NumPy and ``tuning.stats``.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Hashable, Mapping, Sequence

from ocean.stats import t_quantile
from tuning.stats.sprt import Settings, llr, logistic_elo, logistic_score, pentanomial

__all__ = ["race_drops", "leader", "sprt_look", "elo_margin_as_score", "non_inferior", "pairs_to_decide",
           "expected_pairs", "non_inferiority_power", "RACE_ALPHA", "RACE_ROUND_MAPS", "H2H_ROUND_MAPS"]

RACE_ROUND_MAPS = 50  # maps per look of the race (each against every training opponent, both sides)
H2H_ROUND_MAPS = 100  # maps per look of the head to head's SPRT (200 games)
RACE_ALPHA = 0.05  # the chance, over all its comparisons, that the race drops a candidate as good as the leader
_Z = NormalDist()


def _common(scores: Mapping[Hashable, Mapping], alive: Sequence) -> set:
    keys = None
    for c in alive:
        keys = set(scores[c]) if keys is None else keys & scores[c].keys()
    return keys or set()


def leader(scores: Mapping[Hashable, Mapping], alive: Sequence, prefer=None):
    """The candidate of ``alive`` with the best mean pair score over the keys every one of them
    holds (ties: ``prefer`` if it is among the best, else the first in ``alive``'s order)."""
    keys = _common(scores, alive)
    if not keys:
        return prefer if prefer in alive else alive[0]
    means = {c: math.fsum(scores[c][k] for k in keys) / len(keys) for c in alive}
    top = max(means.values())
    best = [c for c in alive if means[c] >= top - 1e-12]
    return prefer if prefer in best else best[0]


def race_drops(scores: Mapping[Hashable, Mapping], alive: Sequence, alpha: float = RACE_ALPHA,
               prefer=None) -> list:
    """The candidates of ``alive`` clearly worse than the leader: their paired difference to it
    over the keys both hold has its two-sided ``1 - alpha / (m (m - 1) / 2)`` t interval below 0
    (``m = len(alive)``: Bonferroni over every pair; no drop on fewer than 2 shared keys or no
    spread)."""
    if len(alive) < 2:
        return []
    best = leader(scores, alive, prefer)
    m = len(alive)
    level = alpha / (m * (m - 1))  # one side of a two-sided test at alpha / (m (m - 1) / 2)
    out = []
    for c in alive:
        if c == best:
            continue
        keys = scores[c].keys() & scores[best].keys()
        diffs = [scores[c][k] - scores[best][k] for k in keys]
        n = len(diffs)
        if n < 2:
            continue
        mean = math.fsum(diffs) / n
        sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (n - 1))
        if sd == 0.0:
            continue
        if mean + t_quantile(1.0 - level, n - 1) * sd / math.sqrt(n) < 0:
            out.append(c)
    return out


def sprt_look(pair_scores: Sequence[float], settings: Settings) -> tuple[float, str | None]:
    """(the log-likelihood ratio of the head-to-head pair scores, "H1", "H0" or None while it lies
    between Wald's bounds)."""
    value = float(llr(pentanomial(pair_scores), settings.elo0, settings.elo1)) if len(pair_scores) else 0.0
    lower, upper = settings.bounds
    return value, ("H1" if value >= upper else "H0" if value <= lower else None)


def pairs_to_decide(value: float, pairs: int, settings: Settings) -> int | None:
    """More pairs the test would need to reach a bound if its ratio kept its slope so far
    (``value / pairs`` per pair), or None when it drifts nowhere."""
    if pairs < 1 or value == 0.0:
        return None
    slope = value / pairs
    lower, upper = settings.bounds
    target = upper if slope > 0 else lower
    return max(1, math.ceil((target - value) / slope))


def elo_margin_as_score(reference_score: float, margin_elo: float) -> float:
    """The score-units margin of ``margin_elo`` Elo below a reference scoring ``reference_score``
    (the score step of that many Elo there: smaller near 0 or 1 than near one half)."""
    s = min(1.0 - 1e-6, max(1e-6, reference_score))
    return float(s - logistic_score(logistic_elo(s) - margin_elo))


def non_inferior(low: float, margin: float) -> bool:
    """Not worse by ``margin``: the interval's low end above ``-margin``."""
    return low > -margin


def non_inferiority_power(diff_sd: float, pairs: int, margin: float, true_diff: float = 0.0) -> float:
    """The chance that a set truly ``true_diff`` from the reference passes a not-worse test of
    ``margin`` over ``pairs`` paired maps of SD ``diff_sd`` (normal approximation)."""
    if pairs < 2 or not diff_sd > 0:
        return math.nan
    se = diff_sd / math.sqrt(pairs)
    return 1.0 - _Z.cdf((-margin + t_quantile(0.975, pairs - 1) * se - true_diff) / se)


def expected_pairs(settings: Settings, elo: float, pair_sd: float) -> float:
    """Wald's approximation of the SPRT's expected pairs at a true logistic ``elo``, for pair
    scores of SD ``pair_sd`` (the ratio as a drifting random walk between its bounds, overshoot
    ignored)."""
    s0, s1, s = (float(logistic_score(e)) for e in (settings.elo0, settings.elo1, elo))
    var = pair_sd * pair_sd
    drift = (s1 - s0) * (s - (s0 + s1) / 2) / var  # the ratio's mean step per pair
    spread = (s1 - s0) ** 2 / var  # its variance per pair
    lower, upper = settings.bounds
    if abs(drift) < 1e-12:
        return -lower * upper / spread
    # P(reach the upper bound first) of a Brownian motion with this drift and variance
    a = -2.0 * drift / spread
    hit_upper = (1.0 - math.exp(a * lower)) / (math.exp(a * upper) - math.exp(a * lower))
    return (hit_upper * upper + (1.0 - hit_upper) * lower) / drift
