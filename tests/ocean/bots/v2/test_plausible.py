"""Weighted opponent states (seed 002): states whose path kept room and hugged islands weigh
more; the weights only reshape the candidate cells, never add or drop one."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ocean.board import build_board
from ocean.bots.v2._plausible import plausible_probabilities
from ocean.constants import CELLS, WIDTH
from ocean.maps import parse_rows
from ocean.tracking._layout import F_CELL, F_VISITED, H_COUNT, new_tracker, states_view
from ocean.tracking._query import cell_probabilities

OPEN = ["." * 15] * 15


def _cell(x, y):
    return y * WIDTH + x


def _tracker(paths):
    """A tracker whose candidate states are the given histories (each a path since the last
    surface, ending on its last cell)."""
    trk = new_tracker()
    states = states_view(trk)
    for i, path in enumerate(paths):
        states[i, :] = 0
        states[i, F_CELL] = path[-1]
        for c in path:
            states[i, F_VISITED + (c >> 6)] |= np.int64(1) << np.int64(c & 63)
    trk[H_COUNT] = len(paths)
    return trk


def _weigh(trk, board, max_cells=225, horizon=20, room=0.0, wall=0.0):
    out = np.zeros(CELLS)
    cells = plausible_probabilities(trk, board, max_cells, horizon, room, wall, out,
                                    np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64))
    return cells, out


def test_a_path_along_the_edge_weighs_more_than_one_across_open_water():
    board = build_board(parse_rows(OPEN))
    along_edge = [_cell(x, 0) for x in range(2, 7)]  # every cell touches the north edge
    open_water = [_cell(x, 7) for x in range(4, 9)]  # none does
    trk = _tracker([along_edge, open_water])
    _, out = _weigh(trk, board, wall=3.0)
    assert out[along_edge[-1]] == pytest.approx(4.0 / 5.0)  # weights 1 + 3 x 1 and 1 + 3 x 0
    assert out[open_water[-1]] == pytest.approx(1.0 / 5.0)


def test_a_path_into_a_pocket_weighs_less_than_one_that_kept_its_room():
    rows = list(OPEN)
    rows[1] = "..x" + "." * 12  # (0..1, 0..1) is a pocket entered through (2, 0) only
    rows[2] = "xxx" + "." * 12
    board = build_board(parse_rows(rows))
    into_pocket = [_cell(4, 0), _cell(3, 0), _cell(2, 0), _cell(1, 0)]
    kept_room = [_cell(9, 9), _cell(10, 9)]
    trk = _tracker([into_pocket, kept_room])
    _, out = _weigh(trk, board, horizon=20, room=1.0)
    free_pocket = 3  # (0,0), (0,1), (1,1): the way back through (2,0) was visited
    assert out[into_pocket[-1]] / out[kept_room[-1]] == pytest.approx((free_pocket + 1) / 21)


def test_no_weights_while_the_opponent_is_spread_over_more_than_max_cells():
    board = build_board(parse_rows(OPEN))
    trk = _tracker([[_cell(x, 0) for x in range(2, 7)], [_cell(x, 7) for x in range(4, 9)]])
    plain = np.zeros(CELLS)
    cell_probabilities(trk, plain)
    cells, out = _weigh(trk, board, max_cells=1, room=1.0, wall=3.0)
    assert cells == 2 and np.array_equal(out, plain)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, CELLS - 1), min_size=1, max_size=12), min_size=1, max_size=20),
       st.floats(0.0, 4.0), st.floats(0.0, 4.0), st.integers(4, 60))
def test_weights_reshape_the_candidate_cells_and_never_drop_one(paths, room, wall, horizon):
    board = build_board(parse_rows(OPEN))
    trk = _tracker(paths)
    plain = np.zeros(CELLS)
    cell_probabilities(trk, plain)
    cells, out = _weigh(trk, board, horizon=horizon, room=room, wall=wall)
    assert cells == len({p[-1] for p in paths})
    assert np.array_equal(out > 0.0, plain > 0.0)
    assert out.sum() == pytest.approx(1.0)
