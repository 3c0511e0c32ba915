"""Sequential pruning: stop a trial once it is clearly worse than the incumbent.

After each batch, the trial and the incumbent (the best finished trial) are compared on the
pairs both have played: the same opponent on the same map, so map luck cancels out. The test
is a one-sided paired t-test on the pair-score differences, run at level ``alpha / looks``
where ``looks`` is the number of batches a trial has: a Bonferroni split over every look a
trial could get, so against a fixed incumbent the chance of ever pruning a trial that is not
worse stays below ``alpha`` however often we peek. The incumbent is not fixed, though: it is the
best of the complete trials' noisy training scores on these very maps, so its scores sit above
its strength, and a trial as strong as it is pruned more often than ``alpha``: 12% at alpha 0.05
when every trial is equally strong, 8.3% when trials are close (``python -m benchmarks.prunebench``,
docs/benchmarks.md "Pruning rules"). ``shrink_incumbent`` (``incumbent_bias``) takes the
expected lead off (1.8% and 3.4%) for more games played; the default keeps the plain test,
which plays the fewest games for the same final best in those simulations.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from scipy import stats as _st

__all__ = ["PruneDecision", "should_prune", "decide", "incumbent_bias", "interval_variance", "TESTS", "SPRT_DELTA"]


@dataclass(frozen=True)
class PruneDecision:
    """Whether to prune, and the evidence: mean difference (trial - incumbent) over ``pairs``
    shared pairs and the one-sided p-value of "not worse"."""

    prune: bool
    diff: float
    pairs: int
    p_value: float


SPRT_DELTA = 0.05  # the SPRT's alternative: worse than the incumbent by this much (score units)
TESTS = ("t", "sprt", "wilcoxon")


def should_prune(trial: Mapping, incumbent: Mapping, *, alpha: float, looks: int,
                 min_pairs: int, margin: float = 0.0, test: str = "t") -> PruneDecision:
    """Test H0 "the trial is at most ``margin`` worse than the incumbent" against "worse by
    more", on the keys (e.g. (opponent, seed)) both score maps hold."""
    shared = trial.keys() & incumbent.keys()
    return decide([trial[k] - incumbent[k] for k in shared], alpha=alpha, looks=looks, min_pairs=min_pairs,
                  margin=margin, test=test)


def decide(diffs: Sequence[float], *, alpha: float, looks: int, min_pairs: int, margin: float = 0.0,
           test: str = "t") -> PruneDecision:
    """The decision on the paired differences (trial - incumbent) seen so far.

    ``t``: one-sided paired t-test at ``alpha / looks`` (Bonferroni over the planned looks).
    ``wilcoxon``: the signed-rank test in its place (Optuna's WilcoxonPruner's test).
    ``sprt``: Wald's sequential probability ratio test of H0 "mean difference = -margin"
    against H1 "= -margin - SPRT_DELTA" with the normal model (the GSPRT Fishtest runs on pair
    outcomes), pruning when the likelihood ratio passes 1/alpha: its error bound holds however
    often it looks, so alpha is not split. ``p_value`` is then the Wald bound 1/LR."""
    n = len(diffs)
    if n < max(2, min_pairs):
        return PruneDecision(False, math.nan, n, 1.0)
    mean = math.fsum(diffs) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (n - 1))
    shifted = mean + margin  # > 0 means within the margin of the incumbent
    if test == "sprt":
        var = sd * sd if sd > 0.0 else max(1e-6, 1.0 - mean * mean)
        llr = -(SPRT_DELTA * n / var) * (shifted + SPRT_DELTA / 2)
        bound = math.exp(-llr) if llr < 700 else 0.0
        return PruneDecision(llr >= math.log(1.0 / alpha), mean, n, min(1.0, bound))
    if test == "wilcoxon":
        shifted_diffs = [d + margin for d in diffs]
        if all(d == 0.0 for d in shifted_diffs):
            p = 1.0
        else:
            p = float(_st.wilcoxon(shifted_diffs, alternative="less", zero_method="zsplit").pvalue)
        return PruneDecision(p < alpha / max(1, looks), mean, n, p)
    if test != "t":
        raise ValueError(f"unknown pruning test {test!r}; use one of {', '.join(TESTS)}")
    if sd == 0.0:
        p = 0.0 if shifted < 0 else 1.0
    else:
        p = float(_st.t.cdf(shifted / (sd / math.sqrt(n)), n - 1))
    return PruneDecision(p < alpha / max(1, looks), mean, n, p)


def interval_variance(low: float, high: float, level: float = 0.95) -> float:
    """The variance of an estimate whose two-sided ``level`` interval is [low, high] (normal);
    NaN bounds give NaN."""
    return ((high - low) / (2.0 * _st.norm.ppf(0.5 + level / 2))) ** 2


def incumbent_bias(scores: Sequence[float], variances: Sequence[float], incumbent: float) -> float:
    """How far the incumbent's training score is expected to sit above its true score because
    it was chosen as the best of ``scores`` (the complete trials' training scores, with the
    variances of their estimates): the empirical-Bayes shrinkage towards the trials' mean,
    ``(noise / spread) * (incumbent - mean)``, never negative."""
    known = [(s, v) for s, v in zip(scores, variances) if not math.isnan(v)]
    scores, variances = [s for s, _ in known], [v for _, v in known]
    k = len(scores)
    if k < 3:
        return 0.0
    mean = math.fsum(scores) / k
    spread = math.fsum((s - mean) ** 2 for s in scores) / (k - 1)
    noise = math.fsum(variances) / k
    if spread <= 0.0:
        return max(0.0, incumbent - mean)
    return max(0.0, min(1.0, noise / spread) * (incumbent - mean))
