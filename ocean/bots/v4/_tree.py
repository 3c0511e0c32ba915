"""Seed 002's tree over v3's lines, in preallocated arrays (``new_work``: nothing is allocated
per node).

A node is a position of ours: a copy of the game state (our cell, path, lives, charges, mines;
the opponent's lives), where the opponent can believe we are (``N_VIEW``), and the greedy's
lines there (``_greedy``: the ``width`` best, each an edge with its score). One iteration:

1. descend from the root: at a node, the first of its lines (in the greedy's order) never
   looked ahead, else UCB1 over the edges' mean values (``ucb_c``), each edge counting its
   greedy score as its first visit;
2. at the first edge with no child for this iteration's draw, play the edge's line on a copy of
   the parent's state through the rules (``_rules.play_line``), the opponent put on the drawn
   cell: that is where its TORPEDO and TRIGGER deal what they deal;
3. run the greedy at the new node (the opponent stays uncertain there: the root's fields);
4. back its best score up the path: an edge's value from a child is its score (``realized_shots``
   of its shot's expected value replaced by what the shot dealt to the draw), plus ``lookahead_weight`` times (the child's
   value minus the parent's best score). Below the root, scores and baselines weigh
   ``below_greedy_weight``, and the rest of a line's worth is what it realised in lives (damage
   dealt to the draw, a kill counting ``kill_bonus`` more, less our lives lost).

With ``opponent_turn`` the opponent's turn follows our line in step 2 (``_opponent``: its mine,
its MOVE, its TORPEDO), the node keeps its result (our lives, its cell, its charge count, its
mines) and a node's answer table follows that count; ``answer_realized`` replaces that share of
a line's expected answer by the simulated one; ``opponent_spread`` and ``opponent_reveal`` change
where the greedy below the root believes the opponent is (``node_fields``); ``opponent_greedy``
plays the opponent's turn by v3's own line choice (``_opponent_greedy``).

Measuring and choosing: ``paired_draws`` gives every root line's k-th lookahead draw k and the
opponent's random steps a stream fixed by the draw (common random numbers);
``lookahead_baseline`` measures a lookahead from the line's own standing part rather than the
parent's best; ``switch_margin`` and ``switch_window`` bound when the root may leave the greedy's
first line (``root_choice``).

The opponent's state is drawn at the root (``determinizations`` cells, with chance by the
tracker's weights to the power ``draw_weight``), iterations cycling through the draws; each draw
makes its own children under the root's edges, and their subtrees inherit it. With one
iteration nothing is drawn and the root's best edge is v3's line.
"""
import math

import numpy as np

from ocean._jit import copy_into, kernel

from ocean import _rules
from ocean import _state as S
from ocean.bots._baselines import rand_below
from ocean.bots.v2._fields import NO_TARGET, blast_values
from ocean.bots.v3._lines import AT_END, LINE_FIELDS, MAX_LINES, opponent_view
from ocean.bots.v3._turn import (
    C_AT, C_ROW, C_TARGET, CHOSEN_SIZE, K_DEATH, K_KILL, K_LATER, K_LEAD, K_OPP_FIRE, K_RETALIATION,
    K_SILENCE_ATTACK, NO_LINE, answer_table, write_line,
)
from ocean.bots.v4._greedy import MAX_CANDIDATES, greedy_scratch, score_candidates, top_candidates
from ocean.bots.v4._opponent import opponent_scratch, play_opponent, seed_opponent
from ocean.bots.v4._opponent_greedy import play_opponent_greedy
from ocean.bots.v4.coefficients import INDEX_V4
from ocean.bots.v3._answer import FIRE_MOVED, ROWS
from ocean.constants import ACT_SURFACE, ACTION_FIELDS, CELLS, END_LIFE, MAX_LINE_ACTIONS, SILENCE, TORPEDO, WIDTH
from ocean.tracking._query import lowest_bit

