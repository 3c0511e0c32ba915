"""How a study's ``batch_pairs`` becomes the maps per Ray task: a fixed number, or with
``"auto"`` a batch of about a second of one worker's time, from the measured game speed."""
from __future__ import annotations

__all__ = ["BatchSizer", "AUTO", "AUTO_BATCH_SECONDS"]

AUTO = "auto"  # ``batch_pairs = "auto"`` in a study file
AUTO_BATCH_SECONDS = 1.0  # what an automatic batch aims at: about this much of one worker's time
_AUTO_FIRST_PAIRS = 10  # before any game was timed
_AUTO_MOST_PAIRS = 1000  # a cap, so one slow estimate never makes a trial a single batch per opponent
_SMOOTHING = 0.2  # weight of the newest batch in the running seconds-per-map estimate


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
