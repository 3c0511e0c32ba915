"""v3's line choice on hand-built boards: out of reach of a known, charged opponent; holding
fire to answer its shot when that is worth more than a thin shot now; a TRIGGER blown before
we move into its blast; a kill shot taken; and the whole bot a pure function of its seeds that
plays the same lines through the text door."""
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ocean import _rules
from ocean import _state as S
from ocean.board import build_board
from ocean.bots import BotSpec, coefficients as C, resolve_bot
from ocean.bots.v2._fields import NO_TARGET, blast_values
from ocean.bots.v3._answer import TABLES_SIZE, build_answer_tables
from ocean.bots.v3._lines import AT_START, L_END, L_SIL_DIR, LINE_FIELDS, MAX_LINES
from ocean.bots.v3._turn import C_ROW, C_TARGET, C_TRIGGER, C_TRIGGER_AT, CHOSEN_SIZE, answer_table, choose_line
from ocean.constants import CELLS, WIDTH
from ocean.maps import generate_map, map_rows, parse_rows
from ocean.match import play_pairs
from ocean.play import play_with_replay

OPEN = ["." * 15] * 15


def _cell(x, y):
    return y * WIDTH + x


def _manhattan(a, b):
    return abs(a % WIDTH - b % WIDTH) + abs(a // WIDTH - b // WIDTH)


def _choose(cell, opponent, believed, charges, *, coefs=None, opp_moves=(2, 0), mines=(), life=6, opp_life=6,
            rows=OPEN, visited=()):
    """choose_line on a hand-built board: the opponent on ``opponent`` (cells, equally likely),
    believing us on ``believed``, with ``opp_moves`` MOVEs since its TORPEDO and SILENCE.
    Returns (line row, chosen)."""
    board = build_board(parse_rows(rows))
    coefs = C.vector(None, C.V3) if coefs is None else coefs
    state = _rules.new_state()
    base = S.player_base(0)
    state[base + S.CELL] = cell
    for c in (cell, *visited):
        state[base + S.VISITED + (c >> 6)] |= np.int64(1) << np.int64(c & 63)
    for m in mines:
        state[base + S.MINES_ACTIVE + (m >> 6)] |= np.int64(1) << np.int64(m & 63)
    probs = np.zeros(CELLS)
    for o in opponent:
        probs[o] = 1.0 / len(opponent)
    values = np.zeros(CELLS)
    blast_values(board, probs, opp_life, coefs[C.INDEX_V3["kill_bonus"]], values)
    tables = np.zeros(TABLES_SIZE, dtype=np.int64)
    build_answer_tables(board, tables)
    table, weight, share = answer_table(opp_moves[0], opp_moves[1], coefs[C.INDEX_V3["later_answer_weight"]],
                                        coefs[C.INDEX_V3["opponent_silence_attack"]])
    self_cells = np.zeros(CELLS, dtype=np.int64)
    self_cells[:len(believed)] = believed
    lines = np.zeros((MAX_LINES, LINE_FIELDS), dtype=np.int64)
    chosen = np.zeros(CHOSEN_SIZE, dtype=np.int64)
    rng = np.array([4242], dtype=np.uint64)
    score = choose_line(board, state, base, cell, life, opp_life, np.array(charges, dtype=np.int64), probs, values,
                        np.zeros(CELLS), self_cells, len(believed), tables, table, weight, share, coefs, rng, lines,
                        chosen)
    assert score > -1e17
    return lines[chosen[C_ROW]], chosen


def _with(**values):
    return C.vector({**C.defaults(C.V3), **values}, C.V3)


def test_a_known_charged_opponent_is_not_walked_into():
    cell = _cell(7, 7)
    opponent = [_cell(12, 7)]  # five cells east: a MOVE west and a TORPEDO hit us where we stand
    line, _ = _choose(cell, opponent, [cell], [0, 0, 0, 0])
    assert line[L_SIL_DIR] == -1 and _manhattan(line[L_END], opponent[0]) == 6  # any step but east


def test_a_revealed_sub_silences_away_from_a_charged_opponent_only():
    cell = _cell(7, 7)
    opponent = [_cell(10, 7)]
    line, _ = _choose(cell, opponent, [cell], [0, 0, 6, 0])
    assert line[L_SIL_DIR] >= 0 and _manhattan(line[L_END], opponent[0]) > 6
    # one MOVE since its TORPEDO: it cannot fire next turn, the SILENCE is kept
    calm, _ = _choose(cell, opponent, [cell], [0, 0, 6, 0], opp_moves=(1, 0))
    assert calm[L_SIL_DIR] == -1
    # nor does a bot that fears no answer spend it
    fearless, _ = _choose(cell, opponent, [cell], [0, 0, 6, 0], coefs=_with(retaliation_weight=0.0))
    assert fearless[L_SIL_DIR] == -1


def test_holding_fire_to_answer_the_shot_beats_a_thin_shot_now():
    cell = _cell(7, 7)
    # the opponent on one of three far-apart cells within our reach: a shot takes 2/3 of a life;
    # it knows where we are and is charged, so it will fire at us next turn and show where it is
    opponent = [_cell(10, 7), _cell(7, 10), _cell(4, 7)]
    exposed = [cell, _cell(8, 7)]
    plain = dict(torpedo_hit_threshold=0.3, torpedo_ready_value=0.0, retaliation_weight=0.0)
    _, fire = _choose(cell, opponent, exposed, [3, 0, 0, 0], coefs=_with(counter_value=0.0, **plain))
    assert fire[C_TARGET] != NO_TARGET
    # our TORPEDO kept for its answer: worth more than the thin shot now
    _, wait = _choose(cell, opponent, exposed, [3, 0, 0, 0], coefs=_with(counter_value=2.0, **plain))
    assert wait[C_TARGET] == NO_TARGET
    # unless it cannot fire next turn: then there is nothing to wait for
    _, now = _choose(cell, opponent, exposed, [3, 0, 0, 0], coefs=_with(counter_value=2.0, **plain), opp_moves=(0, 0))
    assert now[C_TARGET] != NO_TARGET


def test_a_trigger_is_blown_before_we_move_next_to_it():
    cell = _cell(7, 7)
    mine = _cell(9, 7)  # the opponent sits on our mine, two cells east
    visited = [_cell(7, 6), _cell(7, 8), _cell(6, 7)]  # the only way on is east, next to the mine
    line, chosen = _choose(cell, [mine], [cell], [0, 0, 0, 0], mines=[mine], visited=visited)
    assert line[L_END] == _cell(8, 7)
    assert chosen[C_TRIGGER] == mine and chosen[C_TRIGGER_AT] == AT_START
    # from where we stand after a free move west, the blast misses us: blown at the end
    line, chosen = _choose(cell, [mine], [cell], [0, 0, 0, 0], mines=[mine], visited=[_cell(7, 6), _cell(7, 8)],
                           coefs=_with(retaliation_weight=0.0, space_weight=0.0, wall_weight=0.0))
    assert chosen[C_TRIGGER] == mine


@settings(max_examples=40, deadline=None)
@given(mines=st.lists(st.integers(0, CELLS - 1), min_size=1, max_size=6, unique=True),
       opponent=st.lists(st.integers(0, CELLS - 1), min_size=1, max_size=4, unique=True),
       silence=st.booleans())
def test_a_chosen_trigger_never_blows_up_where_we_stand_at_that_moment(mines, opponent, silence):
    from ocean.bots.v3._lines import AT_END, AT_MID, L_MID
    from ocean.tracking._kernel import blast_damage

    cell = _cell(7, 7)
    if cell in mines:
        return
    line, chosen = _choose(cell, opponent, [cell], [0, 0, 6 if silence else 0, 0], mines=mines)
    mine = chosen[C_TRIGGER]
    if mine < 0:
        return
    where = {AT_START: cell, AT_MID: line[L_MID], AT_END: line[L_END]}[int(chosen[C_TRIGGER_AT])]
    assert blast_damage(where, mine % WIDTH, mine // WIDTH) == 0


def test_a_torpedo_only_worth_firing_between_the_move_and_the_silence():
    from ocean.bots.v3._lines import AT_MID, L_MOVE, L_SIL_STEPS, enumerate_lines
    from ocean.bots.v3._turn import best_torpedo
    from ocean.constants import EAST, NORTH

    board = build_board(parse_rows(OPEN))
    cell = _cell(7, 7)
    probs = np.zeros(CELLS)
    probs[_cell(12, 7)] = 1.0  # five east: out of reach from here, in reach one MOVE east
    values = np.zeros(CELLS)
    blast_values(board, probs, 6, 2.0, values)
    kept = np.zeros(CELLS, dtype=np.int64)
    kept[cell] = 1
    lines = np.zeros((MAX_LINES, LINE_FIELDS), dtype=np.int64)
    charges = np.array([3, 0, 6, 0], dtype=np.int64)
    n = enumerate_lines(board, cell, 6, charges, kept, kept.copy(), 4, 99, 2.0, False, lines)
    row = [r for r in range(n)
           if lines[r, L_MOVE] == EAST and lines[r, L_SIL_DIR] == NORTH and lines[r, L_SIL_STEPS] == 4]
    after = charges.copy()
    after[2] = 0
    target, value, at, fired_from = best_torpedo(board, values, lines, row[0], cell, 6, charges, after, NO_TARGET, 0.0,
                                                 0.3, np.zeros(1, dtype=np.int64))
    assert (target, value, at, fired_from) == (_cell(12, 7), 2.0, AT_MID, _cell(8, 7))


def test_a_kill_shot_is_taken():
    cell = _cell(7, 7)
    opponent = [_cell(10, 7), _cell(10, 8)]  # a blast between them takes its last life on both
    _, chosen = _choose(cell, opponent, [_cell(x, y) for x in range(15) for y in range(15)][:60], [3, 0, 0, 0],
                        opp_life=1)
    assert chosen[C_TARGET] != NO_TARGET


_SEEDS = [41, 42, 43]


def _games(spec):
    return play_pairs(spec, resolve_bot("balanced-v2"), _SEEDS).table


def test_the_v3_bot_is_a_pure_function_of_the_seeds():
    assert np.array_equal(_games(resolve_bot("tunable-v3")), _games(resolve_bot("tunable-v3")))
    other = dict(C.defaults(C.V3), counter_value=1.0)
    assert np.array_equal(_games(BotSpec("a", "tunable-v3", other)), _games(BotSpec("b", "tunable-v3", other)))


def test_the_v3_bot_plays_the_same_lines_through_the_text_door():
    from ocean.program import run_program

    for seed in (5, 77):
        _, data = play_with_replay(seed, ("tunable-v3", "hunter-v2"))
        rows = map_rows(generate_map(seed))
        lines = ["15 15 0"] + rows
        for turn in data["turns"]:
            if turn["player"] == 0:
                lines += turn["input"]
        out = io.StringIO()
        run_program(resolve_bot("tunable-v3"), seed, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
        answers = out.getvalue().splitlines()
        assert answers[0] == data["start_output"][0]
        assert answers[1:] == [t["output"] for t in data["turns"] if t["player"] == 0]


@pytest.mark.parametrize("opponent, floor", [("random", 0.97), ("chaser", 0.9), ("balanced-v2", 0.45)])
def test_the_v3_bot_beats_the_baselines_and_holds_its_own_against_v2(opponent, floor):
    result = play_pairs(resolve_bot("tunable-v3"), resolve_bot(opponent), range(1000, 1050))
    assert result.score_a().mean() >= floor