# Scalars of a search (``new_work``'s ``sc``).
SC_TABLE = 0  # the opponent's answer table (v3's answer_table)
SC_TABLE_WEIGHT = 1
SC_SILENCE_SHARE = 2
SC_UCB = 3
SC_LOOKAHEAD = 4
SC_NODES = 5  # nodes made so far
SC_EDGES = 6
SC_P = 7  # our player id
SC_DRAWS = 8  # opponent cells drawn at the root
SC_WIDTH = 9
SC_DEPTH = 10
SC_ITERATIONS = 11  # iterations run so far (the root's expansion is the first)
SC_REALIZED = 12  # share of a shot's expected value replaced by what it deals to the draw
SC_BELOW_GREEDY = 13  # below the root: share of a line's worth that is its greedy score (rest: lives)
SC_OPP_TURN = 14  # 1: transitions play the opponent's turn (``_opponent``)
SC_ANSWER_REALIZED = 15  # share of a line's expected answer replaced by the simulated one
SC_OPP_TORPEDO = 16  # the opponent's MOVEs since its TORPEDO at the root (v3's count)
SC_OPP_SILENCE = 17  # and since its SILENCE
SC_SPREAD = 18  # 1: below the root the opponent's field is the root's spread by the node's depth
SC_GAIN = 19  # share of a lookahead above the parent's best kept (a loss below it is kept whole)
SC_REVEAL = 20  # 1: below the opponent's simulated TORPEDO, the greedy knows it is in reach of its target
SC_PAIRED = 21  # 1: a root line's k-th lookahead uses draw k, and the opponent's random steps follow the draw
SC_PAIR_SEED = 22  # the turn's seed of those steps (24 bits, drawn only when paired)
SC_BASELINE = 23  # 1: a lookahead is measured from the line's own standing part, not the parent's best
SC_MARGIN = 24  # lives by which a line's mean must beat the greedy's first line's for the root to leave it
SC_WINDOW = 25  # lives: the root plays only lines whose greedy score is this close to v3's line's (0: any)
SC_OPP_GREEDY = 26  # 1: the opponent's turn in a transition is v3's line choice from its side
SC_SIZE = 27
_DEAD = -10.0  # reward of a line the rules refuse (never expected: lines are legal where they are made)
_UNIFORM = 1 << 24
K_OPP_TRIGGER = INDEX_V4["opponent_trigger_threshold"]
K_OPP_HUNT = INDEX_V4["opponent_hunt"]

__all__ = ["new_work", "expand", "iterate", "root_choice", "draw_cells"]


@kernel
def new_work(max_nodes, width, draws, depths=1):
    """Every array one turn's search uses, allocated once: (nodes, edges, fields, scratch,
    the greedy's scratch, the opponent's turn's scratch)."""
    max_edges = max_nodes * width
    nodes = (np.empty((max_nodes, S.STATE_SIZE), dtype=np.int64),  # state
             np.empty((max_nodes, CELLS), dtype=np.int64),  # where the opponent can believe we are
             np.empty(max_nodes, dtype=np.int64),  # how many of them
             np.empty(max_nodes, dtype=np.int64),  # first edge
             np.empty(max_nodes, dtype=np.int64),  # edge count
             np.empty(max_nodes, dtype=np.int64),  # depth (root 0)
             np.empty(max_nodes, dtype=np.int64),  # terminal: 1
             np.empty(max_nodes),  # the greedy's best score there
             np.empty(max_nodes))  # reward of the edge that made it
    edges = (np.empty(max_edges),  # greedy score
             np.empty(max_edges),  # the score's expected shot value
             np.empty(max_edges),  # sum of backed-up values (the score counted once)
             np.empty(max_edges, dtype=np.int64),  # visits (the score counted once)
             np.empty((max_edges, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64),  # the encoded line
             np.empty(max_edges, dtype=np.int64),  # its rows
             np.empty((max_edges, 4), dtype=np.int64),  # the opponent's view after it, as a bitboard
             np.empty((max_edges, max(draws, 1)), dtype=np.int64),  # child per draw (-1: none)
             np.empty((max_edges, CHOSEN_SIZE), dtype=np.int64),  # its C_* slots (the root's are written)
             np.empty(max_edges))  # the lives its score loses to the opponent's expected answer
    fields = (np.zeros(CELLS),  # probs: where the opponent is
              np.zeros((8, CELLS)),  # blast values by the opponent's lives
              np.zeros(8, dtype=np.int64),  # which lives' values are computed
              np.zeros(CELLS),  # danger
              np.empty(max(draws, 1), dtype=np.int64),  # drawn opponent cells
              np.zeros(SC_SIZE))
    scratch = (np.empty((MAX_LINES, LINE_FIELDS), dtype=np.int64),  # lines at a node
               np.empty((MAX_LINES, LINE_FIELDS), dtype=np.int64),  # the root's lines, kept
               np.empty(MAX_CANDIDATES), np.empty(MAX_CANDIDATES),
               np.empty((MAX_CANDIDATES, CHOSEN_SIZE), dtype=np.int64),
               np.empty(16, dtype=np.int64),  # top candidates
               np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64), np.zeros(CELLS, dtype=np.int64),
               np.empty(4, dtype=np.int64),  # charges copy
               np.empty(64, dtype=np.int64), np.empty(64, dtype=np.int64),  # path: nodes, edges
               np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64),  # play_line's trace (none)
               np.empty(MAX_CANDIDATES))  # each candidate's expected answer
    return nodes, edges, fields, scratch, greedy_scratch(), opponent_scratch(draws, max(depths, 1), max_nodes)


