"""The opponent's answer (v3, ``_answer``) on hand-built boards: where it can fire from after a
MOVE or a MOVE and a SILENCE (checked against a plain search), its best shot against where it
believes we are, whether it fires at all, the chance it takes our last lives; and which table
its charges allow."""
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ocean.board import build_board
from ocean.bots.v3._answer import (
    FIRE_MOVED, FIRE_SILENCED, MAX_COVER, ROWS, TABLES_SIZE, build_answer_tables, cells_to_rows, opponent_answer,
)
from ocean.bots.v3._turn import answer_table
from ocean.constants import CELLS, DX, DY, WIDTH
from ocean.maps import parse_rows

OPEN = ["." * 15] * 15
# An island wall with one gap, to check that reach goes round islands and never through them.
WALL = ["." * 15] * 6 + ["xxxxxxx.xxxxxxx"] + ["." * 15] * 8


def _cell(x, y):
    return y * WIDTH + x


def _tables(rows):
    board = build_board(parse_rows(rows))
    tables = np.zeros(TABLES_SIZE, dtype=np.int64)
    build_answer_tables(board, tables)
    return board, tables


def _set(tables, table, t):
    out = set()
    for y in range(ROWS):
        word = tables[table + t * ROWS + y]
        out |= {_cell(x, y) for x in range(WIDTH) if (word >> x) & 1}
    return out


