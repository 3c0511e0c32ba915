"""``tune learn``: TD(lambda) self-play for the learned bot (``tunable-td``), on Ray.

The run is a sequence of rounds. A round plays ``round_games`` learning games split into
``batches`` Ray tasks, each starting from the round's weights and learning game by game
(``ocean.bots.td._selfplay.learn_games``); the driver then averages the batches' weights (by
their games) into the next checkpoint and stores it with the games it took. Every
``score_every`` games the checkpoint plays the yardstick bots on held-out maps (paired games)
and that score is stored too: the learning curve.

Deterministic for given options: the maps and game seeds of game ``g`` are fixed (``game_seed``),
the round boundaries and batch splits depend on the options only (never on the cores), and the
learning rate on the games played. So a killed run carried on from its last checkpoint ends with
the weights of an undisturbed one. No wall clock decides anything.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

import numpy as np
import ray

from tuning.errors import TuningError
from tuning.storage.learnstore import Checkpoint, LearnStore, Score

__all__ = ["LearnOptions", "POLICY", "LEARN_SEED_BASE", "HELD_OUT_SEED_BASE", "SCHEDULES", "OPPONENTS",
           "game_seed", "held_out_seeds", "learning_rate", "run_learn", "starting_weights", "learn_batch", "score_task",
           "split_even"]

POLICY = "tunable-td"
# Learning maps: far above every seed bank of the lab (arenas start at 1, studies' banks are
# small integers), so the yardstick and `ocean arena` play maps the learner never saw.
LEARN_SEED_BASE = 4_000_000_000_000
RUN_SEED_STRIDE = 10_000_000_000  # games per --seed before two runs' maps could meet
HELD_OUT_SEED_BASE = 7_000_000_000_000  # the yardstick's maps, the same for every checkpoint
SCHEDULES = ("constant", "harmonic")
OPPONENTS = ("self", "tunable-v3")
YARDSTICKS = ("patient-v1", "tunable-v3")


@dataclass(frozen=True)
class LearnOptions:
    """What a run is: everything but ``games`` (the target, which a later run may raise) is
    stored and must match when the run is carried on."""

    games: int
    epsilon: float = 0.3
    lam: float = 0.8
    learning_rate: float = 0.005
    schedule: str = "harmonic"
    decay_games: int = 50_000  # harmonic: the rate halves after this many games
    start: dict = field(default_factory=dict)  # name -> weight; empty: all zero
    opponents: tuple[str, ...] = ("self",)  # game g plays opponents[g % len]
    round_games: int = 1000
    batches: int = 2
    seed: int = 0
    score_every: int = 10_000  # 0: no learning curve
    score_maps: int = 100
    yardsticks: tuple[str, ...] = YARDSTICKS

    def definition(self) -> dict:
        d = asdict(self)
        d["opponents"] = list(self.opponents)
        d["yardsticks"] = list(self.yardsticks)
        return d

    def check(self) -> None:
        """One-line ``TuningError`` for the first option out of range."""
        problems = [
            (self.games < 1, f"--games is {self.games}; give a positive number of self-play games"),
            (not 0.0 <= self.epsilon <= 1.0, f"--epsilon is {self.epsilon}; give a chance in [0, 1]"),
            (not 0.0 <= self.lam <= 1.0, f"--lambda is {self.lam}; give a number in [0, 1]"),
            (not self.learning_rate > 0.0, f"--learning-rate is {self.learning_rate}; give a positive number"),
            (self.schedule not in SCHEDULES, f"--schedule is {self.schedule!r}; choose one of {', '.join(SCHEDULES)}"),
            (self.decay_games < 1, f"--decay-games is {self.decay_games}; give a positive number of games"),
            (not self.opponents or any(o not in OPPONENTS for o in self.opponents),
             f"--opponents is {','.join(self.opponents)!r}; give a comma-separated list of {', '.join(OPPONENTS)}"),
            (self.round_games < 1, f"--round-games is {self.round_games}; give a positive number of games"),
            (not 1 <= self.batches <= self.round_games,
             f"--batches is {self.batches}; give a number from 1 to --round-games ({self.round_games})"),
            (not 0 <= self.seed < 100, f"--seed is {self.seed}; give an integer from 0 to 99"),
            (self.score_every < 0, f"--score-every is {self.score_every}; give 0 (no curve) or a number of games"),
            (self.score_maps < 1, f"--score-maps is {self.score_maps}; give a positive number of maps"),
        ]
        for bad, message in problems:
            if bad:
                raise TuningError(message)


def starting_weights(start: str | None) -> dict[str, float]:
    """The weights a run starts from: all zero (``None`` or "zero"), or a coefficient file of
    the learned bot (its path)."""
    from ocean.bots.coefficients import read_params_file, registry

    if start is None or start == "zero":
        return {c.name: 0.0 for c in registry(POLICY)}
    policy, values = read_params_file(start)
    if policy != POLICY:
        raise TuningError(f"--start {start}: a coefficient file of {policy!r}; give one of {POLICY!r} (bot = "
                          f"\"{POLICY}\", as tune learn writes) or 'zero'")
    return values


def game_seed(seed: int, g: int) -> int:
    """Map and game seed of learning game ``g`` of a run with ``--seed seed``."""
    return LEARN_SEED_BASE + seed * RUN_SEED_STRIDE + g


def held_out_seeds(maps: int) -> list[int]:
    """The yardstick's maps (the learner never plays them)."""
    return [HELD_OUT_SEED_BASE + i for i in range(maps)]