@kernel
def values_for(board, fields, opp_life, coefs):
    """Blast values against the opponent with ``opp_life`` lives (v3's, computed once per life)."""
    probs, values, have, _, _, _ = fields
    life = min(max(opp_life, 1), 7)
    if have[life] == 0:
        blast_values(board, probs, life, coefs[K_KILL], values[life])
        have[life] = 1
    return values[life]


@kernel
def node_fields(board, node, opp_life, tables, coefs, work):
    """(where the opponent is, blast values against it) for the greedy at ``node``: the root's,
    or with ``opponent_spread`` the root's spread by the node's depth (values computed once per
    depth and life); with ``opponent_reveal``, after the opponent's simulated TORPEDO, that
    belief kept only where the shot could come from (its reach of the target, grown by its
    MOVE: v3's FIRE_MOVED table), as its shot would show."""
    fields, opp_scratch = work[2], work[5]
    sc = fields[5]
    depth = work[0][5][node]
    spread, spread_values, spread_have = opp_scratch[4], opp_scratch[5], opp_scratch[6]
    if node == 0 or sc[SC_SPREAD] <= 0.0 or depth >= spread.shape[0]:
        probs, values = fields[0], values_for(board, fields, opp_life, coefs)
    else:
        life = min(max(opp_life, 1), 7)
        if spread_have[depth, life] == 0:
            blast_values(board, spread[depth], life, coefs[K_KILL], spread_values[depth, life])
            spread_have[depth, life] = 1
        probs, values = spread[depth], spread_values[depth, life]
    target = opp_scratch[7][node]
    if sc[SC_REVEAL] <= 0.0 or target < 0:
        return probs, values
    shown, shown_values = opp_scratch[8][node], opp_scratch[9][node]
    total = 0.0
    for c in range(CELLS):
        y = c // WIDTH
        inside = (tables[FIRE_MOVED + target * ROWS + y] >> (c - y * WIDTH)) & 1
        shown[c] = probs[c] if inside else 0.0
        total += shown[c]
    if total <= 0.0:
        return probs, values
    for c in range(CELLS):
        shown[c] /= total
    blast_values(board, shown, min(max(opp_life, 1), 7), coefs[K_KILL], shown_values)
    return shown, shown_values


@kernel
def node_table(board, node, coefs, work):
    """(table, weight, silence share) of the opponent's answer at ``node`` (v3's
    ``answer_table``): the root's, or, when the opponent plays in the transitions, the one its
    counted charges at the node give."""
    sc = work[2][5]
    if node == 0 or sc[SC_OPP_TURN] <= 0.0:
        return int(sc[SC_TABLE]), sc[SC_TABLE_WEIGHT], sc[SC_SILENCE_SHARE]
    opp = S.player_base(1 - int(sc[SC_P]))
    state = work[0][0][node]
    return answer_table(state[opp + S.CHARGE + TORPEDO], state[opp + S.CHARGE + SILENCE], coefs[K_LATER],
                        coefs[K_SILENCE_ATTACK])


