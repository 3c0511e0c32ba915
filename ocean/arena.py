"""``ocean arena``: a round robin of paired games between bots (in-process bots and programs
alike), with a win/draw/loss matrix, 95% intervals, Elo and per-bot statistics.

Every matchup plays the same maps (seeds ``seed .. seed + maps - 1``), each twice with
sides swapped. A pair of games is the independent unit: intervals are over pair scores
(``ocean.stats``). Games with a program are refereed as in studies, under the arena's time
control (a frozen program keeps its own); each task holds a CPU of its own for its games
(``ocean.cpus.hold_cpu``), so concurrent games never steal each other's time. Every frozen bot
is checked (``ocean.fingerprint.check_frozen``) before anything is played.
"""
from __future__ import annotations

import contextlib
import os
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations

import numpy as np

from ocean.bots import BotSpec
from ocean.cpus import AFFINITY, NONE, PIN, hold_cpu
from ocean.duel import DUEL_NAMES, DuelTally
from ocean.fingerprint import check_frozen
from ocean.match import PairResults, play_pairs
from ocean.stats import elo_estimate, pair_estimate
from ocean.timecontrol import DEFAULT_TIME, TimeControl

__all__ = ["run_arena", "arena_lines", "pair_interval", "BOT_STAT_NAMES", "default_workers"]

BOT_STAT_NAMES = ("game_turns", "surfaces", "torpedoes", "torpedo_hit_rate", "damage_dealt",
                  "mine_damage_taken", "torpedo_damage_taken", "self_damage", "silences", "mines",
                  "triggers", "sonars", "disqualified", "first_answer_max_ms", "answer_max_ms", "answer_mean_ms",
                  # the duel (ocean.duel; torpedoes and mine_damage_taken are above)
                  *(k for k in DUEL_NAMES if k not in ("torpedoes", "mine_damage_taken")))
_CHUNK = 25  # maps per task between in-process bots: small enough for a smooth progress bar
_PROGRAM_CHUNK = 1  # maps per task with a program: a game costs seconds, tasks stay short


def pair_interval(scores: np.ndarray) -> tuple[float, float, float]:
    """Mean score and 95% interval from per-game scores in pair order (2i, 2i+1): the
    pairs are independent, the two games of a pair are not (``ocean.stats.pair_estimate``:
    Wilson's interval where the pairs show no spread)."""
    e = pair_estimate(scores)
    return (0.0 if e.n == 0 else e.mean), e.low, e.high


def _play_chunk(args: tuple) -> tuple[int, int, int, PairResults]:
    i, j, lo, a, b, seeds, time, affinity = args
    with contextlib.nullcontext(None) if affinity == NONE else hold_cpu(pin=affinity == PIN) as cpu:
        # Neither bot of a matchup is the one studied: a game either loses to its clock or a crash
        # is its loss, never played again (as `tune test` scores both bots).
        result = play_pairs(a, b, seeds, time=time, cpu=cpu, replays=0)
    return i, j, lo, result


def _warm_up() -> None:
    from ocean.bots import resolve_bot

    play_pairs(resolve_bot("tunable"), resolve_bot("random"), [1])


_SUMMED = ("surfaces", "torpedoes", "damage_dealt", "mine_damage_taken", "torpedo_damage_taken", "self_damage",
           "silences", "mines", "triggers", "sonars")


