"""``tune plan``: what a study's budget can detect, before it is spent.

From a short pilot (the defaults against the panel on the study's first maps, on the current
Ray cluster at the study's time control) or from the games a stored study already played: the
games per second, the per-pair standard deviation of the score, and from them
(``tuning.stats.power``) the smallest gain the study can detect per trial and in validation, the
games and wall time to detect +0.02, +0.05 and +0.10, and, given hours, how many trials of how
many games fit.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

from tuning.driver.evaluation import by_opponent, pair_scores_of_rows, plan_batches
from tuning.errors import TuningError
from tuning.stats.power import (LEVEL, POWER, budget_split, detectable_gain, half_width, pairs_for_gain, paired_sd,
                                pooled_sd, unseen_spread)
from tuning.study.space import REFERENCE_TRIAL, build_space
from tuning.study.spec import StudySpec

__all__ = ["Measured", "GAINS", "pilot", "from_stored", "plan"]

GAINS = (0.02, 0.05, 0.10)  # gains in score (share of points) a study is usually hoped to find
_SESSION_GAP = 60.0  # seconds without a stored batch that end a sitting of a stored study
MIN_TRIALS = 10  # fewer trials than this is hardly a search


@dataclass(frozen=True)
class Measured:
    """What the plan is computed from."""

    source: str  # "pilot" or "stored"
    games: int  # games measured
    games_per_s: float
    pair_sd: float  # SD of one bot's pair score, within opponents
    diff_sd: float  # SD of a paired difference between two coefficient sets on one map
    diff_sd_measured: bool  # False: assumed from pair_sd (no correlation; common maps only help)
    defaults_score: float  # the defaults' mean pair score: near 0 or 1 a gain has little room


def _spread(scores: dict, names: list[str]) -> tuple[float, float]:
    """(pooled SD within opponents, floored when no spread was seen; the mean score)."""
    values = list(scores.values())
    mean = sum(values) / len(values) if values else math.nan
    sd = pooled_sd(by_opponent(scores, names))
    if sd == 0.0:
        sd = unseen_spread(mean, len(values))
    return sd, mean


def pilot(spec: StudySpec, panel, pairs: int, workers: int, pool,
          progress: Callable[[int, int], None] | None = None) -> Measured:
    """Play the defaults against ``panel`` on the first ``pairs`` maps of the seed bank in
    ``pool`` (a ``BatchPool`` at the study's time control) and measure. Nothing is stored."""
    from tuning.driver.pool import play_all  # Ray: a plan from stored games never loads it
    if pairs < 2:
        raise TuningError(f"--pilot-pairs must be at least 2 (a spread needs two maps), got {pairs}")
    seeds = spec.seed_bank.seeds(min(pairs, spec.seed_bank.count))
    space = build_space(spec)
    params = space.full_params(space.reference_params())
    setting = spec.batch_pairs if isinstance(spec.batch_pairs, int) else 10
    # At least two batches per worker, so every CPU plays and the rate is the cluster's.
    batch_pairs = max(1, min(setting, len(seeds) * len(panel) // (2 * workers)))
    pending = plan_batches(trial=REFERENCE_TRIAL, phase="train", panel=panel, seeds=seeds, batch_pairs=batch_pairs)
    total = sum(b.games for b in pending)
    scores: dict = {}
    played = 0

    def measure(batch, result) -> None:
        nonlocal played
        scores.update(pair_scores_of_rows(batch.opponent.name, result.rows))
        played += batch.games
        if progress:
            progress(played, total)

    start = time.perf_counter()
    play_all(pool, pending, lambda batch: params, measure, lambda batch: f"pilot games against {batch.opponent.name}")
    wall = time.perf_counter() - start
    sd, mean = _spread(scores, [b.name for b in panel])
    return Measured("pilot", played, played / wall if wall > 0 else math.nan, sd, math.sqrt(2) * sd, False, mean)


def from_stored(handle) -> Measured:
    """Measure on the training games a stored study played: the defaults' pair scores, the
    paired differences of the complete trials to the defaults, the rate of its sittings."""
    from optuna.trial import TrialState

    names = [b.name for b in handle.panel]
    reference = handle.games.pair_scores(REFERENCE_TRIAL, "train")
    if len(reference) < 2:
        raise TuningError(f"study {handle.name!r} has fewer than two maps played by the defaults (trial 0): "
                          "nothing to measure yet; resume it, or plan from its study file (a pilot)")
    sd, mean = _spread(reference, names)
    squares, freedom = 0.0, 0
    for trial in handle.trials(TrialState.COMPLETE, TrialState.PRUNED):
        if trial.number == REFERENCE_TRIAL:
            continue
        spread, n = paired_sd(handle.games.pair_scores(trial.number, "train"), reference)
        if n > 1:
            squares += spread * spread * (n - 1)
            freedom += n - 1
    measured = freedom > 0 and squares > 0  # every difference 0 (say, all won): no spread seen, assume
    diff_sd = math.sqrt(squares / freedom) if measured else math.sqrt(2) * sd
    rounds = handle.games.batch_times("train")
    games, seconds = 0, 0.0
    for (before, _), (at, n) in zip(rounds, rounds[1:]):
        if at - before <= _SESSION_GAP:  # a pause (a driver stopped) is not playing time
            games += n
            seconds += at - before
    rate = games / seconds if seconds > 0 else math.nan
    return Measured("stored", sum(n for _, n in rounds), rate, sd, diff_sd, measured, mean)


def plan(spec: StudySpec, measured: Measured, opponents: int, validation_opponents: int,
         hours: float | None = None, gain: float = 0.05) -> dict:
    """The plan as one JSON-able dict (see the module's docstring); ``gain``: what ``hours``
    is planned to detect per trial."""
    if not (measured.diff_sd >= 0 and math.isfinite(measured.diff_sd)):
        raise TuningError("the pilot's games did not vary (or too few were played) to measure a spread: "
                          "raise --pilot-pairs")
    sd, rate = measured.diff_sd, measured.games_per_s
    trial_pairs = spec.pairs_per_opponent * opponents
    validation_pairs = spec.validation.games // 2 * opponents
    validation_games = (spec.validation.top_k + 1) * spec.validation.games * validation_opponents

    def seconds(games: float) -> float | None:
        return round(games / rate, 1) if rate and math.isfinite(rate) else None

    games_for = {f"{g:g}": 2 * pairs_for_gain(sd, g) for g in GAINS}
    out = {
        "study": spec.name,
        "source": measured.source,
        "time_control": spec.time_control.as_json(),
        "games_measured": measured.games,
        "games_per_s": _round(rate),
        "pair_sd": _round(measured.pair_sd),
        "diff_sd": _round(sd),
        "diff_sd_measured": measured.diff_sd_measured,
        "defaults_score": _round(measured.defaults_score),
        "level": LEVEL,
        "power": POWER,
        "per_trial": {"games": 2 * trial_pairs, "seconds": seconds(2 * trial_pairs),
                      "interval_half_width": _round(half_width(sd, trial_pairs)),
                      "detectable_gain": _round(detectable_gain(sd, trial_pairs))},
        "validation": {"games_per_candidate": 2 * validation_pairs, "games": validation_games,
                       "seconds": seconds(validation_games),
                       "interval_half_width": _round(half_width(sd, validation_pairs)),
                       "detectable_gain": _round(detectable_gain(sd, validation_pairs))},
        "study_budget": {"trials": spec.n_trials, "games": spec.n_trials * 2 * trial_pairs + validation_games,
                         "seconds": seconds(spec.n_trials * 2 * trial_pairs + validation_games)},
        # per candidate (the defaults' games are played once, shared by all)
        "games_for_gain": games_for,
        "seconds_for_gain": {k: seconds(v) for k, v in games_for.items()},
    }
    out["detectable_gain"] = {"per_trial": out["per_trial"]["detectable_gain"],
                              "validation": out["validation"]["detectable_gain"]}
    out["recommendation"] = None if hours is None else _recommend(spec, out, hours, gain, opponents,
                                                                  validation_games)
    return out


def _recommend(spec: StudySpec, out: dict, hours: float, gain: float, opponents: int, validation_games: int) -> dict:
    rate, sd = out["games_per_s"], out["diff_sd"]
    if not hours > 0:
        raise TuningError(f"--hours must be above 0, got {hours}")
    if not gain > 0:
        raise TuningError(f"--gain must be above 0, got {gain}")
    if rate is None or not math.isfinite(rate) or rate <= 0:
        raise TuningError("no game rate was measured (too few batches); raise --pilot-pairs")
    budget = hours * 3600 * rate
    training = budget - validation_games
    if training < MIN_TRIALS * 2 * opponents:
        raise TuningError(f"{hours:g} h at {rate:.2f} games/s is {budget:.0f} games: validation alone takes "
                          f"{validation_games}; give more --hours, fewer validation games, or a shorter time control")
    trials, per_opponent = budget_split(training, sd, gain, opponents, min_trials=MIN_TRIALS,
                                        max_pairs_per_opponent=spec.seed_bank.count)
    pairs = per_opponent // 2 * opponents
    return {"hours": hours, "games": int(budget), "training_games": int(training), "gain": gain,
            "n_trials": trials, "games_per_opponent": per_opponent,
            "detectable_gain_per_trial": _round(detectable_gain(sd, pairs)),
            "seed_bank_limits": per_opponent // 2 >= spec.seed_bank.count}


def _round(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 6)
