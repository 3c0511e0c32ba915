"""v3's lines on hand-built boards: which lines exist (SURFACE only when needed, the stall
only when boxed in, SILENCE before MOVE reaching a cell MOVE then SILENCE cannot), what the
opponent can believe after each, and how the chosen line is written."""
import numpy as np

from ocean.board import build_board
from ocean.bots.v3._lines import (
    AT_END, AT_MID, AT_START, L_END, L_MOVE, L_ORDER, L_SIL_DIR, L_SIL_STEPS, L_SURFACE, LINE_FIELDS, MAX_LINES,
    ORDER_MOVE_FIRST, ORDER_SILENCE_FIRST, charges_after, enumerate_lines, group_key, opponent_view,
)
from ocean.bots.v3._turn import C_AT, C_ROW, C_TARGET, C_TRIGGER, C_TRIGGER_AT, CHOSEN_SIZE, write_line
from ocean.bots.v3._powers import NO_MINE
from ocean.constants import (
    ACT_MOVE, ACT_SILENCE, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER, CELLS, EAST, MINE, NORTH, POWER_COST, SILENCE, SOUTH,
    TORPEDO, WEST, WIDTH,
)
from ocean.maps import parse_rows

OPEN = ["." * 15] * 15


def _cell(x, y):
    return y * WIDTH + x


def _lines(rows, cell, charges, life=6, visited=(), silence_first=True, mine_rank=2, space=99):
    board = build_board(parse_rows(rows))
    kept = np.zeros(CELLS, dtype=np.int64)
    for c in (cell, *visited):
        kept[c] = 1
    fresh = np.zeros(CELLS, dtype=np.int64)
    fresh[cell] = 1
    free_now = sum(1 for d in range(4) if _step(rows, cell, d) is not None and not kept[_step(rows, cell, d)])
    lines = np.zeros((MAX_LINES, LINE_FIELDS), dtype=np.int64)
    space = 0 if free_now == 0 else space
    n = enumerate_lines(board, cell, life, np.array(charges, dtype=np.int64), kept, fresh, free_now, space, mine_rank,
                        silence_first, lines)
    return board, lines[:n]


def _step(rows, c, d):
    x, y = c % WIDTH + (0, 0, 1, -1)[d], c // WIDTH + (-1, 1, 0, 0)[d]
    if 0 <= x < WIDTH and 0 <= y < WIDTH and rows[y][x] == ".":
        return _cell(x, y)
    return None


def test_without_charges_a_roomy_turn_is_the_four_moves():
    _, lines = _lines(OPEN, _cell(7, 7), [0, 0, 0, 0])
    assert sorted(lines[:, L_MOVE]) == [0, 1, 2, 3]
    assert not lines[:, L_SURFACE].any() and (lines[:, L_SIL_DIR] == -1).all()


def test_a_charged_silence_adds_every_silence_and_no_stall_while_a_neighbour_is_free():
    _, lines = _lines(OPEN, _cell(7, 7), [0, 0, 6, 0], silence_first=False)
    # 4 MOVEs x (no SILENCE + SILENCE 0 + 16 silences, minus those that walk back onto the MOVE's cell... none
    # here: a SILENCE walks away in a straight line) and SILENCE alone in 16 ways; no SILENCE 0 alone
    silences_alone = lines[lines[:, L_MOVE] == -1]
    assert len(silences_alone) == 16 and (silences_alone[:, L_SIL_STEPS] > 0).all()
    # the cell we came from is visited: a SILENCE back through it is no line
    back = lines[(lines[:, L_MOVE] == EAST) & (lines[:, L_SIL_DIR] == WEST) & (lines[:, L_SIL_STEPS] > 0)]
    assert len(back) == 0