class _Tally:
    """Per-bot sums over every game it played."""

    def __init__(self, names: list[str]):
        self.sums = {name: {k: 0.0 for k in ("game_turns", "torpedo_hits", *_SUMMED)} for name in names}
        self.games = {name: 0 for name in names}
        self.duels = {name: DuelTally() for name in names}
        self.disqualified = {name: 0 for name in names}
        self.first_error = {name: None for name in names}
        # a program's answers: the longest first answer and later answer, their sum and count
        self.answers = {name: None for name in names}

    def add(self, name: str, result: PairResults, bot: int) -> None:
        s = result.stats(bot)
        t = self.sums[name]
        t["game_turns"] += float(result.table[:, 5].sum())
        for key in _SUMMED:
            t[key] += float(s[key].sum())
        t["torpedo_hits"] += float(s["torpedo_hits"].sum())
        self.games[name] += len(result)
        self.duels[name].add(result, bot)
        for game in range(len(result)):
            why = result.error(game, bot)
            if why:
                self.disqualified[name] += 1
                self.first_error[name] = self.first_error[name] or why
            times = result.answers(game, bot)
            if times:
                first, longest, total, count = self.answers[name] or (0.0, 0.0, 0.0, 0)
                later = times["answers"] - 1
                self.answers[name] = (max(first, times["first"]), max(longest, times["max"] or 0.0),
                                      total + (times["mean"] or 0.0) * later, count + later)

    def report(self) -> dict:
        out = {}
        for name, t in self.sums.items():
            g = max(self.games[name], 1)
            row = {k: round(t[k] / g, 3) for k in ("game_turns", *_SUMMED)}
            row["torpedo_hit_rate"] = round(t["torpedo_hits"] / t["torpedoes"], 3) if t["torpedoes"] else None
            row["games"] = self.games[name]
            row["disqualified"] = self.disqualified[name]
            answers = self.answers[name]
            row["first_answer_max_ms"] = None if answers is None else round(answers[0], 1)
            row["answer_max_ms"] = None if answers is None or not answers[3] else round(answers[1], 1)
            row["answer_mean_ms"] = None if answers is None or not answers[3] else round(answers[2] / answers[3], 2)
            row.update(self.duels[name].figures())
            out[name] = {k: row[k] for k in ("games",) + BOT_STAT_NAMES}
            out[name]["first_error"] = self.first_error[name]
        return out


def _joined(parts: list[PairResults]) -> PairResults:
    """One matchup's chunks as one result."""
    refereed = parts[0].errors is not None
    return PairResults(np.concatenate([p.seeds for p in parts]), np.concatenate([p.table for p in parts]),
                       sum(p.player_turns for p in parts),
                       errors=[e for p in parts for e in p.errors] if refereed else None,
                       answer_ms=[t for p in parts for t in p.answer_ms] if refereed else None)


def _rounded(x: float) -> float | None:
    return None if not np.isfinite(x) else round(float(x), 1)


