"""The incumbent a driver prunes against: the best complete trial of the study, as stored.

Every driver's complete trials count, so the incumbent is re-read from the study (a count in
SQL, then the trials only when another driver completed one) at most once every ``every``
seconds. Head to head there is none: a trial's score is its own pair against itself.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

from optuna.trial import TrialState

from tuning.stats.pruning import incumbent_bias, interval_variance, should_prune
from tuning.storage.trialindex import trial_counts

__all__ = ["Incumbent", "IncumbentWatch"]


@dataclass
class Incumbent:
    """The best complete trial: its number, score, interval and pair scores."""

    number: int
    value: float
    low: float
    high: float
    scores: dict


class IncumbentWatch:
    """Keeps a driver's incumbent and answers its pruning test."""

    def __init__(self, handle, *, pruning, head_to_head: bool, every: float, call: Callable,
                 train: str) -> None:
        self.h = handle
        self.pruning = pruning
        self.head_to_head = head_to_head
        self.every = every
        self.call = call  # the driver's database call, retried through outages
        self.train = train
        self.best: Incumbent | None = None
        self._read = -math.inf  # time.monotonic() of the last look at the stored incumbent
        self._scored: list[tuple[float, float]] = []  # complete trials' (score, variance of the score)

    def add(self, number: int, mean: float, low: float, high: float, scores: dict) -> None:
        """Count a trial this driver completed."""
        if self.head_to_head:
            return
        self._scored.append((mean, interval_variance(low, high)))
        if self.best is None or mean > self.best.value:
            self.best = Incumbent(number, mean, low, high, dict(scores))

    def should_prune(self, number: int, scores: dict, looks: int, reference: int) -> dict | None:
        """The record of a pruning decision against the incumbent, or None to play on."""
        p = self.pruning
        if not p.enabled or self.head_to_head:
            return None
        self.refresh()
        inc = self.best
        if inc is None or number in (reference, inc.number):
            return None
        # The incumbent is the best of the complete trials' noisy training scores on these very
        # maps, so its scores sit above its strength; shrink_incumbent takes that expected lead
        # off (docs/benchmarks.md, "Pruning rules": equal trials pruned 8.3% at alpha 0.05 without).
        bias = incumbent_bias([v for v, _ in self._scored], [var for _, var in self._scored], inc.value) \
            if p.shrink_incumbent else 0.0
        decision = should_prune(scores, inc.scores, alpha=p.alpha, looks=looks,
                                min_pairs=p.min_pairs, margin=p.margin + bias)
        if not decision.prune:
            return None
        return {"incumbent": inc.number, "diff": decision.diff, "pairs": decision.pairs,
                "p_value": decision.p_value, "incumbent_bias": bias}

    def refresh(self) -> None:
        """Read the stored incumbent again if ``every`` seconds passed and the study has complete
        trials this driver has not counted."""
        now = time.monotonic()
        if now - self._read < self.every:
            return
        self._read = now
        complete = self.call(lambda: trial_counts(self.h.storage.engine, self.h.name))[TrialState.COMPLETE]
        if complete != len(self._scored):
            self.load()

    def load(self) -> None:
        """Read the study's complete trials and take the best as the incumbent."""
        self._read = time.monotonic()
        if self.head_to_head:
            return
        complete = [t for t in self.call(lambda: self.h.trials(TrialState.COMPLETE)) if t.value is not None]
        self._scored = [(t.value, interval_variance(t.user_attrs.get("score_low", math.nan),
                                                    t.user_attrs.get("score_high", math.nan))) for t in complete]
        if complete:
            best = max(complete, key=lambda t: (t.value, -t.number))
            if self.best is not None and self.best.number == best.number:
                return  # its pair scores are already here
            self.best = Incumbent(best.number, best.value, best.user_attrs.get("score_low", math.nan),
                                  best.user_attrs.get("score_high", math.nan),
                                  self.call(lambda: self.h.games.pair_scores(best.number, self.train)))
