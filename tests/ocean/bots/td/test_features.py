"""Each feature of the learned bot on a hand-built board or state, and the advantage it adds
up to: what the tracker says, never the truth."""
import math

import numpy as np
import pytest

from ocean import _rules
from ocean import _state as S
from ocean.board import build_board
from ocean.bots.td._features import (
    F_BELIEVED, F_DANGER, F_DISTANCE, F_FIRED, F_LIVES, F_MINE, F_MINES, F_REACH, F_ROOM, F_SILENCE, F_SILENCED,
    F_REGRET, F_SHOT, F_SONAR, F_SURFACED, F_TORPEDO, F_V3, FEATURE_NAMES, N_FEATURES, advantage, charge_shares, expected_mines,
    line_features, live_mines, opponent_last_turn, reach_chance, set_regrets, win_rate,
)
from ocean.bots.td.coefficients import COEFFICIENTS_TD, WEIGHT_BOUND
from ocean.constants import ACT_MOVE, ACT_SILENCE, ACT_SURFACE, ACT_TORPEDO, CELLS, MINE, SILENCE, SONAR, TORPEDO, WIDTH
from ocean.maps import parse_rows

OPEN = ["." * 15] * 15


def _cell(x, y):
    return y * WIDTH + x


def _board(rows=OPEN):
    return build_board(parse_rows(rows))


def test_every_feature_is_a_named_bounded_coefficient_in_slot_order():
    assert [c.name for c in COEFFICIENTS_TD] == list(FEATURE_NAMES) and len(FEATURE_NAMES) == N_FEATURES
    assert all(c.low == -WEIGHT_BOUND and c.high == WEIGHT_BOUND and c.meaning for c in COEFFICIENTS_TD)


def test_torpedo_reach_counts_the_opponents_chance_within_four_steps_of_water():
    board = _board()
    probs = np.zeros(CELLS)
    probs[_cell(5, 5)] = 0.25  # 4 steps from (1, 5): in reach
    probs[_cell(6, 5)] = 0.5  # 5 steps: out of reach
    probs[_cell(1, 1)] = 0.25  # 4 steps
    assert reach_chance(board, probs, _cell(1, 5)) == pytest.approx(0.5)
    # an island wall between: the torpedo's path goes round it, out of reach
    rows = list(OPEN)
    rows[5] = "..x" + "." * 12
    rows[4] = "..x" + "." * 12
    rows[6] = "..x" + "." * 12
    probs2 = np.zeros(CELLS)
    probs2[_cell(4, 5)] = 1.0  # 3 steps straight through the wall, 7 around it
    assert reach_chance(_board(rows), probs2, _cell(1, 5)) == 0.0
    assert reach_chance(board, probs2, _cell(1, 5)) == 1.0


def test_the_opponents_last_turn_is_read_from_its_summary_only():
    state = _rules.new_state()
    opp = S.player_base(1)
    assert opponent_last_turn(state, 0) == (0, 0, 0)
    for i, kind in enumerate((ACT_SURFACE, ACT_TORPEDO, ACT_MOVE)):
        state[opp + S.SUMMARY + 3 * i] = kind
    state[opp + S.SUMMARY_COUNT] = 3
    assert opponent_last_turn(state, 0) == (1, 0, 1)
    state[opp + S.SUMMARY + 6] = ACT_SILENCE
    assert opponent_last_turn(state, 0) == (1, 1, 1)
    assert opponent_last_turn(state, 1) == (0, 0, 0)  # our own summary is not the opponent's


def test_mines_ours_from_our_state_theirs_from_the_tracker_expectation():
    state = _rules.new_state()
    base = S.player_base(0)
    for c in (_cell(0, 0), _cell(7, 7), _cell(14, 14)):
        state[base + S.MINES_ACTIVE + (c >> 6)] |= np.int64(1) << np.int64(c & 63)
    assert live_mines(state, base) == 3
    assert live_mines(state, S.player_base(1)) == 0
    mine_probs = np.zeros(CELLS)
    mine_probs[:4] = 0.25
    mine_probs[100] = 1.0
    assert expected_mines(mine_probs) == pytest.approx(2.0)


