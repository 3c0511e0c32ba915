"""The v4 bot's turn: v3's observe and fields, the tree (``_tree``) over v3's lines for an
iteration budget, then the root's best line written as v3 writes it, with v3's MINE and SONAR.
``v4_begin``, ``iterate`` and ``v4_finish`` are also called one after the other by the
wall-clock guard (``_clock``), which runs the iterations in slices."""
import numpy as np

from ocean._jit import copy_into, kernel

from ocean import _state as S
from ocean.bots._baselines import emit_action, rand_below
from ocean.bots.v3._answer import TABLES_SIZE
from ocean.bots.v2._observe import M_OPP_SAFE, TRACKER
from ocean.bots.v3._observe import M_OPP_CHARGE, M_OPP_SILENCE_CHARGE, M_TABLES, V3_MEM, v3_observe
from ocean.bots.v3._turn import K_LATER, K_SILENCE_ATTACK, answer_table, fields, powers_after, write_line
from ocean.bots.v4._tree import (
    SC_ANSWER_REALIZED, SC_BELOW_GREEDY, SC_DEPTH, SC_DRAWS, SC_EDGES, SC_ITERATIONS, SC_LOOKAHEAD, SC_NODES,
    SC_BASELINE, SC_GAIN, SC_MARGIN, SC_OPP_GREEDY, SC_WINDOW, SC_OPP_SILENCE, SC_PAIRED, SC_PAIR_SEED, SC_REVEAL, SC_OPP_TORPEDO, SC_OPP_TURN, SC_P, SC_SPREAD, SC_REALIZED, SC_SILENCE_SHARE, SC_TABLE, SC_TABLE_WEIGHT, SC_UCB,
    SC_WIDTH, draw_cells, expand, iterate, new_work, root_choice,
)
from ocean.bots.v4._opponent import draw_mines, spread_fields
from ocean.bots.v4._opponent_greedy import set_seen
from ocean.bots.v4.coefficients import INDEX_V4
from ocean.constants import ACT_SURFACE, CELLS
from ocean.tracking._query import mine_probabilities

V4_MEM = V3_MEM  # v3's memory: trackers, charge counts, answer tables
K_ITERATIONS = INDEX_V4["iterations"]
K_UCB = INDEX_V4["ucb_c"]
K_DEPTH_CAP = INDEX_V4["depth_cap"]
K_DRAWS = INDEX_V4["determinizations"]
K_DRAW_WEIGHT = INDEX_V4["draw_weight"]
K_WIDTH = INDEX_V4["width"]
K_LOOKAHEAD = INDEX_V4["lookahead_weight"]
K_REALIZED = INDEX_V4["realized_shots"]
K_BELOW_GREEDY = INDEX_V4["below_greedy_weight"]
K_OPP_TURN = INDEX_V4["opponent_turn"]
K_ANSWER_REALIZED = INDEX_V4["answer_realized"]
K_SPREAD = INDEX_V4["opponent_spread"]
K_GAIN = INDEX_V4["lookahead_gain_weight"]
K_REVEAL = INDEX_V4["opponent_reveal"]
K_PAIRED = INDEX_V4["paired_draws"]
K_BASELINE = INDEX_V4["lookahead_baseline"]
K_MARGIN = INDEX_V4["switch_margin"]
K_WINDOW = INDEX_V4["switch_window"]
K_OPP_GREEDY = INDEX_V4["opponent_greedy"]
MAX_WIDTH = 16

__all__ = ["V4_MEM", "budget", "v4_work", "v4_begin", "v4_finish", "v4_turn"]


@kernel
def budget(coefs):
    """The iteration budget the coefficients ask for (at least 1)."""
    return max(1, int(coefs[K_ITERATIONS]))


@kernel
def v4_work(coefs):
    """The search's arrays for one turn at ``coefs``."""
    depths = max(int(coefs[K_DEPTH_CAP]), 1) + 1 if coefs[K_SPREAD] > 0.0 else 1
    return new_work(budget(coefs) + 1, min(max(int(coefs[K_WIDTH]), 1), MAX_WIDTH), max(int(coefs[K_DRAWS]), 1),
                    depths)


