"""``tune validate``: re-play the top trials and the defaults on held-out seeds.

Training scores are noisy and the best of many noisy scores is biased upwards (the winner's
curse). Validation re-plays the top K trials and the reference (the bot's defaults, trial 0) on
seeds no trial has seen, with many more games, and stores each score with its interval and its
paired difference to the defaults on the very same maps. "Best" is then the best validated
score, never the luckiest training score.

A program's study is tuned at a short time control and validated at the contest's: each time
control's validation is its own (its games a phase of their own, its results rows of their
own), so validating at 50 ms keeps what was found at 5 ms. A best whose paired interval against
the defaults reaches 0 is "no gain over the defaults shown" (``verdict``), stated plainly.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from optuna.trial import TrialState

from ocean.timecontrol import TimeControl
from tuning.driver.cluster import cluster_cpus
from tuning.driver.evaluation import plan_batches, summarize
from tuning.driver.pool import BatchPool, play_all
from tuning.errors import SpecError, TuningError
from tuning.results.verdict import time_key, validation_phase, verdict
from tuning.stats.estimates import Estimate, paired_difference
from tuning.storage.handle import StudyHandle
from tuning.study.space import REFERENCE_TRIAL

__all__ = ["ValidationResult", "validate_study", "candidates"]


@dataclass(frozen=True)
class ValidationResult:
    """One trial's validated score (mean over the panel) and its difference to the defaults."""

    trial: int
    estimate: Estimate
    per_opponent: dict[str, Estimate]
    diff: Estimate | None  # trial - defaults over the same held-out pairs (None for the defaults)
    params: dict
    training_score: float | None
    held_out: Estimate | None = None  # mean over the held-out opponents, if the study has some
    time: TimeControl | None = None  # the time control validated at

    @property
    def verdict(self) -> str:
        """``GAIN`` or ``NO_GAIN`` (see ``verdict``)."""
        return verdict(None if self.diff is None else self.diff.low)


def candidates(handle: StudyHandle, top_k: int) -> list[tuple[int, dict, float | None]]:
    """(trial, full params, training score): the reference first, then the top ``top_k``
    complete trials by training score."""
    complete = sorted((t for t in handle.trials(TrialState.COMPLETE) if t.value is not None),
                      key=lambda t: (-t.value, t.number))
    by_number = {t.number: t for t in handle.trials()}
    ref = by_number.get(REFERENCE_TRIAL)
    out = [(REFERENCE_TRIAL, handle.space.full_params(ref.params if ref is not None else {}),
            ref.value if ref is not None else None)]
    out += [(t.number, handle.space.full_params(t.params), t.value)
            for t in complete if t.number != REFERENCE_TRIAL][:top_k]
    return out


def validate_study(handle: StudyHandle, *, top_k: int | None = None, games: int | None = None,
                   time: TimeControl | None = None, pool: BatchPool | None = None,
                   progress: Callable[[int, int], None] | None = None) -> list[ValidationResult]:
    """Play (or complete) the validation games at ``time`` (default: the study's time control)
    and store the results beside those of other time controls; best first."""
    spec = handle.spec.validation
    time = handle.spec.time_control if time is None else time
    phase = validation_phase(time, handle.spec.time_control)
    top_k = spec.top_k if top_k is None else top_k
    games = spec.games if games is None else games
    if top_k < 1:
        raise SpecError(f"--top must be at least 1, got {top_k}")
    if games < 2 or games % 2:
        raise SpecError(f"--games must be a positive even number (each map is played twice), got {games}")
    if games > 2 * spec.seeds.count:
        raise SpecError(f"--games {games} needs {games // 2} held-out maps but validation.seeds has {spec.seeds.count}")
    if not handle.trials(TrialState.COMPLETE):
        raise TuningError(f"study {handle.name!r} has no complete trial yet; run or resume it first")
    seeds = spec.seeds.seeds(games // 2)
    chosen = candidates(handle, top_k)
    params = {number: p for number, p, _ in chosen}
    pending = deque()
    pairs = handle.batch_pairs(len(seeds))
    for number, _, _ in chosen:
        done = handle.games.pair_scores(number, phase)
        pending.extend(plan_batches(trial=number, phase=phase, panel=handle.validation_panel(), seeds=seeds,
                                    batch_pairs=pairs, done=done))
    total = sum(b.games for b in pending)
    played = 0
    if progress:
        progress(played, total)
    pool = pool if pool is not None else BatchPool(cluster_cpus() + 1, bot=handle.bot,
                                                   time_control=time)

    def store(batch, result) -> None:
        nonlocal played
        handle.games.add_games(trial=batch.trial, phase=phase, opponent=batch.opponent.name,
                               rows=result.rows, seconds=result.seconds)
        played += batch.games
        if progress:
            progress(played, total)

    play_all(pool, pending, lambda batch: params[batch.trial], store,
             lambda batch: f"validation games of trial {batch.trial}")
    return _score(handle, chosen, seeds, games, time, phase)


def _score(handle: StudyHandle, chosen, seeds: list[int], games: int, time: TimeControl,
           phase: str) -> list[ValidationResult]:
    opponents = [b.name for b in handle.panel]
    training = set(opponents)
    held_out = [b.name for b in handle.held_out or [] if b.name not in training]
    wanted = set(seeds)
    scores = {number: {k: v for k, v in handle.games.pair_scores(number, phase).items() if k[1] in wanted}
              for number, _, _ in chosen}
    reference = scores[REFERENCE_TRIAL]
    results = []
    for number, params, training_score in chosen:
        mine = scores[number]
        # "Best" is judged on the training panel's opponents (on held-out maps); the held-out
        # opponents are measured beside it, never chosen on.
        estimate, per = summarize(mine, opponents)
        trained_pairs = {k: v for k, v in mine.items() if k[0] in training}
        diff = None if number == REFERENCE_TRIAL else paired_difference(
            trained_pairs, {k: v for k, v in reference.items() if k[0] in training})
        extra, extra_per = summarize(mine, held_out) if held_out else (None, {})
        per = {**per, **extra_per}
        results.append(ValidationResult(number, estimate, per, diff, params, training_score, extra, time))
        handle.games.save_validation(
            trial=number, time_control=time_key(time), games=games, score=estimate.mean, low=estimate.low, high=estimate.high,
            heldout_score=None if extra is None else extra.mean, heldout_low=None if extra is None else extra.low,
            heldout_high=None if extra is None else extra.high,
            per_opponent={name: e.as_dict() for name, e in per.items()},
            diff=None if diff is None else diff.mean, diff_low=None if diff is None else diff.low,
            diff_high=None if diff is None else diff.high,
            seeds=f"{seeds[0]}..{seeds[-1]}", params=params)
    results.sort(key=lambda r: (-r.estimate.mean, -r.estimate.low, r.trial))
    return results
