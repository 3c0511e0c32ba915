"""v4's tree on hand-built boards (the search's kernels called directly, the opponent known):
a kill that only a two-turn line finds is found; a mine trap beyond the greedy's path horizon,
which the greedy walks into, is avoided; the opponent's turn in a transition (its mine, its
TORPEDO) costs the line that walks into it. Tiny budgets: the search is measured in
benchmarks/v4search.py."""
import numpy as np

from ocean import _rules
from ocean import _state as S
from ocean.board import build_board
from ocean.bots import BotSpec, coefficients as C
from ocean.bots.v3._answer import TABLES_SIZE, build_answer_tables
from ocean.bots.v2._fields import mine_danger
from ocean.bots.v3._turn import answer_table
from ocean.bots.v4 import _tree as T
from ocean.bots.v4._opponent import opponent_scratch, play_opponent, seed_opponent
from ocean.bots.v4._turn import MAX_WIDTH, v4_work
from ocean.constants import ACT_MOVE, CELLS, NORTH, TORPEDO, WIDTH
from ocean.maps import parse_rows

OPEN = ["." * 15] * 15
EAST = 2
WEST = 3


def _cell(x, y):
    return y * WIDTH + x


def _search(cell, opponent, charges, believed, iterations, *, opp_life=6, rows=OPEN, mines=(), room=0, **values):
    """The tree after ``iterations`` iterations from our ``cell`` (our TORPEDO, SONAR,
    SILENCE, MINE ``charges``), the opponent known on ``opponent`` with ``opp_life`` lives and
    no TORPEDO charged, believing us on ``believed``, its ``mines`` known (their danger as v3
    computes it); ``room``: nodes allocated beyond the budget's. Returns (work, the root's chosen
    edge)."""
    board = build_board(parse_rows(rows))
    v = {**C.defaults("tunable-v4"), "iterations": iterations, **values}
    coefs = BotSpec("v4", "tunable-v4", v).vector()
    work = v4_work(BotSpec("v4", "tunable-v4", {**v, "iterations": iterations + room}).vector())
    nodes, _, fields, _, _, _ = work
    probs, _, _, _, _, sc = fields
    probs[opponent] = 1.0
    mine_probs = np.zeros(CELLS)
    mine_probs[list(mines)] = 1.0
    mine_danger(board, mine_probs, fields[3])
    state = _rules.new_state()
    me, op = S.player_base(0), S.player_base(1)
    state[me + S.CELL] = cell
    state[me + S.LIFE] = 6
    state[me + S.VISITED + (cell >> 6)] |= np.int64(1) << np.int64(cell & 63)
    for k in range(4):
        state[me + S.CHARGE + k] = charges[k]
    state[op + S.CELL] = 0  # never read: the search draws the opponent's cell
    state[op + S.LIFE] = opp_life
    tables = np.zeros(TABLES_SIZE, dtype=np.int64)
    build_answer_tables(board, tables)
    table, weight, share = answer_table(0, 0, 0.0, 0.0)
    sc[T.SC_TABLE], sc[T.SC_TABLE_WEIGHT], sc[T.SC_SILENCE_SHARE] = table, weight, share
    sc[T.SC_UCB] = v["ucb_c"]
    sc[T.SC_LOOKAHEAD] = v["lookahead_weight"]
    sc[T.SC_REALIZED] = v["realized_shots"]
    sc[T.SC_BELOW_GREEDY] = v["below_greedy_weight"]
    sc[T.SC_GAIN] = v["lookahead_gain_weight"]
    sc[T.SC_BASELINE] = v["lookahead_baseline"]
    sc[T.SC_P] = 0
    sc[T.SC_DRAWS] = 1
    sc[T.SC_WIDTH] = min(int(v["width"]), MAX_WIDTH)
    sc[T.SC_DEPTH] = int(v["depth_cap"])
    sc[T.SC_NODES] = 1
    sc[T.SC_EDGES] = 0
    nodes[0][0][:] = state
    nodes[1][0][:len(believed)] = believed
    nodes[2][0] = len(believed)
    nodes[5][0] = 0
    rng = np.array([7], dtype=np.uint64)
    T.expand(board, 0, tables, coefs, rng, work)
    sc[T.SC_ITERATIONS] = 1
    T.draw_cells(fields, 1, 1.0, rng)
    T.iterate(board, tables, coefs, rng, work, iterations)
    return work, T.root_choice(work)