def test_boxed_in_the_stall_and_surface_are_the_lines():
    cell = _cell(7, 7)
    visited = [_cell(7, 6), _cell(7, 8), _cell(6, 7), _cell(8, 7)]
    _, lines = _lines(OPEN, cell, [0, 0, 6, 0], visited=visited, silence_first=False)
    stall = lines[(lines[:, L_MOVE] == -1) & (lines[:, L_SIL_STEPS] == 0) & (lines[:, L_SURFACE] == 0)]
    assert len(stall) == 1
    assert lines[:, L_SURFACE].any()
    # on the last life no SURFACE: the stall (and nothing else without surfacing) is left
    _, last = _lines(OPEN, cell, [0, 0, 6, 0], life=1, visited=visited, silence_first=False)
    assert not last[:, L_SURFACE].any() and len(last) == 1


def test_silence_before_move_reaches_a_cell_move_then_silence_cannot():
    rows = list(OPEN)
    rows[6] = "." * 7 + "x" + "." * 7  # an island north of (7, 7)
    cell = _cell(7, 7)
    target = _cell(9, 6)  # two east, one north: SILENCE E 2 then MOVE N
    _, both = _lines(rows, cell, [0, 0, 6, 0], silence_first=True)
    _, move_first = _lines(rows, cell, [0, 0, 6, 0], silence_first=False)
    assert target in both[both[:, L_ORDER] == ORDER_SILENCE_FIRST][:, L_END]
    assert target not in move_first[:, L_END]
    line = both[(both[:, L_ORDER] == ORDER_SILENCE_FIRST) & (both[:, L_END] == target)][0]
    assert (line[L_SIL_DIR], line[L_SIL_STEPS], line[L_MOVE]) == (EAST, 2, NORTH)


def test_the_move_after_a_silence_charges_with_the_silence_spent():
    _, lines = _lines(OPEN, _cell(7, 7), [3, 4, 6, 3])  # everything full
    after = np.zeros(4, dtype=np.int64)
    row = int(np.flatnonzero(lines[:, L_ORDER] == ORDER_SILENCE_FIRST)[0])
    charges_after(lines, row, np.array([3, 4, 6, 3], dtype=np.int64), after)
    assert after[SILENCE] == 1  # spent, then charged once by the MOVE
    row = int(np.flatnonzero((lines[:, L_ORDER] == ORDER_MOVE_FIRST) & (lines[:, L_SIL_DIR] >= 0))[0])
    charges_after(lines, row, np.array([3, 4, 6, 3], dtype=np.int64), after)
    assert after[SILENCE] == 0


def test_the_opponent_sees_the_surface_sector_the_shot_and_the_move_in_order():
    board, lines = _lines(OPEN, _cell(7, 7), [3, 0, 6, 0], life=6, visited=[_cell(7, 8)], space=5)
    believed = np.array([_cell(7, 7), _cell(2, 2), _cell(12, 12), _cell(6, 7)], dtype=np.int64)
    out = np.empty(CELLS, dtype=np.int64)
    tmp = np.empty(CELLS, dtype=np.int64)
    mark = np.zeros(CELLS, dtype=np.int64)

    def view(row, at=AT_END, target=-1):
        n = opponent_view(board, lines, row, _cell(7, 7), believed, len(believed), at, target, out, tmp, mark)
        assert not mark.any()
        return sorted(out[:n])

    plain = (lines[:, L_SIL_DIR] == -1) & (lines[:, L_SURFACE] == 0)
    move_east = int(np.flatnonzero((lines[:, L_MOVE] == EAST) & plain)[0])
    assert view(move_east) == sorted(c + 1 for c in believed)
    # a TORPEDO at (9, 7) before moving: only cells within its reach could have fired it
    assert view(move_east, AT_START, _cell(9, 7)) == sorted([_cell(7, 7) + 1, _cell(6, 7) + 1])
    # after the MOVE: the cells the MOVE brought within reach
    assert view(move_east, AT_END, _cell(12, 7)) == [_cell(8, 7)]
    # room is short (5 cells): SURFACE lines too, and a SURFACE shows our sector (5: the centre)
    surfaced = np.flatnonzero((lines[:, L_SURFACE] == 1) & (lines[:, L_MOVE] == SOUTH) & (lines[:, L_SIL_DIR] == -1))
    assert view(int(surfaced[0])) == sorted(c + WIDTH for c in (_cell(7, 7), _cell(6, 7)))
    # a SILENCE spreads what it believed; the group key says which lines look the same to it
    silenced = np.flatnonzero((lines[:, L_MOVE] == EAST) & (lines[:, L_SIL_DIR] >= 0) & (lines[:, L_SURFACE] == 0)
                              & (lines[:, L_ORDER] == ORDER_MOVE_FIRST))
    assert len(view(int(silenced[0]))) > len(believed)
    assert len({group_key(lines, int(r)) for r in silenced}) == 1
    assert group_key(lines, int(silenced[0])) != group_key(lines, move_east)
    # a TORPEDO between the MOVE and the SILENCE: only (8, 7) could fire it, then the SILENCE spreads it
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
    spread = {_cell(8, 7)} | {_cell(8 + k * dx, 7 + k * dy) for k in range(1, 5) for dx, dy in steps}
    assert set(view(int(silenced[0]), AT_MID, _cell(12, 7))) == spread


