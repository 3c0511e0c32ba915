"""``ocean track``: replay a recorded game, run both players' trackers turn by turn, and
report how many cells and states each believes the other may be on, whether the truth is
among them, the probability given to the true cell, and what each update cost."""
from __future__ import annotations

import time
from statistics import median

import numpy as np

from ocean import _state as S
from ocean.constants import CELLS, ERR_NONE, ERR_TIMEOUT
from ocean.game import Game, state_snapshot
from ocean.protocol import parse_start
from ocean.tracking._driver import observe_from_state, truth_of
from ocean.tracking._kernel import reset_tracker
from ocean.tracking._layout import DEFAULT_CAP, H_COLLAPSES, H_COUNT, H_FALLBACKS, new_tracker
from ocean.tracking._query import candidate_cells, cell_probabilities

__all__ = ["TRACKER_KINDS", "track_replay", "replay_beliefs", "summarize"]

TRACKER_KINDS = ("safe", "assumption")


class _Trackers:
    """Both players' safe and assumption trackers over one game."""

    def __init__(self, board: np.ndarray, cap: int):
        self.board = board
        self.arrays = [[new_tracker(cap, assume=False), new_tracker(cap, assume=True)] for _ in range(2)]
        for pair in self.arrays:
            for trk in pair:
                reset_tracker(trk, board)
        self.probs = np.zeros(CELLS)
        self.scratch = np.zeros(CELLS, dtype=np.int64)
        self._warm_up(cap)

    def _warm_up(self, cap: int) -> None:
        """Load the compiled update before the first timed call."""
        spare = [new_tracker(cap, assume=False), new_tracker(cap, assume=True)]
        for trk in spare:
            reset_tracker(trk, self.board)
        observe_from_state(spare[0], spare[1], self.board, np.zeros(S.STATE_SIZE, dtype=np.int64), 0)

    def update(self, state: np.ndarray, observer: int) -> float:
        """Feed the observer's trackers; returns the update time in microseconds."""
        safe, assume = self.arrays[observer]
        start = time.perf_counter_ns()
        observe_from_state(safe, assume, self.board, state, observer)
        return (time.perf_counter_ns() - start) / 1000.0

    def view(self, state: np.ndarray, observer: int) -> dict:
        """What the observer's trackers hold about its opponent, checked against the truth."""
        target = 1 - observer
        true_cell = int(state[_cell_offset(target)])
        row = {}
        for kind, trk in zip(TRACKER_KINDS, self.arrays[observer]):
            cell_probabilities(trk, self.probs)
            row[kind] = {
                "cells": int(candidate_cells(trk, self.scratch)),
                "states": int(trk[H_COUNT]),
                "truth_inside": bool(truth_of(state, self.board, trk, target) >= 0),
                "p_true_cell": round(float(self.probs[true_cell]), 4),
                "cap_reached": int(trk[H_COLLAPSES]),
            }
        row["assumption"]["fallbacks"] = int(self.arrays[observer][1][H_FALLBACKS])
        return row

    def beliefs(self, observer: int) -> list[float]:
        """Per cell, the assumption tracker's probability of the opponent being there."""
        cell_probabilities(self.arrays[observer][1], self.probs)
        return [round(float(p), 6) for p in self.probs]


def _cell_offset(player: int) -> int:
    return S.player_base(player) + S.CELL


def _start(game: Game, data: dict) -> None:
    answers = data.get("start_output") or [None, None]
    if answers[0] is None or answers[1] is None:
        errors = [ERR_TIMEOUT if a is None else ERR_NONE for a in answers]
        cells = [parse_start(a, game.board)[0] if a is not None else -1 for a in answers]
        game.start_with_errors(cells[0], errors[0], cells[1], errors[1])
    else:
        game.start(answers[0], answers[1])


def _check_turn(game: Game, entry: dict, index: int) -> None:
    if entry.get("player") != game.active:
        raise ValueError(f"replay turn {index + 1}: player {entry.get('player')} plays where the rules give the turn to player {game.active}")
    actions = entry.get("actions") or []
    if actions and actions[-1].get("state") != state_snapshot(game.state):
        raise ValueError(f"replay turn {index + 1}: the recorded state differs from this engine's; was it edited?")


def _walk(data: dict, cap: int, on_turn) -> Game:
    """Re-play a replay's lines through the engine, calling on_turn(game, trackers, index,
    update_us) at the start of every turn after the active player's trackers updated."""
    try:
        game = Game(rows=data["map"])
        turns = data["turns"]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"replay has no usable map or turns ({exc})") from None
    _start(game, data)
    trackers = _Trackers(game.board, cap)
    for index, entry in enumerate(turns):
        if not game.begin_turn():
            raise ValueError(f"replay has {len(turns)} turns but the game ended after {index}")
        observer = game.active
        update_us = trackers.update(game.state, observer)
        on_turn(game, trackers, index, update_us)
        output = entry.get("output")
        if output is None:
            game.timeout(observer)
        else:
            game.play_text(str(output))
        _check_turn(game, entry, index)
    return game


def track_replay(data: dict, cap: int = DEFAULT_CAP) -> dict:
    """Per-turn tracker report of a replay (``turns``) and its summary (``summary``)."""
    rows = []

    def on_turn(game, trackers, index, update_us):
        row = {"turn": index + 1, "observer": game.active, "update_us": round(update_us, 2)}
        row.update(trackers.view(game.state, game.active))
        rows.append(row)

    _walk(data, cap, on_turn)
    return {"turns": rows, "summary": summarize(rows)}


def summarize(rows: list[dict]) -> dict:
    """Figures over per-turn rows: turns checked, truth lost per tracker kind, candidate
    cells (median over turns, and after each player's 10th/20th/40th turn), update cost."""
    times = np.array([r["update_us"] for r in rows]) if rows else np.zeros(1)
    out = {
        "turns_checked": len(rows),
        "truth_lost": {k: sum(not r[k]["truth_inside"] for r in rows) for k in TRACKER_KINDS},
        "median_candidate_cells": median(r["safe"]["cells"] for r in rows) if rows else 0,
        "median_candidate_cells_by_tracker": {k: (median(r[k]["cells"] for r in rows) if rows else 0) for k in TRACKER_KINDS},
        "mean_p_true_cell": {k: (round(float(np.mean([r[k]["p_true_cell"] for r in rows])), 4) if rows else 0.0) for k in TRACKER_KINDS},
        "update_us_p50": round(float(np.percentile(times, 50)), 2),
        "update_us_p99": round(float(np.percentile(times, 99)), 2),
        "update_us_max": round(float(times.max()), 2),
        "cap_reached_turns": sum(r["safe"]["cap_reached"] > 0 for r in rows),
    }
    for n in (10, 20, 40):
        # The observer's n-th turn is game turn 2n - 1 (player 0) or 2n (player 1).
        cells = [r["safe"]["cells"] for r in rows if (r["turn"] + 1) // 2 == n]
        out[f"candidate_cells_turn_{n}"] = median(cells) if cells else None
    return out


def replay_beliefs(data: dict, cap: int = DEFAULT_CAP) -> list:
    """For each turn of a replay, [player 0's view, player 1's view] of where the opponent
    is (225 probabilities from the assumption tracker), or None for the player not to move
    (a view is only updated on its owner's turn)."""
    out = []

    def on_turn(game, trackers, index, update_us):
        views = [None, None]
        views[game.active] = trackers.beliefs(game.active)
        out.append(views)

    _walk(data, cap, on_turn)
    return out