def test_a_kill_only_a_two_turn_line_finds_is_found():
    # The opponent, on its last life, six cells east; our TORPEDO needs two more MOVEs. Every
    # first step scores alike for the greedy (no shot this turn); only east leaves the opponent
    # within a MOVE and a TORPEDO's reach when the TORPEDO is charged next turn.
    cell, opponent = _cell(7, 7), _cell(13, 7)
    believed = [_cell(x, y) for x in range(3, 12) for y in range(3, 12)]
    work, greedy = _search(cell, opponent, [1, 0, 0, 0], believed, 1, opp_life=1)
    edges = work[1]
    assert edges[4][greedy][0, 0] == ACT_MOVE and edges[4][greedy][0, 1] != EAST  # v3 steps elsewhere
    work, chosen = _search(cell, opponent, [1, 0, 0, 0], believed, 20, opp_life=1, lookahead_weight=1.0)
    nodes, edges = work[0], work[1]
    assert edges[4][chosen][0, 0] == ACT_MOVE and edges[4][chosen][0, 1] == EAST
    assert edges[4][chosen][0, 2] == TORPEDO  # and charges the TORPEDO for it
    mean = edges[2][chosen] / edges[3][chosen]
    assert mean > edges[0][chosen] + 1.0  # the kill, seen below the root (the whole lookahead weighed)
    assert nodes[4][0] > 1


# A corridor west and a corridor east of us, each opening north into the same open water (the
# room ahead is the same either way, more than v3's horizon). The opponent's known mine sits at
# the east corridor's mouth: every way out of it passes through the blast. The first MOVE east
# leaves the mine six MOVEs ahead, beyond v3's path horizon (``path_depth`` 5), and ends
# between two walls, which v3 likes (``wall_weight``); the first MOVE west ends by an opening.
TRAP = ["." * 15] * 6 + [".xxxx.xxxxxxxx.", "." * 15] + ["x" * 15] * 7


def test_a_mine_trap_the_greedy_walks_into_is_avoided():
    cell, opponent, mine = _cell(6, 7), _cell(10, 3), _cell(14, 7)
    work, greedy = _search(cell, opponent, [0, 0, 0, 0], [cell], 1, rows=TRAP, mines=[mine])
    assert work[1][4][greedy][0, 0] == ACT_MOVE and work[1][4][greedy][0, 1] == EAST  # v3 walks in
    # at the default budget (the search's value below the root is the greedy's, which sees the
    # mine once it is within the path horizon of a node)
    budget = int(C.defaults("tunable-v4")["iterations"])
    work, chosen = _search(cell, opponent, [0, 0, 0, 0], [cell], budget, rows=TRAP, mines=[mine])
    assert work[0][4][0] > 1
    assert work[1][4][chosen][0, 0] == ACT_MOVE and work[1][4][chosen][0, 1] == WEST


def _child_of(work, board, parent, move, coefs, tables, rng):
    """The child of ``parent``'s edge whose line is the single MOVE ``move`` (-1: none)."""
    nodes, edges = work[0], work[1]
    for e in range(nodes[3][parent], nodes[3][parent] + nodes[4][parent]):
        if edges[5][e] == 1 and edges[4][e][0, 0] == ACT_MOVE and edges[4][e][0, 1] == move:
            return e, T._make_child(board, parent, e, 0, tables, coefs, rng, work)
    return -1, -1