@kernel
def expand(board, node, tables, coefs, rng, work):
    """Run the greedy at ``node`` and make its edges (the ``width`` best candidates). Returns
    the greedy's best score (NO_LINE: no line)."""
    nodes, edges, fields, scratch, greedy, _ = work
    n_state, n_view, n_nview, n_first, n_count, _, n_terminal, n_best, _ = nodes
    e_score, e_shot, e_sum, e_visits, e_out, e_nout, e_view, e_child, e_chosen, e_answer = edges
    _, _, _, danger, _, sc = fields
    lines, root_lines, cand_score, cand_shot, cand, order, view, tmp, mark, charges, _, _, _, cand_answer = scratch
    state = n_state[node]
    p = int(sc[SC_P])
    base = S.player_base(p)
    cell = state[base + S.CELL]
    life = state[base + S.LIFE]
    opp_life = max(state[S.player_base(1 - p) + S.LIFE], 1)
    for k in range(4):
        charges[k] = state[base + S.CHARGE + k]
    probs, values = node_fields(board, node, opp_life, tables, coefs, work)
    table, table_weight, silence_share = node_table(board, node, coefs, work)
    n_cand = score_candidates(board, state, base, cell, life, opp_life, charges, probs, values, danger, n_view[node],
                              n_nview[node], tables, table, table_weight, silence_share, coefs, rng, lines, greedy,
                              cand_score, cand_shot, cand_answer, cand)
    k = top_candidates(cand_score, n_cand, int(sc[SC_WIDTH]), order)
    first = int(sc[SC_EDGES])
    n_first[node] = first
    n_count[node] = k
    n_terminal[node] = 0
    draws = e_child.shape[1]
    for j in range(k):
        i = order[j]
        e = first + j
        e_score[e] = cand_score[i]
        e_shot[e] = cand_shot[i]
        e_answer[e] = cand_answer[i]
        e_sum[e] = cand_score[i]
        e_visits[e] = 1
        for q in range(CHOSEN_SIZE):
            e_chosen[e, q] = cand[i, q]
        for d in range(draws):
            e_child[e, d] = -1
        for q in range(4):
            charges[q] = state[base + S.CHARGE + q]
        rows, _ = write_line(board, cell, charges, lines, cand[i], e_out[e])
        e_nout[e] = rows
        target = cand[i, C_TARGET]
        at = cand[i, C_AT] if target != NO_TARGET else AT_END
        n = opponent_view(board, lines, cand[i, C_ROW], cell, n_view[node], n_nview[node], at, target, view, tmp,
                          mark)
        for w in range(4):
            e_view[e, w] = 0
        for q in range(n):
            c = view[q]
            e_view[e, c >> 6] |= np.int64(1) << (c & 63)
    if node == 0:
        copy_into(root_lines.reshape(-1), lines.reshape(-1))
    sc[SC_EDGES] = first + k
    best = cand_score[order[0]] if k > 0 else NO_LINE
    n_best[node] = best
    return best


@kernel
def draw_cells(fields, n_draws, weight, rng):
    """Draw the root's opponent cells: chance proportional to probs ** ``weight``."""
    probs, _, _, _, drawn, _ = fields
    total = 0.0
    for c in range(CELLS):
        if probs[c] > 0.0:
            total += probs[c] ** weight
    for d in range(n_draws):
        u = rand_below(rng, _UNIFORM) / _UNIFORM * total
        acc = 0.0
        pick = -1
        for c in range(CELLS):
            if probs[c] > 0.0:
                pick = c
                acc += probs[c] ** weight
                if acc > u:
                    break
        drawn[d] = pick


@kernel
def _draw_stream(seed, draw, depth):
    """A nonzero xorshift state for the opponent's random steps of one draw at one depth
    (splitmix64 of the three): with ``paired_draws`` every root line meets the same opponent."""
    z = np.uint64(seed) * np.uint64(1000003) + np.uint64(draw) * np.uint64(7919) + np.uint64(depth)
    z += np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (z ^ (z >> np.uint64(31))) | np.uint64(1)


