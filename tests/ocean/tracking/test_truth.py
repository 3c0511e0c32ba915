"""The safe tracker never loses the truth: thousands of whole games between the compiled
random and chaser bots (every power, SILENCE of 0..4 steps), at the bots' cap and at the
smallest cap (collapsing often), and full games of the power-hungry chaotic bot through
the text protocol."""
import random

import numpy as np
import pytest

from ocean import _match, _rules
from ocean.board import build_board
from ocean.bots.coefficients import vector
from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS
from ocean.maps import generate_map, map_rows
from ocean.tracking._driver import (
    AU_CELLS_SAFE, AU_COLLAPSES, AU_COLUMNS, AU_FALLBACKS, AU_INSIDE_ASSUME, AU_INSIDE_SAFE,
    audit_logged_game,
)
from ocean.tracking._layout import DEFAULT_CAP, new_tracker

from tests.ocean.tracking.heavy import heavy_line
from tests.ocean.tracking.scenario import Scenario


def _audit(games: int, kinds: tuple[int, int], cap: int, seed0: int) -> np.ndarray:
    trackers = np.stack([new_tracker(cap, assume=bool(k % 2)) for k in range(4)])
    coefs = np.stack([vector(), vector()])
    state = _rules.new_state()
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    out = np.zeros((MAX_PLAYER_TURNS, AU_COLUMNS))
    rows = []
    for g in range(seed0, seed0 + games):
        board = build_board(generate_map(g * 7919))
        _match.play_game(board, np.array(kinds), coefs, np.int64(g), state, log, counts)
        t = audit_logged_game(board, log, counts, trackers, out)
        rows.append(out[:t].copy())
    return np.concatenate(rows)


@pytest.mark.parametrize("kinds", [(0, 0), (0, 1), (1, 0), (1, 1)])
@pytest.mark.parametrize("cap", [225, DEFAULT_CAP])
def test_safe_tracker_never_loses_the_truth_in_compiled_games(kinds, cap):
    rows = _audit(500, kinds, cap, seed0=1000 * kinds[0] + 100 * kinds[1])
    assert len(rows) > 10_000
    assert rows[:, AU_INSIDE_SAFE].min() == 1.0
    assert np.median(rows[:, AU_CELLS_SAFE]) < 30  # and it does narrow things down
    if cap == 225 and kinds == (0, 0):
        assert rows[:, AU_COLLAPSES].max() > 0
    if kinds == (0, 0):
        # Random bots shoot themselves and sit on mines: the assumptions fail, and the
        # assumption tracker must notice (fall back) rather than keep a wrong set forever.
        assert rows[:, AU_FALLBACKS].max() > 0
        assert rows[:, AU_INSIDE_ASSUME].mean() > 0.9


@pytest.mark.parametrize("cap", [225, DEFAULT_CAP])
def test_safe_tracker_never_loses_the_truth_against_heavy_power_users(cap):
    turns = collapses = 0
    for g in range(150):
        rows = map_rows(generate_map(g * 31 + cap))
        rng = random.Random(g)
        starts = []
        while len(starts) < 2:
            x, y = rng.randrange(15), rng.randrange(15)
            if rows[y][x] == ".":
                starts.append((x, y))
        s = Scenario(starts[0], starts[1], rows=rows, cap=cap)
        while s.play(lambda game: heavy_line(game, rng)):
            turns += 1
        assert s.lost == 0, f"map {g * 31 + cap}, game seed {g}"
        collapses += s.collapses(0) + s.collapses(1)
    assert turns > 5000
    if cap == 225:
        assert collapses > 0