def _mine_below_the_root(opponent_turn):
    # Open water; we on (7,7), known to the opponent to the cell; its known mine on (7,4), its
    # TORPEDO far from charged, itself far away on (1,1). MOVE N ends on (7,6), two rows from
    # the mine: the root's transition is safe. From there MOVE N ends next to the mine.
    cell, opponent, mine = _cell(7, 7), _cell(1, 1), _cell(7, 4)
    values = dict(opponent_turn=opponent_turn, below_greedy_weight=0.5, realized_shots=0.0, answer_realized=0.0)
    work, _ = _search(cell, opponent, [0, 0, 0, 0], [cell], 1, mines=[mine], room=8, **values)
    board = build_board(parse_rows(OPEN))
    coefs = BotSpec("v4", "tunable-v4", {**C.defaults("tunable-v4"), **values}).vector()
    tables = np.zeros(TABLES_SIZE, dtype=np.int64)
    build_answer_tables(board, tables)
    sc = work[2][5]
    sc[T.SC_OPP_TURN] = opponent_turn
    sc[T.SC_OPP_TORPEDO] = 0
    work[5][1][0, mine >> 6] = np.int64(1) << np.int64(mine & 63)  # draw 0 holds the mine
    rng = np.array([11], dtype=np.uint64)
    _, child = _child_of(work, board, 0, NORTH, coefs, tables, rng)
    me = S.player_base(0)
    assert child > 0 and work[0][0][child][me + S.LIFE] == 6  # no blast at the root's transition
    rewards = {}
    for move in (NORTH, EAST, WEST):
        e, grandchild = _child_of(work, board, child, move, coefs, tables, rng)
        assert grandchild > 0
        rewards[move] = (work[0][8][grandchild], work[1][0][e], work[0][0][grandchild][me + S.LIFE])
    return rewards


def test_the_opponents_known_mine_makes_a_line_into_it_worth_less_below_the_root():
    played = _mine_below_the_root(1)
    reward, score, life = played[NORTH]
    assert life == 5  # it blew its mine next to where it knew we went
    assert reward == 0.5 * score + 0.5 * -1  # below the root: half the greedy's score, half lives
    for move in (EAST, WEST):
        reward, score, life = played[move]
        assert life == 6 and reward == 0.5 * score  # out of the blast: the greedy's score alone
    # Without the opponent's turn no transition ever sees the mine.
    for reward, score, life in _mine_below_the_root(0).values():
        assert life == 6 and reward == 0.5 * score


