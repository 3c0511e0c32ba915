"""The v2 bot's stages, each called on a hand-built board: the minefield search (cheapest path
is not the shortest; a dead end is seen ahead; full danger is never "nothing found"), the
blast values read from the opponent's life, a TORPEDO worth firing only between MOVE and
SILENCE, waiting that beats firing, a TRIGGER under the opponent's likely cells, mines feared less
where we are well hidden, a cheaper SILENCE after our own TORPEDO, an attack mine."""
import numpy as np
import pytest

from ocean import _rules
from ocean import _state as S
from ocean.board import build_board
from ocean.bots import coefficients as C
from ocean.bots.v2._fields import MAX_BLAST, NO_TARGET, blast_values, mine_danger
from ocean.bots.v2._minefield import path_danger
from ocean.bots.v2._turn import AT_MOVED, L_AT, L_SIL_DIR, L_TARGET, choose_line, lay_mine, trigger, write_line
from ocean.constants import ACT_MINE, ACT_TORPEDO, ACT_TRIGGER, CELLS, DIRECTION_LETTERS, POWER_COST, SILENCE, TORPEDO, WIDTH
from ocean.maps import parse_rows

OPEN = ["." * 15] * 15


def _board(rows=OPEN):
    return build_board(parse_rows(rows))


def _cell(x, y):
    return y * WIDTH + x


def _path_danger(board, danger, start, depth, blocked=None, discount=0.9, dead_end=3.0):
    blocked = np.zeros(CELLS, dtype=np.int64) if blocked is None else blocked
    scratch = (np.empty(CELLS), np.empty(CELLS), np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64))
    return path_danger(board, danger, blocked, start, depth, discount, dead_end, *scratch)


def test_the_cheapest_path_through_mines_is_not_the_shortest():
    board = _board()
    danger = np.full(CELLS, MAX_BLAST)
    # A winding safe corridor from (7,7): north, north, east, east, south.
    corridor = [_cell(7, 6), _cell(7, 5), _cell(8, 5), _cell(9, 5), _cell(9, 6)]
    for c in corridor:
        danger[c] = 0.0
    assert _path_danger(board, danger, _cell(7, 7), 5) == 0.0
    danger[corridor[2]] = 0.5  # the third move now costs 0.5, less than leaving the corridor
    assert _path_danger(board, danger, _cell(7, 7), 5) == pytest.approx(0.5 * 0.9 ** 3)


def test_full_danger_on_every_next_cell_is_seen_not_taken_for_nothing_found():
    # v1's next-step danger used 2.0 as its "nothing found" marker while danger is capped at 2.0:
    # boxed in by full-danger cells it saw no danger at all (0.0). v2 sees the full blast.
    board = _board()
    danger = np.zeros(CELLS)
    start = _cell(7, 7)
    for c in (_cell(7, 6), _cell(7, 8), _cell(6, 7), _cell(8, 7)):
        danger[c] = MAX_BLAST
    assert _path_danger(board, danger, start, 1) == pytest.approx(0.9 * MAX_BLAST)
    # and the capped field itself reaches the cap where mines surely lie all around
    mines = np.zeros(CELLS)
    for c in (_cell(6, 6), _cell(8, 8), _cell(7, 7)):
        mines[c] = 1.0
    capped = np.zeros(CELLS)
    mine_danger(board, mines, capped)
    assert capped[start] == MAX_BLAST and capped[_cell(0, 0)] == 0.0


def test_a_dead_end_ahead_costs_from_the_move_that_cannot_be_made():
    rows = list(OPEN)
    rows[0] = "...x" + "." * 11  # (0..2, 0) is a corridor closed by an island at (3, 0)
    rows[1] = "xxxx" + "." * 11
    board = _board(rows)
    danger = np.zeros(CELLS)
    # From (0,0): two moves east, then nowhere to go: the third move pays the dead end.
    assert _path_danger(board, danger, _cell(0, 0), 5, dead_end=3.0) == pytest.approx(0.9 ** 3 * 3.0)
    assert _path_danger(board, danger, _cell(0, 0), 2, dead_end=3.0) == 0.0