def _water(rows, c):
    return rows[c // WIDTH][c % WIDTH] == "."


def _steps(rows, c):
    x, y = c % WIDTH, c // WIDTH
    for d in range(4):
        nx, ny = x + DX[d], y + DY[d]
        if 0 <= nx < WIDTH and 0 <= ny < WIDTH and _water(rows, _cell(nx, ny)):
            yield d, _cell(nx, ny)


def _within(rows, start, limit):
    """Water cells at most ``limit`` steps from start through water (a torpedo's reach at 4)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        c = queue.popleft()
        if dist[c] < limit:
            for _, t in _steps(rows, c):
                if t not in dist:
                    dist[t] = dist[c] + 1
                    queue.append(t)
    return set(dist)


def _silence(rows, c):
    """Cells a SILENCE of 0..4 steps reaches from c."""
    out = {c}
    for d in range(4):
        e = c
        for _ in range(4):
            nxt = dict(_steps(rows, e)).get(d)
            if nxt is None:
                break
            e = nxt
            out.add(e)
    return out


def _one_step(rows, c):
    return {c} | {t for _, t in _steps(rows, c)}


@pytest.mark.parametrize("rows", [OPEN, WALL], ids=["open", "wall"])
def test_the_tables_hold_every_cell_the_opponent_can_fire_from(rows):
    board, tables = _tables(rows)
    for t in (_cell(7, 7), _cell(7, 5), _cell(0, 0), _cell(3, 9)):
        if not _water(rows, t):
            continue
        # After one MOVE (or none): the cells one step from the torpedo's reach of t.
        expected_moved = {o for o in range(CELLS) if _water(rows, o)
                          and any(t in _within(rows, o2, 4) for o2 in _one_step(rows, o))}
        assert _set(tables, FIRE_MOVED, t) == expected_moved
        # With a SILENCE too, before or after the MOVE.
        expected_silenced = set()
        for o in range(CELLS):
            if not _water(rows, o):
                continue
            firing = {f for m in _one_step(rows, o) for f in _silence(rows, m)}
            firing |= {f for s in _silence(rows, o) for f in _one_step(rows, s)}
            if any(t in _within(rows, f, 4) for f in firing):
                expected_silenced.add(o)
        assert _set(tables, FIRE_SILENCED, t) == expected_silenced


def test_the_wall_is_gone_round_not_through():
    board, tables = _tables(WALL)
    # (3, 8) is three cells south of (3, 5), but the wall is between and its gap (x = 7) is far.
    for table in (FIRE_MOVED, FIRE_SILENCED):
        assert _cell(3, 8) not in _set(tables, table, _cell(3, 5))
    # Through the gap: from (7, 12) a SILENCE north and a MOVE bring (7, 5) within reach.
    assert _cell(7, 12) not in _set(tables, FIRE_MOVED, _cell(7, 5))
    assert _cell(7, 12) in _set(tables, FIRE_SILENCED, _cell(7, 5))


def _answer(tables, seen, opponent, table=FIRE_MOVED, threshold=0.5, life=6, death=2.0, probs=None):
    seen = np.array(seen, dtype=np.int64)
    cells = np.array(list(opponent), dtype=np.int64)
    if probs is None:
        probs = np.zeros(CELLS)
        probs[cells] = 1.0 / len(cells)
    rows = np.zeros(ROWS, dtype=np.int64)
    cells_to_rows(cells, len(cells), rows)
    scratch = [np.zeros(CELLS, dtype=np.int64) for _ in range(4)]
    loss, fires = opponent_answer(tables, table, seen, len(seen), probs, rows, threshold, life, death, *scratch,
                                  np.zeros(MAX_COVER + 2, dtype=np.int64), np.zeros(ROWS, dtype=np.int64))
    assert not scratch[0].any() and not scratch[1].any(), "cover and kill scratch are left zero"
    return loss, fires


def test_a_known_position_is_hit_from_five_cells_and_grazed_from_six():
    _, tables = _tables(OPEN)
    me = [_cell(7, 7)]
    assert _answer(tables, me, [_cell(12, 7)]) == (2.0, 1.0)  # a MOVE west, then a torpedo at us
    assert _answer(tables, me, [_cell(13, 7)]) == (1.0, 1.0)  # only next to us
    assert _answer(tables, me, [_cell(14, 7)]) == (0.0, 0.0)
    assert _answer(tables, me, [_cell(14, 7)], table=FIRE_SILENCED) == (2.0, 1.0)
    # half the opponent's cells in range: half the loss
    assert _answer(tables, me, [_cell(12, 7), _cell(14, 14)]) == (1.0, 0.5)


def test_the_opponent_fires_only_above_its_threshold():
    _, tables = _tables(OPEN)
    line = [_cell(x, 7) for x in range(2, 12)]  # ten cells in a row: the best blast covers 4 of 20 lives' worth
    assert _answer(tables, line, [_cell(7, 9)]) == (0.0, 0.0)
    loss, fires = _answer(tables, line, [_cell(7, 9)], threshold=0.4)
    assert fires == 1.0 and loss == pytest.approx(4 / 10)


def test_a_shot_that_would_take_our_last_lives_costs_more():
    _, tables = _tables(OPEN)
    assert _answer(tables, [_cell(7, 7)], [_cell(9, 7)], life=6) == (2.0, 1.0)
    assert _answer(tables, [_cell(7, 7)], [_cell(9, 7)], life=2, death=2.0) == (4.0, 1.0)
    # two believed cells, life 1: a blast between them takes the last life on both
    loss, _ = _answer(tables, [_cell(7, 7), _cell(8, 7)], [_cell(9, 7)], life=1, death=2.0)
    assert loss == pytest.approx((3 + 2.0 * 2) / 2)


@settings(max_examples=60, deadline=None)
@given(seen=st.lists(st.integers(0, CELLS - 1), min_size=1, max_size=30, unique=True),
       opponent=st.lists(st.integers(0, CELLS - 1), min_size=1, max_size=40, unique=True),
       threshold=st.floats(0.05, 2.0), life=st.integers(1, 6))
def test_the_answer_is_a_chance_and_a_loss_within_one_blast(seen, opponent, threshold, life):
    _, tables = _tables(OPEN)
    for table in (FIRE_MOVED, FIRE_SILENCED):
        loss, fires = _answer(tables, seen, opponent, table=table, threshold=threshold, life=life, death=2.0)
        assert 0.0 <= fires <= 1.0 + 1e-9
        assert 0.0 <= loss <= fires * (MAX_COVER + 2.0 * 9) / len(seen) + 1e-9
        # from more places, never less likely to fire
        assert _answer(tables, seen, opponent, table=FIRE_SILENCED, threshold=threshold)[1] >= \
            _answer(tables, seen, opponent, table=FIRE_MOVED, threshold=threshold)[1] - 1e-9


def test_the_table_follows_the_opponents_charges():
    # MOVEs since its last TORPEDO: 0 or 1, it cannot fire next turn (it gets one charge per MOVE)
    assert answer_table(1, 9, 0.0, 0.5)[0] == -1
    assert answer_table(1, 9, 0.4, 0.5) == (FIRE_SILENCED, 0.4, 0.0)  # the turn after next, two steps away
    assert answer_table(0, 9, 0.4, 0.5)[0] == -1
    # two: its MOVE next turn charges the third
    assert answer_table(2, 0, 0.0, 0.5) == (FIRE_MOVED, 1.0, 0.0)
    # its SILENCE may be charged: that share of its answer comes with a SILENCE first
    assert answer_table(2, 6, 0.0, 0.5) == (FIRE_MOVED, 1.0, 0.5)
    assert answer_table(3, 5, 0.0, 0.5) == (FIRE_MOVED, 1.0, 0.5)  # TORPEDO charged, its MOVE charges SILENCE
    assert answer_table(2, 5, 0.0, 0.5) == (FIRE_MOVED, 1.0, 0.0)  # one charge short of both