@kernel
def v4_begin(state, board, p, mem, rng, coefs, work):
    """Observe (v3's), the fields at the root, the root's greedy, the draws. Returns the
    root's edge count."""
    v3_observe(state, board, p, mem)
    nodes, _, flds, _, _, opp_scratch = work
    n_state, n_view, n_nview, _, n_count, n_depth, _, _, _ = nodes
    probs, values, have, danger, _, sc = flds
    opp_life = max(state[S.player_base(1 - p) + S.LIFE], 1)
    life_slot = min(opp_life, 7)
    n_self = fields(board, mem, opp_life, coefs, probs, values[life_slot], danger, n_view[0])
    have[life_slot] = 1
    table, table_weight, silence_share = answer_table(mem[M_OPP_CHARGE], mem[M_OPP_SILENCE_CHARGE], coefs[K_LATER],
                                                      coefs[K_SILENCE_ATTACK])
    sc[SC_TABLE] = table
    sc[SC_TABLE_WEIGHT] = table_weight
    sc[SC_SILENCE_SHARE] = silence_share
    sc[SC_UCB] = coefs[K_UCB]
    sc[SC_LOOKAHEAD] = coefs[K_LOOKAHEAD]
    sc[SC_REALIZED] = coefs[K_REALIZED]
    sc[SC_BELOW_GREEDY] = coefs[K_BELOW_GREEDY]
    sc[SC_P] = p
    sc[SC_OPP_TURN] = 1.0 if coefs[K_OPP_TURN] > 0.0 else 0.0
    sc[SC_SPREAD] = 1.0 if coefs[K_SPREAD] > 0.0 else 0.0
    sc[SC_GAIN] = coefs[K_GAIN]
    sc[SC_REVEAL] = 1.0 if coefs[K_REVEAL] > 0.0 and coefs[K_OPP_TURN] > 0.0 else 0.0
    if sc[SC_SPREAD] > 0.0:
        spread = opp_scratch[4]
        spread_fields(board, probs, spread.shape[0], spread)
    sc[SC_PAIRED] = 1.0 if coefs[K_PAIRED] > 0.0 else 0.0
    sc[SC_PAIR_SEED] = 0.0
    sc[SC_BASELINE] = 1.0 if coefs[K_BASELINE] > 0.0 else 0.0
    sc[SC_MARGIN] = coefs[K_MARGIN]
    sc[SC_WINDOW] = coefs[K_WINDOW]
    sc[SC_OPP_GREEDY] = 1.0 if coefs[K_OPP_GREEDY] > 0.0 and coefs[K_OPP_TURN] > 0.0 else 0.0
    if sc[SC_OPP_GREEDY] > 0.0:
        set_seen(probs, opp_scratch[10])
    sc[SC_ANSWER_REALIZED] = coefs[K_ANSWER_REALIZED]
    sc[SC_OPP_TORPEDO] = mem[M_OPP_CHARGE]
    sc[SC_OPP_SILENCE] = mem[M_OPP_SILENCE_CHARGE]
    draws = max(int(coefs[K_DRAWS]), 1)
    sc[SC_DRAWS] = draws
    sc[SC_WIDTH] = min(max(int(coefs[K_WIDTH]), 1), MAX_WIDTH)
    sc[SC_DEPTH] = max(int(coefs[K_DEPTH_CAP]), 1)
    sc[SC_NODES] = 1
    sc[SC_EDGES] = 0
    copy_into(n_state[0], state)
    n_nview[0] = n_self
    n_depth[0] = 0
    expand(board, 0, mem[M_TABLES:M_TABLES + TABLES_SIZE], coefs, rng, work)
    sc[SC_ITERATIONS] = 1
    if budget(coefs) > 1 and n_count[0] > 1:
        draw_cells(flds, draws, coefs[K_DRAW_WEIGHT], rng)
        if sc[SC_OPP_TURN] > 0.0:
            # Each draw's opponent mines, from the tracker (drawn only when used: the rng
            # stream, so the games, stay the same without the opponent's turn).
            mine_probabilities(mem[M_OPP_SAFE:M_OPP_SAFE + TRACKER], board, opp_scratch[0], np.zeros(CELLS))
            draw_mines(opp_scratch[0], draws, rng, opp_scratch[1])
        if sc[SC_PAIRED] > 0.0:
            sc[SC_PAIR_SEED] = rand_below(rng, 1 << 24)  # drawn only when used: the unpaired games stay
    return n_count[0]


@kernel
def v4_finish(state, board, p, rng, out, coefs, work):
    """The root's best line as v3 writes it, then v3's MINE and SONAR. Returns the rows."""
    _, edges, flds, scratch, _, _ = work
    probs, values, _, _, _, _ = flds
    e = root_choice(work)
    if e < 0:
        # Boxed in with one life and nothing charged: the only line left.
        return emit_action(out, 0, ACT_SURFACE, 0, 0)
    base = S.player_base(p)
    cell = state[base + S.CELL]
    charges = state[base + S.CHARGE:base + S.CHARGE + 4].copy()
    opp_life = max(state[S.player_base(1 - p) + S.LIFE], 1)
    n, end = write_line(board, cell, charges, scratch[1], edges[8][e], out)
    return powers_after(state, board, base, end, charges, probs, values[min(opp_life, 7)], coefs, rng, out, n)


@kernel
def v4_turn(state, board, p, mem, rng, out, coefs):
    """The v4 bot's line for player p (the turn slot): the tree for ``iterations``
    iterations, never a clock."""
    work = v4_work(coefs)
    if v4_begin(state, board, p, mem, rng, coefs, work) > 1:
        iterate(board, mem[M_TABLES:M_TABLES + TABLES_SIZE], coefs, rng, work, budget(coefs))
    return v4_finish(state, board, p, rng, out, coefs, work)