def _write(lines, row, target=-1, at=AT_END, mine=NO_MINE, mine_at=AT_END, charges=(3, 0, 6, 3)):
    board = build_board(parse_rows(OPEN))
    chosen = np.zeros(CHOSEN_SIZE, dtype=np.int64)
    chosen[C_ROW], chosen[C_TARGET], chosen[C_AT] = row, target, at
    chosen[C_TRIGGER], chosen[C_TRIGGER_AT] = mine, mine_at
    out = np.zeros((8, 4), dtype=np.int64)
    charges = np.array(charges, dtype=np.int64)
    n, end = write_line(board, _cell(7, 7), charges, lines, chosen, out)
    return [tuple(r[:3]) for r in out[:n]], end, charges


def test_the_chosen_line_is_written_in_its_order():
    _, lines = _lines(OPEN, _cell(7, 7), [3, 0, 6, 3], silence_first=True)
    row = int(np.flatnonzero((lines[:, L_ORDER] == ORDER_SILENCE_FIRST) & (lines[:, L_SIL_DIR] == EAST)
                             & (lines[:, L_SIL_STEPS] == 2) & (lines[:, L_MOVE] == NORTH))[0])
    actions, end, charges = _write(lines, row, target=_cell(10, 7), at=AT_MID, mine=_cell(3, 3), mine_at=AT_START)
    power = int(lines[row, 3])
    assert actions == [(ACT_TRIGGER, 3, 3), (ACT_SILENCE, EAST, 2), (ACT_TORPEDO, 10, 7), (ACT_MOVE, NORTH, power)]
    assert end == _cell(9, 6)
    assert charges[TORPEDO] == 0 and charges[MINE] == 3
    assert charges[SILENCE] == (1 if power == SILENCE else 0)
    move_first = lines[:, L_ORDER] == ORDER_MOVE_FIRST
    row = int(np.flatnonzero(move_first & (lines[:, L_MOVE] == WEST) & (lines[:, L_SIL_DIR] == -1))[0])
    # a TRIGGER between a MOVE and its SILENCE
    row = int(np.flatnonzero(move_first & (lines[:, L_MOVE] == WEST) & (lines[:, L_SIL_DIR] == NORTH)
                             & (lines[:, L_SIL_STEPS] == 1))[0])
    actions, end, _ = _write(lines, row, mine=_cell(9, 9), mine_at=AT_MID)
    assert [a[0] for a in actions] == [ACT_MOVE, ACT_TRIGGER, ACT_SILENCE] and end == _cell(6, 6)
    row = int(np.flatnonzero(move_first & (lines[:, L_MOVE] == WEST) & (lines[:, L_SIL_DIR] == -1))[0])
    actions, end, _ = _write(lines, row, target=_cell(4, 7), at=AT_START)
    assert actions[0] == (ACT_TORPEDO, 4, 7) and actions[1][0] == ACT_MOVE and end == _cell(6, 7)
    assert POWER_COST[TORPEDO] == 3 and ACT_SURFACE not in [a[0] for a in actions]