def test_blast_values_read_the_opponents_life():
    board = _board()
    probs = np.zeros(CELLS)
    probs[_cell(5, 5)] = 0.5
    probs[_cell(6, 5)] = 0.5
    values = np.zeros(CELLS)
    blast_values(board, probs, 6, 2.0, values)  # far from dead: damage only
    assert values[_cell(5, 5)] == pytest.approx(0.5 * 2 + 0.5 * 1)
    blast_values(board, probs, 2, 2.0, values)  # 2 lives: a direct hit kills
    assert values[_cell(5, 5)] == pytest.approx(1.5 + 2.0 * 0.5)
    blast_values(board, probs, 1, 2.0, values)  # 1 life: any hit kills
    assert values[_cell(5, 5)] == pytest.approx(1.5 + 2.0 * 1.0)


def _set_bit(words, offset, c):
    words[offset + (c >> 6)] |= np.int64(1) << np.int64(c & 63)


def _choose_scored(board, cell, probs, coefs, charges, self_cells, danger=None, life=6, opp_life=6, visited_cells=()):
    """choose_line on a hand-built board: (best score, line); no mine danger unless given."""
    visited = np.zeros(4, dtype=np.int64)
    for c in (cell, *visited_cells):
        _set_bit(visited, 0, c)
    values = np.zeros(CELLS)
    blast_values(board, probs, opp_life, coefs[C.INDEX_V2["kill_bonus"]], values)
    danger = np.zeros(CELLS) if danger is None else danger
    line = np.zeros(8, dtype=np.int64)
    cells = np.array(self_cells + [0] * (CELLS - len(self_cells)), dtype=np.int64)
    rng = np.array([12345], dtype=np.uint64)
    score = choose_line(board, cell, life, opp_life, np.array(charges, dtype=np.int64), visited, probs, values,
                        danger, cells, len(self_cells), True, coefs, rng, line)
    assert score > -1e18
    return score, line


def _choose(*args, **kwargs):
    return _choose_scored(*args, **kwargs)[1]


