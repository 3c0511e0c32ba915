"""Sequential pruning: stop a trial once it is clearly worse than the incumbent.

After each batch, the trial and the incumbent (the best finished trial) are compared on the
pairs both have played: the same opponent on the same map, so map luck cancels out. The test
is a one-sided paired t-test on the pair-score differences, run at level ``alpha / looks``
where ``looks`` is the number of batches a trial has: a Bonferroni split over every look a
trial could get, so the chance of ever pruning a trial that is not worse stays below ``alpha``
however often we peek.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from scipy import stats as _st

__all__ = ["PruneDecision", "should_prune"]


@dataclass(frozen=True)
class PruneDecision:
    """Whether to prune, and the evidence: mean difference (trial - incumbent) over ``pairs``
    shared pairs and the one-sided p-value of "not worse"."""

    prune: bool
    diff: float
    pairs: int
    p_value: float


def should_prune(trial: Mapping, incumbent: Mapping, *, alpha: float, looks: int,
                 min_pairs: int, margin: float = 0.0) -> PruneDecision:
    """Test H0 "the trial is at most ``margin`` worse than the incumbent" against "worse by
    more", on the keys (e.g. (opponent, seed)) both score maps hold."""
    shared = trial.keys() & incumbent.keys()
    n = len(shared)
    if n < max(2, min_pairs):
        return PruneDecision(False, math.nan, n, 1.0)
    diffs = [trial[k] - incumbent[k] for k in shared]
    mean = math.fsum(diffs) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (n - 1))
    shifted = mean + margin  # > 0 means within the margin of the incumbent
    if sd == 0.0:
        p = 0.0 if shifted < 0 else 1.0
    else:
        p = float(_st.t.cdf(shifted / (sd / math.sqrt(n)), n - 1))
    return PruneDecision(p < alpha / max(1, looks), mean, n, p)
