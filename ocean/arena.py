"""``ocean arena``: a round robin of paired games between in-process bots, with a
win/draw/loss matrix, 95% intervals and per-bot statistics.

Every matchup plays the same maps (seeds ``seed .. seed + maps - 1``), each twice with
sides swapped. A pair of games is the independent unit: intervals are over pair scores.
"""
from __future__ import annotations

import math
import os
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations

import numpy as np

from ocean.bots import BotSpec
from ocean.match import PairResults, play_pairs

__all__ = ["run_arena", "pair_interval", "BOT_STAT_NAMES"]

BOT_STAT_NAMES = ("game_turns", "surfaces", "torpedoes", "torpedo_hit_rate", "damage_dealt",
                  "mine_damage_taken", "torpedo_damage_taken", "self_damage", "silences", "mines",
                  "triggers", "sonars")
_CHUNK = 25  # maps per task: small enough for a smooth progress bar


def pair_interval(scores: np.ndarray) -> tuple[float, float, float]:
    """Mean score and 95% interval from per-game scores in pair order (2i, 2i+1): the
    pairs are independent, the two games of a pair are not."""
    pairs = scores.reshape(-1, 2).mean(axis=1)
    n = len(pairs)
    mean = float(pairs.mean()) if n else 0.0
    if n < 2:
        return mean, 0.0, 1.0
    half = 1.96 * float(pairs.std(ddof=1)) / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def _play_chunk(args: tuple) -> tuple[int, int, int, np.ndarray, np.ndarray]:
    i, j, lo, a, b, seeds = args
    result = play_pairs(a, b, seeds)
    return i, j, lo, result.table, result.seeds


def _warm_up() -> None:
    from ocean.bots import resolve_bot

    play_pairs(resolve_bot("tunable"), resolve_bot("random"), [1])


class _Tally:
    """Per-bot sums over every game it played."""

    def __init__(self, names: list[str]):
        self.sums = {name: {k: 0.0 for k in BOT_STAT_NAMES} for name in names}
        self.games = {name: 0 for name in names}

    def add(self, name: str, result: PairResults, bot: int) -> None:
        s = result.stats(bot)
        t = self.sums[name]
        t["game_turns"] += float(result.table[:, 5].sum())
        for key in ("surfaces", "torpedoes", "damage_dealt", "mine_damage_taken", "torpedo_damage_taken",
                    "self_damage", "silences", "mines", "triggers", "sonars"):
            t[key] += float(s[key].sum())
        t["torpedo_hit_rate"] += float(s["torpedo_hits"].sum())  # divided by torpedoes at the end
        self.games[name] += len(result)

    def report(self) -> dict:
        out = {}
        for name, t in self.sums.items():
            g = max(self.games[name], 1)
            row = {k: round(v / g, 3) for k, v in t.items() if k != "torpedo_hit_rate"}
            row["torpedo_hit_rate"] = round(t["torpedo_hit_rate"] / t["torpedoes"], 3) if t["torpedoes"] else None
            row["games"] = self.games[name]
            out[name] = {k: row[k] for k in ("games",) + BOT_STAT_NAMES}
        return out


def run_arena(bots: list[BotSpec], maps: int, *, seed: int = 1, workers: int = 1, progress: bool = True) -> dict:
    """Round robin over ``bots``: every pair of bots plays ``maps`` maps twice (sides
    swapped). Returns {"bots", "games_per_matchup", "matrix", "statistics"}; matrix[a][b]
    holds a's wins, draws, losses against b, its score and the 95% interval."""
    from rich.progress import Progress

    names = [b.name for b in bots]
    if len(set(names)) != len(names):
        raise ValueError(f"each bot may appear once in an arena, got {', '.join(names)}")
    seeds = np.arange(seed, seed + maps, dtype=np.int64)
    tasks = []
    for i, j in combinations(range(len(bots)), 2):
        for lo in range(0, maps, _CHUNK):
            tasks.append((i, j, lo, bots[i], bots[j], seeds[lo:lo + _CHUNK]))
    tables = {}
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task(f"{len(names)} bots, {maps} maps per matchup", total=len(tasks) * 2 * _CHUNK)
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers, initializer=_warm_up) as pool:
                for i, j, lo, table, chunk_seeds in pool.map(_play_chunk, tasks):
                    tables[(i, j, lo)] = PairResults(chunk_seeds, table, 0)
                    bar.update(task, advance=len(table))
        else:
            for t in tasks:
                i, j, lo, table, chunk_seeds = _play_chunk(t)
                tables[(i, j, lo)] = PairResults(chunk_seeds, table, 0)
                bar.update(task, advance=len(table))
    matrix = {a: {} for a in names}
    tally = _Tally(names)
    for i, j in combinations(range(len(bots)), 2):
        parts = [tables[(i, j, lo)] for lo in range(0, maps, _CHUNK)]
        result = PairResults(np.concatenate([p.seeds for p in parts]), np.concatenate([p.table for p in parts]), 0)
        tally.add(names[i], result, 0)
        tally.add(names[j], result, 1)
        score = result.score_a()
        for a, b, s in ((names[i], names[j], score), (names[j], names[i], 1.0 - score)):
            mean, low, high = pair_interval(s)
            matrix[a][b] = {"wins": int((s == 1).sum()), "draws": int((s == 0.5).sum()), "losses": int((s == 0).sum()),
                            "score": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]}
    return {"bots": names, "games_per_matchup": 2 * maps, "seeds": [int(seed), int(seed + maps - 1)],
            "matrix": matrix, "statistics": tally.report()}


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