def test_charges_are_shares_of_their_costs():
    x = np.zeros(N_FEATURES)
    after = np.zeros(4, dtype=np.int64)
    after[TORPEDO], after[SONAR], after[SILENCE], after[MINE] = 3, 2, 3, 1
    charge_shares(after, x)
    assert (x[F_TORPEDO], x[F_SONAR], x[F_SILENCE], x[F_MINE]) == pytest.approx((1.0, 0.5, 0.5, 1 / 3))


def test_line_features_put_each_measure_on_its_side():
    x = np.zeros(N_FEATURES)
    y = np.zeros(N_FEATURES)
    after = np.array([2, 0, 6, 3], dtype=np.int64)
    line_features(5, 3.5, 0.6, 16, 2, 10, 20, after, 4, 1.5, 0.3, 0.7, 4.5, 0.4, 1.2, 1, 0, 1, 7, 2,
                  np.array([0, 1, 1], dtype=np.int64), -0.25, x, y)
    assert (x[F_LIVES], y[F_LIVES]) == (5, 3.5)
    assert (x[F_SHOT], y[F_SHOT]) == (0.6, 0.0)  # a belief, apart from the lives both sides have
    assert (x[F_BELIEVED], y[F_BELIEVED]) == (4.0, 1.0)
    assert (x[F_ROOM], y[F_ROOM]) == (0.5, 0.0)
    assert (x[F_TORPEDO], y[F_TORPEDO]) == pytest.approx((2 / 3, 1.0))  # its 7 MOVEs: charged (capped)
    assert (x[F_SILENCE], y[F_SILENCE]) == pytest.approx((1.0, 2 / 6))
    assert (x[F_SONAR], y[F_SONAR]) == (0.0, 0.0)
    assert (x[F_MINES], y[F_MINES]) == pytest.approx((0.4, 0.15))
    assert (x[F_REACH], y[F_REACH]) == (0.3, 0.7)
    assert (x[F_DISTANCE], y[F_DISTANCE]) == (0.3, 0.0)
    assert (x[F_DANGER], y[F_DANGER]) == (0.4, 1.2)
    assert (x[F_SURFACED], y[F_SURFACED], x[F_SILENCED], y[F_SILENCED], x[F_FIRED], y[F_FIRED]) == (1, 0, 0, 1, 1, 1)
    assert (x[F_V3], y[F_V3]) == (-0.25, 0.0)


def test_the_advantage_is_linear_in_the_difference_and_its_win_rate_logistic():
    x = np.arange(N_FEATURES, dtype=float)
    y = np.ones(N_FEATURES)
    w = np.zeros(N_FEATURES)
    assert advantage(w, x, y) == 0.0 and win_rate(0.0) == 0.5
    w[F_LIVES] = 0.5
    w[F_BELIEVED] = -1.0
    assert advantage(w, x, y) == pytest.approx(0.5 * (0 - 1) - 1.0 * (1 - 1))
    assert win_rate(2.0) == pytest.approx(1 / (1 + math.exp(-2.0)))
    assert win_rate(-800.0) == 0.0 and win_rate(800.0) == 1.0  # no overflow


def test_regret_saturates_below_the_turns_best_v3_score():
    xs = np.zeros((5, N_FEATURES))
    xs[:, F_V3] = [0.5, -1.0, 2.0, -40.0, 7.0]  # the last row is past n: not a line of this turn
    set_regrets(xs, 4)
    assert list(xs[:4, F_REGRET]) == pytest.approx([math.exp(-1.5) - 1, math.exp(-3.0) - 1, 0.0, -1.0])
    assert xs[4, F_REGRET] == 0.0 and -1.0 <= xs[3, F_REGRET] < xs[1, F_REGRET] < xs[0, F_REGRET] < 0.0