def run_arena(bots: list[BotSpec], maps: int, *, seed: int = 1, workers: int = 1, progress: bool = True,
              time: TimeControl = DEFAULT_TIME, affinity: str = PIN) -> dict:
    """Round robin over ``bots``: every pair of bots plays ``maps`` maps twice (sides
    swapped). Programs play under ``time`` (a frozen program under its own). ``affinity``
    (``ocean.cpus.AFFINITY``): ``pin``, each task holds a CPU and its games run on it; ``slot``,
    each task holds a CPU but its games run anywhere; ``none``. Every frozen bot is checked first
    (``FingerprintError``, one line). Returns {"bots", "games_per_matchup", "seeds", "time",
    "affinity", "matrix", "statistics"}; matrix[a][b] holds a's wins, draws, losses against b,
    its score with the 95% interval, the same in Elo and its duel figures against b (``ocean.duel``);
    statistics[bot] its per-game figures, disqualifications, for a program its answer times in
    ms, and its duel figures over all its games."""
    from rich.progress import Progress

    names = [b.name for b in bots]
    if len(set(names)) != len(names):
        raise ValueError(f"each bot may appear once in an arena, got {', '.join(names)}")
    if affinity not in AFFINITY:
        raise ValueError(f"affinity {affinity!r}: choose one of {', '.join(AFFINITY)}")
    for bot in bots:
        check_frozen(bot)  # a frozen bot that changed is never silently scored
    seeds = np.arange(seed, seed + maps, dtype=np.int64)
    tasks = []
    for i, j in combinations(range(len(bots)), 2):
        chunk = _PROGRAM_CHUNK if bots[i].is_program or bots[j].is_program else _CHUNK
        for lo in range(0, maps, chunk):
            tasks.append((i, j, lo, bots[i], bots[j], seeds[lo:lo + chunk], time, affinity))
    results = {}
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task(f"{len(names)} bots, {maps} maps per matchup", total=sum(2 * len(t[5]) for t in tasks))
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers, initializer=_warm_up) as pool:
                for i, j, lo, result in pool.map(_play_chunk, tasks):
                    results.setdefault((i, j), []).append(result)
                    bar.update(task, advance=len(result))
        else:
            for t in tasks:
                i, j, lo, result = _play_chunk(t)
                results.setdefault((i, j), []).append(result)
                bar.update(task, advance=len(result))
    matrix = {a: {} for a in names}
    tally = _Tally(names)
    for i, j in combinations(range(len(bots)), 2):
        result = _joined(results[(i, j)])
        tally.add(names[i], result, 0)
        tally.add(names[j], result, 1)
        score = result.score_a()
        for a, b, s, bot in ((names[i], names[j], score, 0), (names[j], names[i], 1.0 - score, 1)):
            e = pair_estimate(s)
            rating = elo_estimate(e)
            duel = DuelTally()
            duel.add(result, bot)
            matrix[a][b] = {"wins": int((s == 1).sum()), "draws": int((s == 0.5).sum()), "losses": int((s == 0).sum()),
                            "score": round(e.mean, 4), "ci95": [round(e.low, 4), round(e.high, 4)],
                            "elo": [_rounded(rating.mean), _rounded(rating.low), _rounded(rating.high)],
                            "duel": duel.figures()}
    return {"bots": names, "games_per_matchup": 2 * maps, "seeds": [int(seed), int(seed + maps - 1)],
            "time": time.as_json(), "affinity": affinity, "matrix": matrix, "statistics": tally.report()}


def arena_lines(report: dict) -> list[str]:
    """``run_arena``'s report as text: the score matrix, Elo, per-bot statistics, and each
    matchup's duel figures side by side."""
    import math

    from ocean.stats import format_elo

    names = report["bots"]
    width = max(len(n) for n in names) + 2
    lines = [f"score of the row bot against the column bot, {report['games_per_matchup']} games each (95% interval)",
             " " * width + "".join(f"{n:>22}" for n in names)]
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append(f"{'-':>22}")
            else:
                m = report["matrix"][a][b]
                cells.append(f"{m['score']:>8.3f} [{m['ci95'][0]:.2f},{m['ci95'][1]:.2f}] ")
        lines.append(f"{a:<{width}}" + "".join(cells))
    lines += ["", "in Elo (row minus column, 95% interval)"]
    for a in names:
        for b in names:
            if a < b:
                mean, low, high = report["matrix"][a][b]["elo"]  # None: an open end (every pair won or lost)
                low = -math.inf if low is None else low
                high = math.inf if high is None else high
                lines.append(f"  {a} vs {b}: {format_elo(mean, low, high)}")
    stats = report["statistics"]
    keys = [k for k in next(iter(stats.values())) if k != "first_error"]
    label = max(len(k) for k in keys) + 2

    def row(key: str, values) -> str:
        return f"{key:<{label}}" + "".join(f"{'-' if v is None else v:>{width}}" for v in values)

    lines += ["", f"{'per game':<{label}}" + "".join(f"{n:>{width}}" for n in names)]
    lines += [row(key, [stats[n][key] for n in names]) for key in keys]
    for n in names:
        if stats[n]["disqualified"]:
            lines.append(f"{n} disqualified in {stats[n]['disqualified']} games; first: {stats[n]['first_error']}")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            duels = (report["matrix"][a][b]["duel"], report["matrix"][b][a]["duel"])
            lines += ["", f"{'duel: ' + a + ' vs ' + b:<{label}}{a:>{width}}{b:>{width}}"]
            lines += [row(key, [d[key] for d in duels]) for key in duels[0]]
    return lines


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