@kernel
def _make_child(board, parent, e, d, tables, coefs, rng, work, draw=0):
    """The child of edge ``e`` under draw ``d``: the line played on the parent's state with the
    opponent on the drawn cell (and, with ``opponent_turn``, the opponent's turn after it), its
    reward, and the greedy there. ``draw`` is the root's draw of this subtree (``d`` is slot 0
    below the root). Returns the node."""
    nodes, edges, fields, scratch, _, opp_scratch = work
    n_state, n_view, n_nview, _, n_count, n_depth, n_terminal, n_best, n_reward = nodes
    e_score, e_shot, _, _, e_out, e_nout, e_view, e_child, _, e_answer = edges
    _, _, _, _, drawn, sc = fields
    trace = scratch[12]
    node = int(sc[SC_NODES])
    sc[SC_NODES] = node + 1
    e_child[e, d] = node
    state = n_state[node]
    copy_into(state, n_state[parent])
    p = int(sc[SC_P])
    me = S.player_base(p)
    opp = S.player_base(1 - p)
    opponent_plays = sc[SC_OPP_TURN] > 0.0
    if opponent_plays:
        if parent == 0:
            # The opponent block from what it shows (never the game's hidden truth); below
            # the root the draw's opponent, moved by its turns, is inherited.
            seed_opponent(state, p, drawn[d], opp_scratch[1][d], int(sc[SC_OPP_TORPEDO]), int(sc[SC_OPP_SILENCE]))
    else:
        # Without the opponent's turn every transition puts it back on a drawn cell: below the
        # root ``d`` is slot 0, so draw 0's cell, not the subtree's own draw (the games of the
        # previous defaults, kept as they were; the opponent's turn inherits the draw).
        state[opp + S.CELL] = drawn[d]
    state[S.END] = 0
    state[S.ACTIONS] = 0
    state[S.ACTIVE] = p
    life_before = state[me + S.LIFE]
    opp_before = state[opp + S.LIFE]
    _rules.play_line(state, board, e_out[e], e_nout[e], trace)
    surface = 0
    for r in range(e_nout[e]):
        if e_out[e, r, 0] == ACT_SURFACE:
            surface += 1
    opp_after = max(state[opp + S.LIFE], 0)
    dealt = opp_before - opp_after
    if opp_after == 0:
        dealt += coefs[K_KILL]
    life_after = max(state[me + S.LIFE], 0)
    own = life_before - life_after - surface
    reward = e_score[e] + sc[SC_REALIZED] * (dealt - own - e_shot[e])
    n = 0
    for w in range(4):
        word = e_view[e, w]
        while word != 0:
            n_view[node, n] = w * 64 + lowest_bit(word)
            n += 1
            word &= word - 1
    n_nview[node] = n
    if opponent_plays and state[S.END] == 0 and life_after > 0 and opp_after > 0:
        # Its answer: where it believes us is where our line left us in its eyes.
        _, table_weight, _ = node_table(board, parent, coefs, work)
        fear = table_weight * coefs[K_RETALIATION] * max(0.0, 1.0 + coefs[K_LEAD] * (life_before - opp_before))
        paired = sc[SC_PAIRED] > 0.0
        saved = rng[0]
        if paired:
            # Common random numbers: after each of our lines the same draw makes the same steps,
            # so two lines differ by what they do, not by the opponent's luck.
            rng[0] = _draw_stream(int(sc[SC_PAIR_SEED]), draw, n_depth[parent])
        played = 0
        if sc[SC_OPP_GREEDY] > 0.0:
            torpedo_lost, fired_at, played = play_opponent_greedy(
                board, state, p, n_view[node], n, tables, coefs, rng, scratch[0], work[4], scratch[2], scratch[3],
                scratch[13], scratch[4], trace, opp_scratch[10])
        if played == 0:
            torpedo_lost, _, fired_at = play_opponent(board, state, p, n_view[node], n, coefs[K_OPP_FIRE],
                                                      coefs[K_OPP_TRIGGER], rng, opp_scratch, int(coefs[K_OPP_HUNT]))
        if paired:
            rng[0] = saved
        opp_scratch[7][node] = fired_at
        life_after = max(state[me + S.LIFE], 0)
        killed = 1.0 if torpedo_lost > 0 and life_after == 0 else 0.0
        reward += sc[SC_ANSWER_REALIZED] * (e_answer[e] - fear * (torpedo_lost + coefs[K_DEATH] * killed))
        if life_after == 0 or state[opp + S.LIFE] <= 0:
            _rules._finish(state, END_LIFE)
    elif opponent_plays and state[S.END] == 0 and (life_after == 0 or opp_after == 0):
        _rules._finish(state, END_LIFE)  # a kill ends the game: no future below it
    if n_depth[parent] > 0:
        # Below the root a line's worth mixes its greedy score (a ranking within its turn) with
        # what it realised in lives, which sums across turns as a ranking does not.
        lives = dealt - (life_before - life_after)
        if life_after == 0:
            lives -= coefs[K_KILL]
        tb = sc[SC_BELOW_GREEDY]
        reward = tb * reward + (1.0 - tb) * lives
    if state[me + S.ERROR] != 0:
        reward = _DEAD
    n_reward[node] = reward
    n_depth[node] = n_depth[parent] + 1
    n_count[node] = 0
    if state[S.END] != 0:
        n_terminal[node] = 1
        n_best[node] = n_best[parent]  # no future: the edge is worth its reward
        return node
    best = expand(board, node, tables, coefs, rng, work)
    if best == NO_LINE:
        n_terminal[node] = 1
        n_best[node] = n_best[parent] + _DEAD
    return node


