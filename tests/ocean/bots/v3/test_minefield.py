"""v3's minefield search visits only the cells each layer reaches; it must give exactly v2's
value (same walks, same ties) on any board, danger field and blocked cells."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ocean.board import build_board
from ocean.bots.v2._minefield import path_danger as v2_path_danger
from ocean.bots.v3._minefield import path_danger
from ocean.constants import CELLS


@settings(max_examples=150, deadline=None)
@given(islands=st.lists(st.integers(0, CELLS - 1), max_size=60),
       blocked=st.lists(st.integers(0, CELLS - 1), max_size=80),
       danger_cells=st.lists(st.tuples(st.integers(0, CELLS - 1), st.sampled_from([0.25, 0.5, 1.0, 2.0])),
                             max_size=60),
       start=st.integers(0, CELLS - 1), depth=st.integers(1, 8), discount=st.sampled_from([0.8, 0.95, 1.0]),
       dead_end=st.sampled_from([0.0, 2.0, 6.0]))
def test_the_v3_minefield_search_equals_v2s(islands, blocked, danger_cells, start, depth, discount, dead_end):
    mask = np.zeros(CELLS, dtype=np.uint8)
    mask[islands] = 1
    mask[start] = 0
    board = build_board(mask)
    blocked_cells = np.zeros(CELLS, dtype=np.int64)
    blocked_cells[blocked] = 1
    blocked_cells[start] = 1
    danger = np.zeros(CELLS)
    for c, v in danger_cells:
        danger[c] = v
    scratch = (np.empty(CELLS), np.empty(CELLS), np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64))
    expected = v2_path_danger(board, danger, blocked_cells, start, depth, discount, dead_end, *scratch)
    # dirty scratch: v3's needs no clearing
    dirty = [np.full(CELLS, 7.0), np.full(CELLS, -3.0), np.full(CELLS, 5, dtype=np.int64),
             np.full(CELLS, 9, dtype=np.int64)]
    got = path_danger(board, danger, blocked_cells, start, depth, discount, dead_end, *dirty,
                      np.full(8, 123, dtype=np.int64))
    assert got == expected