def learning_rate(options: LearnOptions, games_done: int) -> float:
    """The rate of the round starting after ``games_done`` games."""
    if options.schedule == "constant":
        return options.learning_rate
    return options.learning_rate / (1.0 + games_done / options.decay_games)


def learn_batch(weights: Sequence[float], seeds: Sequence[int], opponents: Sequence[int], epsilon: float,
                alpha: float, lam: float) -> tuple[list[float], int, float, int]:
    """Play and learn from one batch of games (``ocean.bots.td._selfplay.learn_games``) from
    ``weights``: (the weights after it, player-turns, summed squared TD error, games)."""
    from ocean.bots.td._selfplay import learn_games
    from ocean.bots.td.coefficients import WEIGHT_BOUND
    from ocean.match import boards_for_seeds

    w = np.array(weights, dtype=np.float64)
    boards = boards_for_seeds(list(seeds))
    results = np.zeros((len(seeds), 4))
    turns = learn_games(boards, np.array(seeds, dtype=np.int64), np.array(opponents, dtype=np.int64), w,
                        float(epsilon), float(alpha), float(lam), WEIGHT_BOUND, results)
    return w.tolist(), int(turns), float(results[:, 3].sum()), len(seeds)


def score_batch(weights: dict, opponent: str | dict, seeds: Sequence[int]) -> list[float]:
    """Pair scores (mean of both sides' games) of the learned bot with ``weights`` against
    ``opponent`` on ``seeds``: a bot's name, or other weights of the learned bot (self-play)."""
    from ocean.bots import BotSpec, resolve_bot
    from ocean.match import play_pairs

    other = BotSpec("other", POLICY, dict(opponent)) if isinstance(opponent, dict) else resolve_bot(opponent)
    result = play_pairs(BotSpec("learned", POLICY, dict(weights)), other, list(seeds))
    scores = result.score_a()
    return [float((scores[2 * i] + scores[2 * i + 1]) / 2) for i in range(len(seeds))]


_learn_task = ray.remote(num_cpus=1, max_retries=3)(learn_batch)
score_task = ray.remote(num_cpus=1, max_retries=3)(score_batch)


def _opponent_codes(options: LearnOptions, first: int, count: int) -> list[int]:
    from ocean.bots.td._selfplay import OPPONENTS as CODES

    return [CODES[options.opponents[(first + i) % len(options.opponents)]] for i in range(count)]