@kernel
def _ucb_edge(node, c, work):
    """The edge of ``node`` UCB1 picks (first of equals)."""
    nodes, edges, _, _, _, _ = work
    n_first, n_count = nodes[3], nodes[4]
    e_sum, e_visits = edges[2], edges[3]
    first = n_first[node]
    total = 0
    for e in range(first, first + n_count[node]):
        if e_visits[e] == 1:
            return e  # every line is looked ahead once before UCB1 compares them (greedy order)
        total += e_visits[e]
    log_total = math.log(max(total, 1))
    best = -1e300
    pick = first
    for e in range(first, first + n_count[node]):
        v = e_sum[e] / e_visits[e] + c * math.sqrt(log_total / e_visits[e])
        if v > best:
            best = v
            pick = e
    return pick


@kernel
def iterate(board, tables, coefs, rng, work, iterations):
    """Run the search until ``iterations`` iterations are done in all (the root's expansion
    counts as the first) or the node arrays are full. Returns the iterations done."""
    nodes, edges, fields, scratch, _, _ = work
    n_count, n_depth, n_terminal, n_best, n_reward = nodes[4], nodes[5], nodes[6], nodes[7], nodes[8]
    e_score, e_shot, e_sum, e_visits, e_child, e_answer = edges[0], edges[1], edges[2], edges[3], edges[7], edges[9]
    sc = fields[5]
    path_nodes, path_edges = scratch[10], scratch[11]
    max_nodes = nodes[0].shape[0]
    draws = int(sc[SC_DRAWS])
    c = sc[SC_UCB]
    lookahead = sc[SC_LOOKAHEAD]
    tb = sc[SC_BELOW_GREEDY]
    gain = sc[SC_GAIN]
    depth_cap = int(sc[SC_DEPTH])
    paired = sc[SC_PAIRED] > 0.0
    own_baseline = sc[SC_BASELINE] > 0.0
    done = int(sc[SC_ITERATIONS])
    while done < iterations and int(sc[SC_NODES]) < max_nodes and n_count[0] > 0:
        d = (done - 1) % draws
        node = 0
        depth = 0
        while True:
            e = _ucb_edge(node, c, work)
            path_nodes[depth] = node
            path_edges[depth] = e
            depth += 1
            if node == 0 and paired:
                d = (e_visits[e] - 1) % draws  # its k-th lookahead meets draw k, as every line's does
            slot = d if node == 0 else 0
            child = e_child[e, slot]
            if child < 0:
                child = _make_child(board, node, e, slot, tables, coefs, rng, work, d)
                break
            node = child
            if n_terminal[node] == 1 or n_count[node] == 0 or n_depth[node] >= depth_cap:
                break
        # Back up: value of the deepest node, then edge by edge to the root (the greedy's
        # scores below the root weigh ``below_greedy_weight``, the baselines with them).
        v = tb * n_best[child]
        for k in range(depth - 1, -1, -1):
            parent = path_nodes[k]
            e = path_edges[k]
            below = child if k == depth - 1 else path_nodes[k + 1]
            if own_baseline:
                # What the line's score already credits to the position it leaves (its score less
                # its shot, its expected answer added back): the child's value replaces that part,
                # so a held TORPEDO's readiness is not counted again when the child fires it.
                delta = v - tb * (e_score[e] - e_shot[e] + e_answer[e])
            else:
                delta = v - tb * n_best[parent]
            if delta > 0.0:
                delta *= gain
            v = n_reward[below] + lookahead * delta
            e_sum[e] += v
            e_visits[e] += 1
        done += 1
        sc[SC_ITERATIONS] = done
    return done


@kernel
def root_choice(work):
    """The root's edge with the best mean value (first of equals) among the lines whose greedy
    score is within ``switch_window`` of the greedy's first (v3's line); that first line unless
    the best beats its mean by ``switch_margin`` lives; -1: no line."""
    nodes, edges, fields, _, _, _ = work
    n_count = nodes[4]
    e_score, e_sum, e_visits = edges[0], edges[2], edges[3]
    window = fields[5][SC_WINDOW]
    pick = -1
    best = -1e300
    for e in range(n_count[0]):
        if window > 0.0 and e_score[0] - e_score[e] > window:
            continue  # the search breaks near-ties of v3's scoring, it does not overrule it
        v = e_sum[e] / e_visits[e]
        if v > best:
            best = v
            pick = e
    if pick > 0 and best < e_sum[0] / e_visits[0] + fields[5][SC_MARGIN]:
        return 0  # a search's edge over v3's line smaller than the margin is taken for noise
    return pick