def test_a_torpedo_worth_firing_only_between_the_move_and_a_silence():
    board = _board()
    target = _cell(7, 7)
    probs = np.zeros(CELLS)
    probs[target] = 1.0  # the opponent is known
    start = _cell(2, 7)  # 5 from the target: out of range; one MOVE east brings it to 4
    charges = [POWER_COST[TORPEDO], 0, POWER_COST[SILENCE], 0]
    # (4,7) visited: no SILENCE east of (3,7), towards the target
    line = _choose(board, start, probs, C.vector(policy=C.V2), charges, [start], visited_cells=[_cell(4, 7)])
    assert line[L_TARGET] == target and line[L_AT] == AT_MOVED and line[L_SIL_DIR] >= 0
    out = np.zeros((8, 3), dtype=np.int64)
    n, end = write_line(board, start, np.array(charges, dtype=np.int64), line, out)
    kinds = list(out[:n, 0])
    assert kinds.index(ACT_TORPEDO) == 1 and n == 3  # MOVE, TORPEDO, SILENCE
    # From where the SILENCE ends the target is out of range: firing at the end is no option.
    assert abs(end % WIDTH - 7) + abs(end // WIDTH - 7) > 4


def test_keeping_a_charged_torpedo_beats_a_thin_shot():
    board = _board()
    probs = np.zeros(CELLS)
    ring = [_cell(x, y) for x in range(3, 12, 2) for y in (3, 11)]  # ten cells far apart
    for c in ring:
        probs[c] = 1.0 / len(ring)
    start = _cell(7, 8)
    charges = [POWER_COST[TORPEDO], 0, 0, 0]
    params = C.defaults(C.V2)
    params["torpedo_hit_threshold"] = 0.05
    params["retaliation_weight"] = 0.0
    fires = _choose(board, start, probs, C.vector({**params, "torpedo_ready_value": 0.0}, C.V2), charges, [start])
    waits = _choose(board, start, probs, C.vector({**params, "torpedo_ready_value": 0.5}, C.V2), charges, [start])
    assert fires[L_TARGET] != NO_TARGET  # a shot worth 0.2 lives beats nothing...
    assert waits[L_TARGET] == NO_TARGET  # ...but not a charge kept for a better one


def test_trigger_blows_the_mine_under_the_opponents_likely_cells():
    board = _board()
    state = _rules.new_state()
    base = S.player_base(0)
    likely = _cell(10, 10)
    for m in (_cell(2, 2), likely, _cell(13, 1)):
        _set_bit(state, base + S.MINES_ACTIVE, m)
    probs = np.zeros(CELLS)
    probs[_cell(10, 11)] = 0.3
    probs[likely] = 0.2  # blast at (10,10): 0.2 x 2 + 0.3 = 0.7
    probs[_cell(2, 3)] = 0.5  # blast at (2,2): 0.5
    values = np.zeros(CELLS)
    blast_values(board, probs, 6, 0.0, values)
    out = np.zeros((8, 3), dtype=np.int64)
    coefs = C.vector({**C.defaults(C.V2), "trigger_hit_threshold": 0.45}, C.V2)
    n = trigger(state, board, base, _cell(7, 7), values, coefs, out, 0)
    assert n == 1 and out[0, 0] == ACT_TRIGGER and (out[0, 1], out[0, 2]) == (10, 10)
    # never a mine that would hit us where we stand
    n = trigger(state, board, base, _cell(10, 9), values, coefs, out, 0)
    assert n == 1 and (out[0, 1], out[0, 2]) == (2, 2)
    # and none below trigger_hit_threshold
    n = trigger(state, board, base, _cell(10, 9), values, C.vector({**C.defaults(C.V2), "trigger_hit_threshold": 0.6},
                                                                    C.V2), out, 0)
    assert n == 0


def test_mines_are_feared_less_where_the_opponent_cannot_place_us():
    board = _board()
    start = _cell(7, 7)
    probs = np.zeros(CELLS)
    probs[_cell(0, 14)] = 1.0  # far away: no shot either way
    danger = np.full(CELLS, 1.0)
    params = {**C.defaults(C.V2), "mine_fear_cells": 10}
    coefs = C.vector(params, C.V2)
    known, _ = _choose_scored(board, start, probs, coefs, [0, 0, 0, 0], [start], danger)
    hidden = [_cell(x, y) for x in range(5) for y in range(8)]  # it believes us on 40 cells
    feared, _ = _choose_scored(board, start, probs, C.vector({**params, "mine_fear_cells": 225}, C.V2),
                               [0, 0, 0, 0], hidden, danger)
    less, _ = _choose_scored(board, start, probs, coefs, [0, 0, 0, 0], hidden, danger)
    # Known to the opponent (one cell), the danger counts in full whatever the setting.
    full, _ = _choose_scored(board, start, probs, C.vector({**params, "mine_fear_cells": 225}, C.V2),
                             [0, 0, 0, 0], [start], danger)
    assert known == pytest.approx(full)
    assert less > feared  # 40 cells: a quarter of the fear


def test_a_silence_after_our_own_torpedo_can_be_made_cheaper():
    board = _board()
    start = _cell(7, 7)
    target = _cell(7, 10)
    probs = np.zeros(CELLS)
    probs[target] = 1.0
    charges = [POWER_COST[TORPEDO], 0, POWER_COST[SILENCE], 0]
    params = {**C.defaults(C.V2), "silence_cost": 3.0, "retaliation_weight": 0.3}
    _, full_cost = _choose_scored(board, start, probs, C.vector(params, C.V2), charges, [start], np.zeros(CELLS))
    _, cheap = _choose_scored(board, start, probs, C.vector({**params, "silence_after_torpedo": 0.0}, C.V2), charges,
                              [start], np.zeros(CELLS))
    assert full_cost[L_TARGET] == target and full_cost[L_SIL_DIR] < 0  # fires, and a SILENCE costs too much
    assert cheap[L_TARGET] == target and cheap[L_SIL_DIR] >= 0  # fires, then hides


def test_an_attack_mine_goes_where_the_opponent_likely_is_spacing_aside():
    board = _board()
    state = _rules.new_state()
    base = S.player_base(0)
    end = _cell(7, 7)
    _set_bit(state, base + S.MINES_ACTIVE, _cell(7, 5))  # every neighbour of (7,7) is within 3 of it
    probs = np.zeros(CELLS)
    probs[_cell(9, 7)] = 1.0  # the opponent two cells east
    values = np.zeros(CELLS)
    blast_values(board, probs, 6, 0.0, values)
    out = np.zeros((8, 3), dtype=np.int64)
    rng = np.array([7], dtype=np.uint64)
    spaced = C.vector({**C.defaults(C.V2), "mine_spacing": 4}, C.V2)
    assert lay_mine(state, board, base, end, values, spaced, rng, out, 0) == 0  # too close to our mine
    attack = C.vector({**C.defaults(C.V2), "mine_spacing": 4, "attack_mine_value": 0.5}, C.V2)
    assert lay_mine(state, board, base, end, values, attack, rng, out, 0) == 1
    assert out[0, 0] == ACT_MINE and DIRECTION_LETTERS[out[0, 1]] == "E"  # next to it: its blast takes 1 life