def test_the_opponents_turn_fires_from_the_drawn_cell_at_where_it_believes_us():
    board = build_board(parse_rows(OPEN))
    state = _rules.new_state()
    me, op = S.player_base(0), S.player_base(1)
    state[me + S.CELL] = _cell(7, 7)
    state[me + S.LIFE] = 6
    state[op + S.LIFE] = 6
    scratch = opponent_scratch(1, 1, 1)
    seed_opponent(state, 0, _cell(3, 7), np.zeros(4, dtype=np.int64), 3, 0)
    view = np.array([_cell(7, 7)] + [0] * (CELLS - 1), dtype=np.int64)
    rng = np.array([5], dtype=np.uint64)
    torpedo_lost, mine_lost, target = play_opponent(board, state, 0, view, 1, 0.5, 0.3, rng, scratch)
    assert (torpedo_lost, mine_lost, target) == (2, 0, _cell(7, 7)) and state[me + S.LIFE] == 4
    assert state[op + S.CHARGE + TORPEDO] == 1  # fired, then its MOVE charged it once
    moved = state[op + S.CELL]
    assert abs(moved % WIDTH - 3) + abs(moved // WIDTH - 7) == 1
    # Believing us anywhere on the map, no target is worth its fire threshold: it holds.
    state[me + S.LIFE] = 6
    seed_opponent(state, 0, _cell(3, 7), np.zeros(4, dtype=np.int64), 3, 0)
    everywhere = np.arange(CELLS, dtype=np.int64)
    assert play_opponent(board, state, 0, everywhere, CELLS, 0.5, 0.3, rng, scratch) == (0, 0, -1)
    assert state[me + S.LIFE] == 6 and state[op + S.CHARGE + TORPEDO] == 4


def _root_lookaheads(paired):
    """Each root line looked ahead once, two draws, the opponent playing its turn: (the draw
    slot each line's child took, the opponent's cell in each child)."""
    cell = _cell(7, 7)
    values = dict(opponent_turn=1, paired_draws=paired, determinizations=2)
    everywhere = list(range(CELLS))  # it believes us anywhere: it never fires, it only steps
    work, _ = _search(cell, _cell(2, 2), [0, 0, 0, 0], everywhere, 1, room=MAX_WIDTH + 1, **values)
    board = build_board(parse_rows(OPEN))
    coefs = BotSpec("v4", "tunable-v4", {**C.defaults("tunable-v4"), **values}).vector()
    tables = np.zeros(TABLES_SIZE, dtype=np.int64)
    build_answer_tables(board, tables)
    nodes, edges, fields, _, _, opp = work
    sc = fields[5]
    fields[4][:2] = [_cell(2, 2), _cell(12, 12)]
    sc[T.SC_DRAWS] = 2
    sc[T.SC_OPP_TURN] = 1
    sc[T.SC_OPP_TORPEDO] = 0
    sc[T.SC_PAIRED] = paired
    sc[T.SC_PAIR_SEED] = 12345
    opp[1][:] = 0  # no opponent mines in either draw
    width = nodes[4][0]
    rng = np.array([3], dtype=np.uint64)
    T.iterate(board, tables, coefs, rng, work, 1 + width)
    op = S.player_base(1)
    slots, cells = [], []
    for e in range(width):
        slot = 0 if edges[7][e, 0] >= 0 else 1
        assert edges[7][e, 1 - slot] < 0  # one lookahead each
        slots.append(slot)
        cells.append(nodes[0][edges[7][e, slot]][op + S.CELL])
    return slots, cells


def test_paired_draws_meet_every_root_line_with_the_same_opponent():
    slots, cells = _root_lookaheads(1)
    assert len(slots) > 2 and set(slots) == {0}  # every line's first lookahead meets draw 0
    assert len(set(cells)) == 1  # which steps the same way after each of our lines
    start = _cell(2, 2)
    assert abs(cells[0] % WIDTH - start % WIDTH) + abs(cells[0] // WIDTH - start // WIDTH) == 1
    slots, cells = _root_lookaheads(0)
    assert slots[:4] == [0, 1, 0, 1]  # unpaired: the iterations cycle through the draws
    assert len(set(cells)) > 1


def test_a_hunting_opponent_steps_to_where_its_next_shot_reaches_us():
    # It cannot fire this turn (no MOVE counted since its TORPEDO); we are six columns east of it.
    board = build_board(parse_rows(OPEN))
    view = np.array([_cell(7, 7)] + [0] * (CELLS - 1), dtype=np.int64)
    scratch = opponent_scratch(1, 1, 1)
    op = S.player_base(1)
    steps = set()
    for seed in range(1, 9):
        for hunt in (0, 1):
            state = _rules.new_state()
            state[S.player_base(0) + S.CELL] = _cell(7, 7)
            state[S.player_base(0) + S.LIFE] = 6
            state[op + S.LIFE] = 6
            seed_opponent(state, 0, _cell(1, 7), np.zeros(4, dtype=np.int64), 0, 0)
            rng = np.array([seed], dtype=np.uint64)
            assert play_opponent(board, state, 0, view, 1, 0.5, 0.3, rng, scratch, hunt) == (0, 0, -1)
            if hunt:
                assert state[op + S.CELL] == _cell(2, 7)  # east: only from there does its reach touch us
            else:
                steps.add(state[op + S.CELL])
    assert len(steps) > 1  # without hunting it wanders


def test_the_lines_own_baseline_replaces_what_its_score_credits_to_the_position_it_leaves():
    # Our TORPEDO charged, the opponent three cells east: lines that fire and lines that hold.
    cell, opponent = _cell(7, 7), _cell(10, 7)
    believed = [_cell(x, y) for x in range(5, 10) for y in range(5, 10)]
    width = int(C.defaults("tunable-v4")["width"])
    # each of the root's lines looked ahead once; the lookahead's value kept whole and undiluted
    work, _ = _search(cell, opponent, [3, 0, 0, 0], believed, 1 + width, lookahead_weight=1.0,
                      lookahead_baseline=1, lookahead_gain_weight=1.0, below_greedy_weight=1.0, realized_shots=0.0,
                      answer_realized=0.0)
    nodes, edges = work[0], work[1]
    looked = 0
    for e in range(nodes[4][0]):
        child = edges[7][e, 0]
        if child < 0:
            continue
        looked += 1
        standing = edges[0][e] - edges[1][e] + edges[9][e]
        # one lookahead: the score as first visit, then the shot and answer it expects plus the child's value
        value = edges[0][e] + (nodes[7][child] - standing)
        assert np.isclose(edges[2][e], edges[0][e] + value) and edges[3][e] == 2
    assert looked == nodes[4][0] > 2


def test_the_root_leaves_v3s_line_only_by_more_than_the_switch_margin():
    cell, opponent = _cell(7, 7), _cell(13, 7)
    believed = [_cell(x, y) for x in range(3, 12) for y in range(3, 12)]
    work, chosen = _search(cell, opponent, [1, 0, 0, 0], believed, 20, opp_life=1, lookahead_weight=1.0)
    edges, sc = work[1], work[2][5]
    assert chosen > 0  # the search leaves the greedy's first line for the two-turn kill
    edge = edges[2][chosen] / edges[3][chosen] - edges[2][0] / edges[3][0]
    sc[T.SC_MARGIN] = edge - 0.01
    assert T.root_choice(work) == chosen
    sc[T.SC_MARGIN] = edge + 0.01
    assert T.root_choice(work) == 0  # not by enough: v3's line


def test_the_switch_window_keeps_the_root_to_lines_the_greedy_scores_near_v3s():
    cell, opponent = _cell(7, 7), _cell(13, 7)
    believed = [_cell(x, y) for x in range(3, 12) for y in range(3, 12)]
    work, chosen = _search(cell, opponent, [1, 0, 0, 0], believed, 20, opp_life=1, lookahead_weight=1.0)
    edges, sc = work[1], work[2][5]
    gap = edges[0][0] - edges[0][chosen]  # how much worse the greedy scores the kill's first step (a hair: a tie)
    assert chosen > 0 and gap > 0.0
    sc[T.SC_WINDOW] = 2 * gap
    assert T.root_choice(work) == chosen
    sc[T.SC_WINDOW] = gap / 2
    assert T.root_choice(work) != chosen


def test_the_greedy_opponent_plays_v3s_line_from_its_side():
    from ocean.bots.v3._answer import TABLES_SIZE as _T
    from ocean.bots.v4._greedy import MAX_CANDIDATES, greedy_scratch
    from ocean.bots.v3._lines import LINE_FIELDS, MAX_LINES
    from ocean.bots.v3._turn import CHOSEN_SIZE
    from ocean.bots.v4._opponent_greedy import greedy_opponent_scratch, play_opponent_greedy

    board = build_board(parse_rows(OPEN))
    tables = np.zeros(_T, dtype=np.int64)
    build_answer_tables(board, tables)
    coefs = BotSpec("v4", "tunable-v4", C.defaults("tunable-v4")).vector()
    args = (np.empty((MAX_LINES, LINE_FIELDS), dtype=np.int64), greedy_scratch(), np.empty(MAX_CANDIDATES),
            np.empty(MAX_CANDIDATES), np.empty(MAX_CANDIDATES), np.empty((MAX_CANDIDATES, CHOSEN_SIZE), dtype=np.int64),
            np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64), greedy_opponent_scratch())
    me, op = S.player_base(0), S.player_base(1)

    def turn(believed, torpedo_moves):
        state = _rules.new_state()
        state[me + S.CELL] = _cell(7, 7)
        state[me + S.LIFE] = 6
        state[me + S.VISITED + (_cell(7, 7) >> 6)] |= np.int64(1) << np.int64(_cell(7, 7) & 63)
        state[op + S.LIFE] = 6
        seed_opponent(state, 0, _cell(4, 7), np.zeros(4, dtype=np.int64), torpedo_moves, 0)
        view = np.array(believed + [0] * (CELLS - len(believed)), dtype=np.int64)
        rng = np.array([5], dtype=np.uint64)
        result = play_opponent_greedy(board, state, 0, view, len(believed), tables, coefs, rng, *args)
        return result, state

    (lost, target, played), state = turn([_cell(7, 7)], 3)
    assert played == 1 and target == _cell(7, 7) and lost == 2  # it knows our cell, its TORPEDO is charged
    assert state[op + S.ERROR] == 0 and state[op + S.CELL] != _cell(4, 7)  # and it moved, through the rules
    (lost, target, played), state = turn([_cell(7, 7)], 0)
    assert played == 1 and target == -1 and lost == 0  # nothing charged: it only moves
    assert state[me + S.LIFE] == 6
