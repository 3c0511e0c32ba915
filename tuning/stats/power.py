"""The power of a study's budget: how small a gain its games can tell from no gain.

A trial is judged on pairs (one map, both sides): its score is the mean pair score over the
panel, and it is compared with the defaults on the same pairs (common random numbers), so what
matters is the standard deviation of a *paired difference* between two coefficient sets on one
map, ``diff_sd``. With ``n`` pairs the 95% interval of the mean difference is about
``z(0.975) * diff_sd / sqrt(n)`` either side (``half_width``); a true gain is *detected* when
that interval lies above 0, which happens with probability ``power`` when the gain is
``(z(0.975) + z(power)) * diff_sd / sqrt(n)`` (``detectable_gain``, the classic minimum
detectable effect of a two-sided test). Pure: the standard library only.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from typing import Mapping, Sequence

__all__ = ["LEVEL", "POWER", "OWN_DISQUALIFICATIONS", "half_width", "detectable_gain", "pairs_for_gain",
           "pooled_sd", "paired_sd", "unseen_spread", "budget_split"]

LEVEL = 0.95  # two-sided interval, as every interval the lab prints
POWER = 0.8  # chance of detecting a true gain of the detectable size (the usual convention)
# "A few percent": above this share of its games disqualified (timeouts, crashes), the tuned bot's
# scores measure its disqualifications as much as its parameters (each is a loss, and where one
# trial times out more than another the difference is the clock's). tune plan warns above it.
OWN_DISQUALIFICATIONS = 0.03
_Z = NormalDist()


def _z_level(level: float) -> float:
    return _Z.inv_cdf(0.5 + level / 2)


def half_width(diff_sd: float, pairs: int, level: float = LEVEL) -> float:
    """Expected half-width of the ``level`` interval of a mean paired difference over ``pairs``."""
    _check(diff_sd, pairs)
    return _z_level(level) * diff_sd / math.sqrt(pairs)


def detectable_gain(diff_sd: float, pairs: int, level: float = LEVEL, power: float = POWER) -> float:
    """The smallest true gain whose ``level`` interval over ``pairs`` paired maps lies above 0
    with probability ``power``."""
    _check(diff_sd, pairs)
    return (_z_level(level) + _Z.inv_cdf(power)) * diff_sd / math.sqrt(pairs)


def pairs_for_gain(diff_sd: float, gain: float, level: float = LEVEL, power: float = POWER) -> int:
    """Paired maps needed to detect a true ``gain`` (``detectable_gain`` turned around)."""
    if not gain > 0:
        raise ValueError(f"gain must be above 0, got {gain!r}")
    _check(diff_sd, 1)
    return max(2, math.ceil(((_z_level(level) + _Z.inv_cdf(power)) * diff_sd / gain) ** 2))


def pooled_sd(groups: Mapping[str, Sequence[float]]) -> float:
    """Standard deviation of pair scores within groups (opponents), pooled: each opponent has
    its own mean, and the panel's stratified estimate only sees the spread around it. NaN
    with fewer than two values in every group."""
    squares, freedom = 0.0, 0
    for values in groups.values():
        if len(values) > 1:
            mean = math.fsum(values) / len(values)
            squares += math.fsum((v - mean) ** 2 for v in values)
            freedom += len(values) - 1
    return math.sqrt(squares / freedom) if freedom else math.nan


def paired_sd(a: Mapping, b: Mapping) -> tuple[float, int]:
    """(SD of ``a[key] - b[key]`` over the keys both hold, how many): the spread of a paired
    difference between two coefficient sets on the same maps. NaN below two shared keys."""
    diffs = [a[key] - b[key] for key in a.keys() & b.keys()]
    if len(diffs) < 2:
        return math.nan, len(diffs)
    mean = math.fsum(diffs) / len(diffs)
    return math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)), len(diffs)


def unseen_spread(mean: float, pairs: int) -> float:
    """A floor for a spread measured as 0 on ``pairs`` pairs scoring ``mean``: the SD of a
    score in [0, 1] whose mean is pulled half a pair towards 1/2 (as if one more pair had gone
    either way), so that a pilot that saw every pair won does not promise certainty."""
    if pairs < 1:
        raise ValueError(f"need at least one pair, got {pairs}")
    p = (pairs * mean + 0.5) / (pairs + 1)
    return math.sqrt(p * (1 - p))


def budget_split(games: float, diff_sd: float, gain: float, opponents: int, *, min_trials: int = 10,
                 max_pairs_per_opponent: int | None = None) -> tuple[int, int]:
    """(trials, games per opponent per trial) for ``games`` training games: enough games per
    trial to detect ``gain`` against the defaults, as many trials as that leaves; when that
    leaves fewer than ``min_trials``, ``min_trials`` with the games shared out (each then
    detects less). Games per opponent are even (both sides of each map) and at most
    ``2 * max_pairs_per_opponent`` (the seed bank)."""
    if opponents < 1:
        raise ValueError("a panel has at least one opponent")
    per_opponent = 2 * math.ceil(pairs_for_gain(diff_sd, gain) / opponents)
    if max_pairs_per_opponent is not None:
        per_opponent = min(per_opponent, 2 * max_pairs_per_opponent)
    trials = int(games // (per_opponent * opponents))
    if trials < min_trials:
        trials = min_trials
        per_opponent = max(2, 2 * int(games // (trials * opponents * 2)))
    return trials, per_opponent


def _check(diff_sd: float, pairs: int) -> None:
    if not (diff_sd >= 0 and math.isfinite(diff_sd)):
        raise ValueError(f"the paired difference's SD must be a finite number >= 0, got {diff_sd!r}")
    if pairs < 1:
        raise ValueError(f"need at least one pair, got {pairs}")
