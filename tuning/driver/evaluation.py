"""How a trial is evaluated: which batches it plays and how its games become a score.

Every trial plays the same seeds against every opponent (common random numbers). Batches go
round-robin over the opponents so that, at any moment, a partly played trial has seen each
opponent about equally — which is what the pruning test and the running estimate compare.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from tuning.stats.estimates import Estimate, panel_estimate

__all__ = ["Batch", "plan_batches", "pair_scores_of_rows", "summarize", "by_opponent"]


@dataclass(frozen=True)
class Batch:
    """Seeds of one opponent for one trial, in one phase ('train', 'validate' or 'test')."""

    trial: int
    phase: str
    opponent: object  # ocean.bots.BotSpec
    seeds: tuple[int, ...]
    bot: object = None  # the batch's own bot (a ``tune test`` plays two); None: the pool's
    # A game the opponent loses to its clock or a crash is played again (ocean.match.play_pairs),
    # unless the opponent is the studied bot itself with other parameters (head to head): then
    # its failures are the studied bot's own, and stay in the score.
    replay_opponent: bool = True

    @property
    def games(self) -> int:
        return 2 * len(self.seeds)


def plan_batches(*, trial: int, phase: str, panel: Sequence, seeds: Sequence[int], batch_pairs: int,
                 done: Iterable[tuple[str, int]] = (), bot=None, replay_opponent: bool = True) -> list[Batch]:
    """The batches still to play: ``seeds`` against each opponent, minus the (opponent, seed)
    pairs in ``done`` (both games stored), ``batch_pairs`` seeds per batch, opponents in turn.
    ``bot`` and ``replay_opponent``: as ``Batch`` has them."""
    done = set(done)
    chunks_per_opponent = []
    for opponent in panel:
        todo = [s for s in seeds if (opponent.name, s) not in done]
        chunks_per_opponent.append([Batch(trial, phase, opponent, tuple(todo[i:i + batch_pairs]), bot,
                                          replay_opponent)
                                    for i in range(0, len(todo), batch_pairs)])
    out = []
    for i in range(max((len(c) for c in chunks_per_opponent), default=0)):
        out.extend(c[i] for c in chunks_per_opponent if i < len(c))
    return out


def pair_scores_of_rows(opponent: str, rows: Sequence[Mapping]) -> dict[tuple[str, int], float]:
    """(opponent, seed) -> pair score from a batch's rows (two games per seed); a pair with a
    game set aside (the opponent failed it on its clock or by a crash, replays included) is not
    scored."""
    totals: dict[int, list[float]] = defaultdict(list)
    aside = {row["seed"] for row in rows if row.get("set_aside")}
    for row in rows:
        totals[row["seed"]].append({"a": 1.0, "b": 0.0, "draw": 0.5}[row["winner"]])
    return {(opponent, seed): sum(s) / len(s) for seed, s in totals.items() if len(s) == 2 and seed not in aside}


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
