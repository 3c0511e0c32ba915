"""``ocean bench --tracking``: what the trackers know and what they cost, measured on
whole games, never asserted in tests.

Two workloads: (1) games between the in-process bots, both players tracking each other
as bots do; (2) a stress walk where the tracked submarine plays SILENCE then MOVE every
single turn (more often than charges allow: worse than any real game), which drives the
tracker to its cap and times the updates that hit it.
"""
from __future__ import annotations

import random
import time

import numpy as np

from ocean import _match, _rules
from ocean import _state as S
from ocean.board import SECTOR, STEP, WATER
from ocean.bots import resolve_bot
from ocean.constants import (
    ACT_MOVE, ACT_SILENCE, ACT_SURFACE, ACTION_FIELDS, CELLS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS,
    SONAR_NA, START_LIFE,
)
from ocean.match import boards_for_seeds
from ocean.tracking._driver import observe_from_state, truth_of
from ocean.tracking._kernel import observe, reset_tracker
from ocean.tracking._layout import DEFAULT_CAP, H_COLLAPSES, new_tracker
from ocean.tracking._query import candidate_cells, truth_inside

__all__ = ["run_tracking_bench"]

_MATCHUPS = (("random", "random"), ("chaser", "random"))


def _percentiles(values: list[float]) -> dict:
    arr = np.array(values) if values else np.zeros(1)
    return {"p50": round(float(np.percentile(arr, 50)), 2), "p99": round(float(np.percentile(arr, 99)), 2),
            "max": round(float(arr.max()), 2), "count": len(values)}


def _game_workload(seeds, bots, cap, times, at_cap, cells_by_turn, lost) -> None:
    specs = [resolve_bot(b) for b in bots]
    kinds = np.array([s.kind for s in specs], dtype=np.int64)
    coefs = np.stack([s.vector() for s in specs])
    boards = boards_for_seeds(seeds)
    trackers = [[new_tracker(cap, False), new_tracker(cap, True)] for _ in range(2)]
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    state = _rules.new_state()
    no_trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
    scratch = np.zeros(CELLS, dtype=np.int64)
    for board, seed in zip(boards, seeds):
        _match.play_game(board, kinds, coefs, np.int64(seed), state, log, counts)
        _rules.start_game(state, board, counts[-2], 0, counts[-1], 0)
        for pair in trackers:
            for trk in pair:
                reset_tracker(trk, board)
        t = 0
        while _rules.begin_turn(state):
            p = int(state[S.ACTIVE])
            safe, assume = trackers[p]
            before = safe[H_COLLAPSES]
            start = time.perf_counter_ns()
            observe_from_state(safe, assume, board, state, p)
            elapsed = (time.perf_counter_ns() - start) / 1000.0
            times.append(elapsed)
            if safe[H_COLLAPSES] != before:
                at_cap.append(elapsed)
            own_turn = t // 2 + 1
            if own_turn in cells_by_turn:
                cells_by_turn[own_turn].append(candidate_cells(safe, scratch))
            lost[0] += truth_of(state, board, safe, 1 - p) < 0
            _rules.play_line(state, board, log[t], counts[t], no_trace)
            t += 1


def _stress_walk(board, rng, cap, turns, times, at_cap, lost) -> None:
    """The tracked submarine plays SILENCE (0..4 steps) then MOVE every turn."""
    safe = new_tracker(cap, False)
    reset_tracker(safe, board)
    water = [c for c in range(CELLS) if board[WATER + c]]
    cell = rng.choice(water)
    visited = {cell}
    summary = np.zeros(3 * MAX_LINE_ACTIONS, dtype=np.int64)
    no_mines = np.zeros(4, dtype=np.int64)
    life = START_LIFE
    for _ in range(turns):
        d = rng.randrange(4)
        for _ in range(rng.randrange(5)):
            nxt = int(board[STEP + cell * 4 + d])
            if nxt < 0 or nxt in visited:
                break
            cell = nxt
            visited.add(cell)
        summary[0:3] = (ACT_SILENCE, 0, 0)
        n = 1
        free = [k for k in range(4) if board[STEP + cell * 4 + k] >= 0 and int(board[STEP + cell * 4 + k]) not in visited]
        if not free:
            if life == 1:
                return
            summary[3:6] = (ACT_SURFACE, int(board[SECTOR + cell]), 0)
            n = 2
            life -= 1
            visited = {cell}
            free = [k for k in range(4) if board[STEP + cell * 4 + k] >= 0]
        k = rng.choice(free)
        cell = int(board[STEP + cell * 4 + k])
        visited.add(cell)
        summary[3 * n:3 * n + 3] = (ACT_MOVE, k, 0)
        n += 1
        before = safe[H_COLLAPSES]
        start = time.perf_counter_ns()
        observe(safe, board, summary, 0, SONAR_NA, summary, n, life, no_mines)
        elapsed = (time.perf_counter_ns() - start) / 1000.0
        times.append(elapsed)
        if safe[H_COLLAPSES] != before:
            at_cap.append(elapsed)
        true_visited = np.zeros(4, dtype=np.int64)
        for c in visited:
            true_visited[c >> 6] |= np.int64(1) << np.int64(c & 63)
        lost[0] += truth_inside(safe, board, cell, true_visited, no_mines) < 0


def run_tracking_bench(*, games: int = 400, cap: int = DEFAULT_CAP, progress: bool = True) -> dict:
    """Tracker figures: median candidate cells at each player's 10th/20th/40th turn and
    update cost per workload, the cost of updates that reach the cap, and truth lost."""
    from rich.progress import Progress

    figures: dict = {"cap": cap, "games_per_matchup": games}
    seeds = list(range(1, games + 1))
    # Compile (or load) everything before timing.
    _game_workload(seeds[:1], _MATCHUPS[0], cap, [], [], {}, [0])
    _stress_walk(boards_for_seeds([1])[0], random.Random(0), cap, 5, [], [], [0])
    all_at_cap: list[float] = []
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("tracking", total=len(_MATCHUPS) + 1)
        for bots in _MATCHUPS:
            times, at_cap, lost = [], [], [0]
            cells = {10: [], 20: [], 40: []}
            _game_workload(seeds, bots, cap, times, at_cap, cells, lost)
            all_at_cap += at_cap
            figures[f"{bots[0]}_vs_{bots[1]}"] = {
                "updates": len(times),
                "median_candidate_cells": {f"turn_{k}": (float(np.median(v)) if v else None) for k, v in cells.items()},
                "update_us": _percentiles(times),
                "truth_lost_safe": int(lost[0]),
            }
            bar.advance(task)
        times, at_cap, lost = [], [], [0]
        rng = random.Random(12345)
        for board in boards_for_seeds(seeds[: max(1, games // 4)]):
            _stress_walk(board, rng, cap, 120, times, at_cap, lost)
        all_at_cap += at_cap
        figures["silence_every_turn"] = {"updates": len(times), "update_us": _percentiles(times),
                                         "truth_lost_safe": int(lost[0])}
        bar.advance(task)
    figures["updates_at_cap"] = _percentiles(all_at_cap)
    return figures
