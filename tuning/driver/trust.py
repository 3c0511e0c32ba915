"""The trust step of ``tune learn``: how far to trust the search's own ranking, learned from
self-play results.

TD fits a value. The weight it gives ``v3_regret`` is what one line worse than v3's choice costs
in win rate, which is small (a game forgives one worse line); choosing between the lines of one
turn wants that ranking trusted more than the value says (docs/learning.md, "Why"). So after the
TD games the learner plays itself: a ladder of scales of the ``v3_regret`` weight (``SCALES``),
each scale against the best scale so far in paired games on learning maps, taken when it scores
above one half. Only self-play decides, never a yardstick; the learned file carries the weights
with the chosen scale, and the yardsticks then score them on the held-out maps like any
checkpoint.

Each match is stored as it ends (``ocean_learn_trust``), so a killed step carries on where it
stopped; a match is a pure function of the weights and maps, so a replayed one gives the same row.
"""
from __future__ import annotations

from typing import Callable

import ray

from tuning.driver.learn import (
    LEARN_SEED_BASE, POLICY, RUN_SEED_STRIDE, LearnOptions, held_out_seeds, score_task, split_even,
)
from tuning.errors import TuningError
from tuning.storage.learnstore import Checkpoint, LearnStore, TrustRow, ladder_scale, rung_name

__all__ = ["SCALES", "TRUSTED", "TrustStep", "run_trust", "trust_maps", "trusted_weights"]

SCALES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)  # x64 of a weight TD leaves near 0.1-0.2 stays inside the bounds
TRUSTED = "v3_regret"  # the one weight the step scales
_TRUST_SEED_OFFSET = RUN_SEED_STRIDE // 2  # the step's maps: a run's learning maps no TD game reaches


def trust_maps(trust_games: int) -> int:
    """Maps per rung when the step may play ``trust_games`` games (each map twice, sides swapped);
    one-line ``TuningError`` when that is not even one map a rung."""
    rungs = len(SCALES) - 1
    if trust_games < 0 or 0 < trust_games < 2 * rungs:
        raise TuningError(f"--trust-games is {trust_games}; give 0 (no trust step) or at least {2 * rungs} "
                          f"({rungs} matches of paired games)")
    return trust_games // (2 * rungs)


def trusted_weights(weights: dict[str, float], scale: float) -> dict[str, float]:
    """``weights`` with the ``v3_regret`` weight times ``scale``, clipped to the weights' bounds."""
    from ocean.bots.td.coefficients import WEIGHT_BOUND

    return dict(weights, **{TRUSTED: max(-WEIGHT_BOUND, min(WEIGHT_BOUND, weights[TRUSTED] * scale))})


def _seeds(options: LearnOptions, maps: int) -> list[int]:
    first = LEARN_SEED_BASE + options.seed * RUN_SEED_STRIDE + _TRUST_SEED_OFFSET
    return [first + i for i in range(maps)]


class TrustStep:
    """The step's outcome: the chosen ``scale``, the ``weights`` it gives, the ``games`` played."""

    def __init__(self, scale: float, weights: dict[str, float], games: int, rows: list[TrustRow]) -> None:
        self.scale = scale
        self.weights = weights
        self.games = games
        self.rows = rows


def run_trust(store: LearnStore, options: LearnOptions, cp: Checkpoint, trust_games: int, *, parallel: int,
              on_match: Callable[[TrustRow], None] = lambda row: None) -> TrustStep:
    """The trust step after checkpoint ``cp`` with ``trust_games`` self-play games, carrying on
    from its stored matches; then the trusted weights' yardstick scores (unless the run scores
    none). ``parallel``: Ray tasks to spread a match over (never changes a result)."""
    from ocean.stats import estimate

    maps = trust_maps(trust_games)
    stored = {(r.scale, r.opponent, r.maps): r for r in store.trust_rows(cp.round)}
    seeds = _seeds(options, maps)
    rows = []

    def play(scale: float, opponent: str, other, on: list[int]) -> TrustRow:
        row = stored.get((scale, opponent, len(on)))
        if row is None:
            refs = [score_task.remote(trusted_weights(cp.weights, scale), other, on[o:o + n])
                    for o, n in split_even(len(on), parallel)]
            try:
                pairs = [s for part in ray.get(refs) for s in part]
            except ray.exceptions.RayError as exc:
                raise TuningError(f"a trust-step match failed on Ray ({type(exc).__name__}); run the same command "
                                  "again: it carries on from the last match stored") from None
            e = estimate(pairs)
            row = TrustRow(cp.round, cp.games, scale, opponent, len(on), e.mean, e.low, e.high)
            store.add_trust_row(row)
        rows.append(row)
        on_match(row)
        return row

    for scale in SCALES[1:]:
        best = ladder_scale(rows)
        play(scale, rung_name(best), trusted_weights(cp.weights, best), seeds)
    best = ladder_scale(rows)
    if options.score_every:
        for yardstick in options.yardsticks:
            play(best, yardstick, yardstick, held_out_seeds(options.score_maps))
    return TrustStep(best, trusted_weights(cp.weights, best), 2 * maps * (len(SCALES) - 1), rows)
