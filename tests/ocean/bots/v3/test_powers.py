"""v3's TRIGGER, MINE and SONAR on hand-built boards: never a blast on ourselves, mines where
the opponent's paths go, a SONAR whose answer would sharpen our next shot and none whose answer
is known or useless."""
import numpy as np
import pytest

from ocean import _rules
from ocean import _state as S
from ocean.board import build_board
from ocean.bots.v2._fields import blast_values
from ocean.bots.v3._powers import NO_MINE, best_trigger, choose_sonar, lay_mine, sonar_gains, traffic
from ocean.constants import CELLS, EAST, NORTH, SOUTH, WEST, WIDTH
from ocean.maps import parse_rows

OPEN = ["." * 15] * 15


def _cell(x, y):
    return y * WIDTH + x


def _board(rows=OPEN):
    return build_board(parse_rows(rows))


def _state_with_mines(mines, fresh=()):
    state = _rules.new_state()
    base = S.player_base(0)
    for offset, cells in ((S.MINES_ACTIVE, mines), (S.MINES_FRESH, fresh)):
        for c in cells:
            state[base + offset + (c >> 6)] |= np.int64(1) << np.int64(c & 63)
    return state, base


def _values(board, probs, opp_life=6, kill_bonus=2.0):
    values = np.zeros(CELLS)
    blast_values(board, probs, opp_life, kill_bonus, values)
    return values


def test_the_best_trigger_never_reaches_us_and_clears_the_threshold():
    board = _board()
    probs = np.zeros(CELLS)
    probs[_cell(5, 5)] = 1.0
    values = _values(board, probs)
    state, base = _state_with_mines([_cell(5, 5), _cell(6, 5), _cell(12, 12)])
    # from far away: the mine under the opponent (2 lives)
    assert best_trigger(state, base, _cell(10, 10), values, 0.5) == (2.0, _cell(5, 5))
    # standing next to it: that blast would reach us, the one beside it is next best only if not too
    value, mine = best_trigger(state, base, _cell(4, 4), values, 0.5)
    assert (value, mine) == (1.0, _cell(6, 5))
    # above the threshold or not at all
    assert best_trigger(state, base, _cell(4, 4), values, 1.5)[1] == NO_MINE
    # a mine laid this turn cannot be blown
    fresh_state, base = _state_with_mines([], fresh=[_cell(5, 5)])
    assert best_trigger(fresh_state, base, _cell(10, 10), values, 0.1)[1] == NO_MINE


def test_traffic_keeps_the_opponents_presence_and_follows_the_water():
    rows = list(OPEN)
    rows[7] = "xxxxxxx.xxxxxxx"  # a wall with one gap: from (7, 6) the way south is through (7, 7)
    board = _board(rows)
    probs = np.zeros(CELLS)
    probs[_cell(7, 6)] = 1.0
    flow = np.zeros(CELLS)
    traffic(board, probs, 3, flow, np.zeros(CELLS))
    assert flow.sum() == pytest.approx(1.0)
    assert flow[_cell(7, 7)] > 0.0 and flow[_cell(7, 9)] > 0.0
    assert flow[_cell(0, 7)] == 0.0  # an island
    assert flow[_cell(6, 8)] > 0.0 and flow[_cell(5, 8)] == 0.0  # three steps through the gap, not four


def test_a_mine_goes_where_the_opponent_is_heading():
    board = _board()
    end = _cell(7, 7)
    probs = np.zeros(CELLS)
    probs[_cell(11, 7)] = 1.0  # east of us
    flow = np.zeros(CELLS)
    traffic(board, probs, 3, flow, np.zeros(CELLS))
    values = np.zeros(CELLS)  # no attack spot
    state, base = _state_with_mines([])
    rng = np.array([99], dtype=np.uint64)
    assert lay_mine(state, board, base, end, values, flow, 3, 10.0, 10.0, rng) == EAST
    # without weight on traffic, the spacing rule alone (all four spots equal, broken at random)
    picks = {lay_mine(state, board, base, end, values, flow, 3, 10.0, 0.0, rng) for _ in range(40)}
    assert picks == {NORTH, SOUTH, EAST, WEST}
    # a spot too close to a mine of ours is never taken, however busy
    state, base = _state_with_mines([_cell(10, 7)])
    assert lay_mine(state, board, base, end, values, flow, 3, 10.0, 10.0, rng) != EAST
    # an attack spot (blast worth the threshold now) beats spacing
    probs2 = np.zeros(CELLS)
    probs2[_cell(8, 8)] = 1.0
    assert lay_mine(state, board, base, end, _values(board, probs2), flow, 3, 0.9, 10.0, rng) in (EAST, SOUTH)
    assert lay_mine(state, board, base, end, _values(board, probs2), flow, 3, 1.5, 10.0, rng) != EAST


def test_a_sonar_where_its_answer_sharpens_the_next_shot():
    board = _board()
    probs = np.zeros(CELLS)
    probs[_cell(1, 1)] = 0.5  # sector 1
    probs[_cell(13, 13)] = 0.5  # sector 9
    gains = np.zeros(10)
    sonar_gains(board, probs, gains)
    # knowing which of the two: a sure 2-life shot instead of a coin flip (1 life expected)
    assert gains[1] == pytest.approx(1.0) and gains[9] == pytest.approx(1.0)
    assert gains[5] == pytest.approx(0.0)  # the centre holds neither: its answer is known
    assert choose_sonar(board, probs, 0.5) in (1, 9)
    assert choose_sonar(board, probs, 1.5) == 0
    # known already: no SONAR
    known = np.zeros(CELLS)
    known[_cell(1, 1)] = 1.0
    assert choose_sonar(board, known, 0.0) == 0
    # spread over the whole water: an answer moves the best shot little
    spread = np.full(CELLS, 1.0 / CELLS)
    assert choose_sonar(board, spread, 0.15) == 0