def split_even(total: int, parts: int) -> list[tuple[int, int]]:
    """(offset, count) of ``parts`` near-equal contiguous slices of ``total``."""
    parts = min(parts, total)
    return [(total * i // parts, total * (i + 1) // parts - total * i // parts) for i in range(parts)]


def _score_rounds(options: LearnOptions, checkpoints: list[Checkpoint], scored: set[tuple[int, str]]):
    """(checkpoint, yardstick) pairs due a score and not stored yet: round 0 and each checkpoint
    that crossed a multiple of ``score_every``, and the last one."""
    if options.score_every == 0 or not checkpoints:
        return []
    due = []
    for i, cp in enumerate(checkpoints):
        crossed = cp.round == 0 or (i > 0 and cp.games // options.score_every
                                    > checkpoints[i - 1].games // options.score_every)
        if crossed or i == len(checkpoints) - 1 and cp.games >= options.games:
            due.extend((cp, y) for y in options.yardsticks if (cp.round, y) not in scored)
    return due


def score_checkpoint(store: LearnStore, options: LearnOptions, cp: Checkpoint, yardstick: str, parts: int) -> Score:
    """Play checkpoint ``cp`` against ``yardstick`` on the held-out maps (Ray tasks) and store it."""
    from ocean.stats import estimate

    seeds = held_out_seeds(options.score_maps)
    refs = [score_task.remote(cp.weights, yardstick, seeds[o:o + n]) for o, n in split_even(len(seeds), parts)]
    pairs = [s for part in ray.get(refs) for s in part]
    e = estimate(pairs)
    score = Score(cp.round, cp.games, yardstick, len(seeds), e.mean, e.low, e.high)
    store.add_score(score)
    return score


def run_learn(store: LearnStore, options: LearnOptions, *, parallel: int,
              on_round: Callable[[Checkpoint], None] = lambda cp: None,
              on_score: Callable[[Score], None] = lambda s: None) -> Checkpoint:
    """Carry the run on from its last checkpoint (round 0: the starting weights) until
    ``options.games`` self-play games are played, scoring the curve as it goes. ``parallel``:
    Ray tasks to spread a score over (never changes a result). Returns the last checkpoint."""
    from ocean.bots.coefficients import names

    order = names(POLICY)
    cp = store.last_checkpoint()
    if cp is None:
        cp = Checkpoint(0, 0, {n: float(options.start.get(n, 0.0)) for n in order}, 0.0, 0, 0.0)
        store.add_checkpoint(cp)
    if set(cp.weights) != set(order):
        changed = ", ".join(sorted(set(cp.weights) ^ set(order)))
        raise TuningError(f"learning run {store.name!r} was learned with other features ({changed} differ from "
                          f"{POLICY}'s now); start a new run under another name")
    history = store.checkpoints()
    scored = {(s.round, s.opponent) for s in store.scores()}
    for due, yardstick in _score_rounds(options, history, scored):
        on_score(score_checkpoint(store, options, due, yardstick, parallel))
        scored.add((due.round, yardstick))
    while cp.games < options.games:
        started = time.perf_counter()  # reported only
        n = min(options.round_games, options.games - cp.games)
        alpha = learning_rate(options, cp.games)
        w = [cp.weights[k] for k in order]
        refs = []
        for offset, count in split_even(n, options.batches):
            first = cp.games + offset
            seeds = [game_seed(options.seed, first + i) for i in range(count)]
            refs.append(_learn_task.remote(w, seeds, _opponent_codes(options, first, count), options.epsilon, alpha,
                                           options.lam))
        try:
            parts = ray.get(refs)
        except ray.exceptions.RayError as exc:
            raise TuningError(f"a learning batch failed on Ray ({type(exc).__name__}); run the same command again: "
                              "it carries on from the last checkpoint") from None
        total = sum(p[3] for p in parts)
        averaged = np.zeros(len(order))
        for weights, _, _, count in parts:
            averaged += np.array(weights) * (count / total)
        turns = sum(p[1] for p in parts)
        cp = Checkpoint(cp.round + 1, cp.games + n, dict(zip(order, map(float, averaged))),
                        sum(p[2] for p in parts) / max(turns, 1), turns, time.perf_counter() - started)
        store.add_checkpoint(cp)
        history.append(cp)
        on_round(cp)
        for due, yardstick in _score_rounds(options, history, scored):
            on_score(score_checkpoint(store, options, due, yardstick, parallel))
            scored.add((due.round, yardstick))
    return cp
