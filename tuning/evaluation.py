"""How a trial is evaluated: which batches it plays and how its games become a score.

Every trial plays the same seeds against every opponent (common random numbers). Batches go
round-robin over the opponents so that, at any moment, a partly played trial has seen each
opponent about equally — which is what the pruning test and the running estimate compare.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from tuning.pool import Batch
from tuning.stats import Estimate, panel_estimate

__all__ = ["plan_batches", "pair_scores_of_rows", "summarize", "by_opponent", "BatchSizer", "AUTO",
           "AUTO_BATCH_SECONDS"]

AUTO = "auto"  # ``batch_pairs = "auto"`` in a study file
AUTO_BATCH_SECONDS = 1.0  # what an automatic batch aims at: about this much of one worker's time
_AUTO_FIRST_PAIRS = 10  # before any game was timed
_AUTO_MOST_PAIRS = 1000  # a cap, so one slow estimate never makes a trial a single batch per opponent
_SMOOTHING = 0.2  # weight of the newest batch in the running seconds-per-map estimate


def plan_batches(*, trial: int, phase: str, panel: Sequence, seeds: Sequence[int], batch_pairs: int,
                 done: Iterable[tuple[str, int]] = ()) -> list[Batch]:
    """The batches still to play: ``seeds`` against each opponent, minus the (opponent, seed)
    pairs in ``done`` (both games stored), ``batch_pairs`` seeds per batch, opponents in turn."""
    done = set(done)
    chunks_per_opponent = []
    for opponent in panel:
        todo = [s for s in seeds if (opponent.name, s) not in done]
        chunks_per_opponent.append([Batch(trial, phase, opponent, tuple(todo[i:i + batch_pairs]))
                                    for i in range(0, len(todo), batch_pairs)])
    out = []
    for i in range(max((len(c) for c in chunks_per_opponent), default=0)):
        out.extend(c[i] for c in chunks_per_opponent if i < len(c))
    return out


def pair_scores_of_rows(opponent: str, rows: Sequence[Mapping]) -> dict[tuple[str, int], float]:
    """(opponent, seed) -> pair score from a batch's rows (two games per seed)."""
    totals: dict[int, list[float]] = defaultdict(list)
    for row in rows:
        totals[row["seed"]].append({"a": 1.0, "b": 0.0, "draw": 0.5}[row["winner"]])
    return {(opponent, seed): sum(s) / len(s) for seed, s in totals.items() if len(s) == 2}


def by_opponent(scores: Mapping[tuple[str, int], float], opponents: Sequence[str],
                seeds: Iterable[int] | None = None) -> dict[str, list[float]]:
    """Pair scores grouped by opponent (restricted to ``seeds`` if given), in seed order."""
    allowed = None if seeds is None else set(seeds)
    grouped: dict[str, list[tuple[int, float]]] = {name: [] for name in opponents}
    for (name, seed), score in scores.items():
        if name in grouped and (allowed is None or seed in allowed):
            grouped[name].append((seed, score))
    return {name: [s for _, s in sorted(pairs)] for name, pairs in grouped.items()}


def summarize(scores: Mapping[tuple[str, int], float], opponents: Sequence[str],
              seeds: Iterable[int] | None = None) -> tuple[Estimate, dict[str, Estimate]]:
    """The objective (mean over the panel) and per-opponent estimates of a trial's pairs."""
    return panel_estimate(by_opponent(scores, opponents, seeds))


class BatchSizer:
    """Maps per batch: the study's fixed ``batch_pairs``, or with ``"auto"`` as many as take one
    worker about ``AUTO_BATCH_SECONDS``, from the measured compute time of finished batches.

    A batch of 10 maps is 0.02 s of the in-process bot's work and 100 s of a slow program's:
    the first leaves a cluster's driver handling thousands of tiny batches a second, the second
    looks at a trial for pruning once every few minutes. Sizes change the grouping of games only,
    never a game (each is a function of its seed, bots and coefficients); a trial's batches are
    sized when it opens, so its planned looks (the pruning test's Bonferroni split) are fixed."""

    def __init__(self, setting: int | str, *, seconds_per_pair: float | None = None) -> None:
        self.setting = setting
        self.seconds_per_pair: float | None = None
        self.assume(seconds_per_pair)

    def assume(self, seconds_per_pair: float | None) -> None:
        """Start from this estimate (e.g. the stored games' speed); None or no time measured
        (games stored without a duration) leaves the first guess."""
        self.seconds_per_pair = seconds_per_pair if seconds_per_pair and seconds_per_pair > 0 else None

    @property
    def auto(self) -> bool:
        return self.setting == AUTO

    def observe(self, pairs: int, seconds: float) -> None:
        """A finished batch of ``pairs`` maps that took ``seconds`` of compute."""
        if pairs <= 0 or seconds <= 0:
            return
        latest = seconds / pairs
        old = self.seconds_per_pair
        self.seconds_per_pair = latest if old is None else (1 - _SMOOTHING) * old + _SMOOTHING * latest

    def pairs(self, available: int) -> int:
        """Maps per batch for a plan over ``available`` maps per opponent."""
        if not self.auto:
            return int(self.setting)
        if self.seconds_per_pair is None:
            wanted = _AUTO_FIRST_PAIRS
        else:
            wanted = round(AUTO_BATCH_SECONDS / self.seconds_per_pair)
        return max(1, min(wanted, _AUTO_MOST_PAIRS, max(1, available)))
