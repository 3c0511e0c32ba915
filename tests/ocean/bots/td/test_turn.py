"""The learned bot's turn on a hand-built board: the chosen line's features are what its
trackers say (not the truth), the weights decide, and exploration only with epsilon > 0."""
import math

import numpy as np

from ocean import _rules
from ocean import _state as S
from ocean.board import build_board
from ocean.bots._baselines import seed_rng
from ocean.bots.td._turn import TD_MEM, td_choose
from ocean.bots.td.coefficients import F_BELIEVED, F_DISTANCE, F_LIVES, F_REGRET, N_FEATURES
from ocean.bots.v3._observe import v3_reset
from ocean.constants import ACT_MOVE, ACTION_FIELDS, EAST, NORTH, SOUTH, WEST, ERR_NONE, MAX_LINE_ACTIONS, WIDTH
from ocean.maps import parse_rows

OPEN = ["." * 15] * 15


def _first_turn(weights, epsilon=0.0, seed=3, start=(7, 7), opponent=(0, 0)):
    board = build_board(parse_rows(OPEN))
    mem = np.empty(TD_MEM, dtype=np.int64)
    v3_reset(board, mem)
    state = _rules.new_state()
    _rules.start_game(state, board, start[1] * WIDTH + start[0], ERR_NONE, opponent[1] * WIDTH + opponent[0], ERR_NONE)
    assert _rules.begin_turn(state)
    rng = np.empty(1, dtype=np.uint64)
    seed_rng(rng, seed)
    out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    diff = np.full(N_FEATURES, np.nan)
    n = td_choose(state, board, 0, mem, rng, out, np.asarray(weights, dtype=float), epsilon, diff)
    return out[:n], diff


def test_believed_cells_come_from_the_trackers_of_both_sides():
    w = np.zeros(N_FEATURES)
    w[F_BELIEVED] = 1.0
    out, diff = _first_turn(w)
    assert out[0, 0] == ACT_MOVE
    # after one MOVE the opponent can believe us on every cell but one border line (210 of
    # 225); we believe it on all 225 (it has not moved): wherever the truth is
    assert diff[F_BELIEVED] == math.log2(210) - math.log2(225)
    assert diff[F_LIVES] == 0.0
    _, diff_far = _first_turn(w, start=(7, 7), opponent=(14, 14))
    assert diff_far[F_BELIEVED] == diff[F_BELIEVED] and diff_far[F_DISTANCE] == diff[F_DISTANCE]


def test_the_sign_of_a_weight_decides_the_line():
    # The opponent has not moved: we believe it on every cell alike, so the expected distance
    # grows toward our corner and shrinks toward the centre.
    w = np.zeros(N_FEATURES)
    w[F_DISTANCE] = 5.0
    out, diff = _first_turn(w, start=(1, 1))
    assert out[0, 0] == ACT_MOVE and out[0, 1] in (NORTH, WEST)
    w[F_DISTANCE] = -5.0
    out, diff_in = _first_turn(w, start=(1, 1))
    assert out[0, 0] == ACT_MOVE and out[0, 1] in (SOUTH, EAST)
    assert diff_in[F_DISTANCE] < diff[F_DISTANCE]


def test_zero_epsilon_never_explores_and_exploration_is_seeded():
    w = np.zeros(N_FEATURES)
    w[F_DISTANCE] = 1.0
    greedy = {tuple(_first_turn(w, seed=s, start=(1, 2))[0][0]) for s in range(6)}
    assert len(greedy) == 1  # one best line whatever the seed (WEST: the farthest on average)
    explored = {tuple(_first_turn(w, epsilon=1.0, seed=s)[0][0]) for s in range(12)}
    assert len(explored) > 1
    assert _first_turn(w, epsilon=1.0, seed=4)[0].tolist() == _first_turn(w, epsilon=1.0, seed=4)[0].tolist()


def test_trusting_the_regret_alone_plays_v3s_best_line():
    w = np.zeros(N_FEATURES)
    w[F_REGRET] = 1.0
    for start in ((1, 2), (7, 7), (13, 4)):
        _, diff = _first_turn(w, start=start)
        assert diff[F_REGRET] == 0.0
    _, explored = _first_turn(w, epsilon=1.0, seed=5)
    assert explored[F_REGRET] <= 0.0
