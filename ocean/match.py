"""Paired games between two bots, as tables a study or an arena can store.

Each seed is one map (the referee's map for that seed) played twice with sides swapped,
same game seed: the two games of a pair differ only by who sits where, which cancels most
of the map's luck out of a comparison (common random numbers).

Two in-process bots play inside compiled code. When either bot is an external program the
same pairs are refereed over the text protocol (``ocean.referee``): the program in its own
process under a time control (``ocean.timecontrol``: the game's, or a frozen program's own),
an in-process opponent behind the text door in this process. Both give the same table, plus,
for refereed games, each game's disqualification reasons and each program's answer times.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocean import _match
from ocean import _state as S
from ocean.board import BOARD_SIZE, build_board_kernel
from ocean.bots import BotSpec
from ocean.constants import END_REASONS, OPPONENT_REPLAYS
from ocean.cpus import pinned
from ocean.maps import generate_island_kernel, validate_seed
from ocean.players import open_player
from ocean.referee import referee_players
from ocean.timecontrol import DEFAULT_TIME, TimeControl

__all__ = ["PairResults", "play_pairs", "boards_for_seeds", "STAT_NAMES"]

STAT_NAMES = S.STAT_NAMES


def boards_for_seeds(seeds) -> np.ndarray:
    """One board row per map seed (build once, replay many times)."""
    seeds = [validate_seed(int(s)) for s in seeds]
    boards = np.empty((len(seeds), BOARD_SIZE), dtype=np.int64)
    for i, seed in enumerate(seeds):
        boards[i] = build_board_kernel(generate_island_kernel(np.int64(seed)))
    return boards


@dataclass
class PairResults:
    """Results of ``play_pairs``: row 2i is seed i with bot A as player 0, row 2i+1 the
    same map with A as player 1. ``table`` columns: see ``_match.PAIR_*``."""

    seeds: np.ndarray
    table: np.ndarray
    player_turns: int
    errors: list | None = None  # per game: (A's disqualification reason or None, B's); None: no program
    # per game: (A's answer times or None, B's), each {"first", "max", "mean", "answers"} in ms
    # (None for an in-process bot); None: compiled games, which are not timed
    answer_ms: list | None = None
    # per game: how many times it was played again because B (the opponent) lost it to its clock
    # or a crash, and whether B still did after the last replay while A did not (the game is then
    # set aside: it says nothing about A); None: no replays (compiled games, or none asked for)
    replays: list | None = None
    set_aside: list | None = None

    def error(self, game: int, bot: int) -> str | None:
        """Why bot 0 (A) or 1 (B) was disqualified in game ``game`` (None if it was not)."""
        if self.errors is None:
            return None
        return self.errors[game][bot]

    def __len__(self) -> int:
        return len(self.table)

    @property
    def a_side(self) -> np.ndarray:
        return self.table[:, _match.PAIR_A_SIDE]

    @property
    def winner(self) -> np.ndarray:
        return self.table[:, _match.PAIR_WINNER]

    def score_a(self) -> np.ndarray:
        """Per game: 1 if A won, 0.5 for a draw, 0 if A lost."""
        w = self.winner
        return np.where(w == -1, 0.5, (w == self.a_side).astype(float))

    def lives(self, bot: int) -> np.ndarray:
        """Lives left at the end for bot 0 (A) or 1 (B); -1 if it was disqualified."""
        side = self.a_side if bot == 0 else 1 - self.a_side
        return np.where(side == 0, self.table[:, _match.PAIR_LIFE0], self.table[:, _match.PAIR_LIFE1])

    def stats(self, bot: int) -> dict[str, np.ndarray]:
        """Per-game statistics of bot 0 (A) or 1 (B), by name (``STAT_NAMES``)."""
        side = self.a_side if bot == 0 else 1 - self.a_side
        out = {}
        for k, name in enumerate(STAT_NAMES):
            p0 = self.table[:, _match.PAIR_STATS + k]
            p1 = self.table[:, _match.PAIR_STATS + S.STATS_COUNT + k]
            out[name] = np.where(side == 0, p0, p1)
        return out

    def replayed(self, game: int) -> tuple[int, bool]:
        """(times game ``game`` was played again for B's clock or crash, whether it was set aside)."""
        if self.replays is None:
            return 0, False
        return self.replays[game], bool(self.set_aside[game])

    def answers(self, game: int, bot: int) -> dict | None:
        """Bot 0 (A) or 1 (B)'s answer times in game ``game`` (None if it was not timed)."""
        if self.answer_ms is None:
            return None
        return self.answer_ms[game][bot]

    def rows(self) -> list[dict]:
        """One dict per game: seed, side of A, winner as 'a'/'b'/'draw', lives, turns, end
        reason, disqualification reasons, a program's first, longest and mean answer times in ms
        and its number of answers (``a_answer_first_ms``, ``a_answer_max_ms``, ``a_answer_mean_ms``,
        ``a_answers``, ... None where not timed), how often the game was played again for B's
        clock or crash (``replays``) and whether it was set aside (``set_aside``: B failed every
        time; the game does not count), and each bot's statistics prefixed a_/b_."""
        out = []
        score = self.score_a()
        la, lb = self.lives(0), self.lives(1)
        sa, sb = self.stats(0), self.stats(1)
        for i in range(len(self.table)):
            row = {
                "seed": int(self.seeds[i // 2]),
                "a_side": int(self.a_side[i]),
                "winner": "draw" if score[i] == 0.5 else ("a" if score[i] == 1 else "b"),
                "a_lives": int(la[i]),
                "b_lives": int(lb[i]),
                "turns": int(self.table[i, _match.PAIR_TURNS]),
                "end": END_REASONS[int(self.table[i, _match.PAIR_END])],
                "a_error": self.error(i, 0),
                "b_error": self.error(i, 1),
            }
            row["replays"], row["set_aside"] = self.replayed(i)
            for prefix, bot in (("a", 0), ("b", 1)):
                times = self.answers(i, bot) or {}
                row[f"{prefix}_answer_first_ms"] = times.get("first")
                row[f"{prefix}_answer_max_ms"] = times.get("max")
                row[f"{prefix}_answer_mean_ms"] = times.get("mean")
                row[f"{prefix}_answers"] = times.get("answers")
            row.update({f"a_{k}": int(v[i]) for k, v in sa.items()})
            row.update({f"b_{k}": int(v[i]) for k, v in sb.items()})
            out.append(row)
        return out


def play_pairs(a: BotSpec, b: BotSpec, seeds, boards: np.ndarray | None = None, *,
               time: TimeControl = DEFAULT_TIME, cpu: int | None = None,
               replays: int = OPPONENT_REPLAYS) -> PairResults:
    """Play every seed twice, sides swapped, between bots A and B. A pure function of
    (a, b, seeds) for in-process bots and deterministic programs: a retried batch gives the
    identical table. ``time``: the time control of programs (a frozen program keeps its own;
    in-process bots ignore it). ``cpu``: run the games (the programs and this thread) on that
    CPU, one a worker holds (``ocean.cpus.hold_cpu``). ``replays``: a game B (the opponent)
    loses to its clock or a crash is played again up to this many times, then set aside (0:
    never, e.g. when B is the same bot as A with other parameters: its failures are its own).
    A's own failure always counts: a game A failed is never played again nor set aside, and
    one both failed (at the start) is A's loss when B's failures are forgiven (``replays``)."""
    seeds = np.asarray([validate_seed(int(s)) for s in seeds], dtype=np.int64)
    if a.is_program or b.is_program:
        with pinned(cpu):
            return _refereed_pairs(a, b, seeds, time, cpu, replays)
    if boards is None:
        boards = boards_for_seeds(seeds)
    kinds = np.array([a.kind, b.kind], dtype=np.int64)
    coefs = np.stack([a.vector(), b.vector()])
    table = np.zeros((2 * len(seeds), _match.PAIR_COLUMNS), dtype=np.int64)
    turns = _match.play_pairs(boards, kinds, coefs, seeds, table)
    return PairResults(seeds=seeds, table=table, player_turns=int(turns))


def _referee_once(specs: tuple[BotSpec, BotSpec], seed: int, time: TimeControl, cpu: int | None):
    players = []
    try:
        for spec in specs:
            players.append(open_player(spec, seed, time=time, cpu=cpu))
        return referee_players(seed, players, time=time)
    finally:
        for player in players:
            player.close()


def _winner(state, why, a_side: int, replays: int) -> int:
    """The game's winner as scored: the referee's, except where both lost their answer (both at
    the start, the only answer they give at once) and B's failures are forgiven (``replays``):
    the rules call that a draw, but B's failure says nothing about A and A's own counts, so A
    lost it."""
    if replays and why[a_side] and why[1 - a_side]:
        return 1 - a_side
    return int(state[S.WINNER])


def _refereed_pairs(a: BotSpec, b: BotSpec, seeds: np.ndarray, time: TimeControl, cpu: int | None,
                    replays: int) -> PairResults:
    table = np.zeros((2 * len(seeds), _match.PAIR_COLUMNS), dtype=np.int64)
    errors = []
    answer_ms = []
    replayed, set_aside = [], []
    turns = 0
    for i, seed in enumerate(seeds):
        for a_side in range(2):
            specs = (a, b) if a_side == 0 else (b, a)
            again = 0
            played = _referee_once(specs, int(seed), time, cpu)
            # B lost its answer (late, crashed or closed: ``why``; an illegal line is B's play,
            # kept) and A did not: A's own failure is never played again, whatever B did
            while played.why[1 - a_side] and not played.why[a_side] and again < replays:
                again += 1
                played = _referee_once(specs, int(seed), time, cpu)
            replayed.append(again)
            set_aside.append(bool(again and played.why[1 - a_side] and not played.why[a_side]))
            state = played.game.state
            row = table[2 * i + a_side]
            row[_match.PAIR_A_SIDE] = a_side
            row[_match.PAIR_WINNER] = _winner(state, played.why, a_side, replays)
            row[_match.PAIR_LIFE0] = state[S.player_base(0) + S.LIFE]
            row[_match.PAIR_LIFE1] = state[S.player_base(1) + S.LIFE]
            row[_match.PAIR_END] = state[S.END]
            row[_match.PAIR_TURNS] = state[S.TURN]
            for p in range(2):
                base = S.player_base(p) + S.STATS
                row[_match.PAIR_STATS + p * S.STATS_COUNT:_match.PAIR_STATS + (p + 1) * S.STATS_COUNT] = \
                    state[base:base + S.STATS_COUNT]
            why = played.verdict["disqualified"]
            errors.append((why[a_side], why[1 - a_side]))
            answer_ms.append((played.answer_ms[a_side], played.answer_ms[1 - a_side]))
            turns += int(state[S.TURN])
    return PairResults(seeds=seeds, table=table, player_turns=turns, errors=errors, answer_ms=answer_ms,
                       replays=replayed, set_aside=set_aside)
