"""The opponent's turn by v3's own line choice (coefficient ``opponent_greedy``, with
``opponent_turn``): in a transition, the opponent on its drawn cell scores its lines with v3's
kernel (``score_lines``, through v4's greedy) from its side and plays the best through the rules.

Its side of v3's inputs comes from what the node holds and what it could know:

- where it believes we are: uniform over the cells it can believe us on after our line (the
  edge's view), and the blast values against us there;
- where it believes it can be seen: the cells the root's belief about it gives (its stealth);
- its charges: the MOVEs it made since its TORPEDO and SILENCE (as v3 counts them), nothing
  else charged; our answer: the table our TORPEDO and SILENCE charges give;
- our mines: unknown to it (no danger); its mines: the draw's.

Against v3, whose turn is this very kernel, this is the opponent's own policy with its hidden
state guessed; the random or hunting step of ``_opponent`` is the fallback where its line cannot
be played on the guessed state.
"""
import numpy as np

from ocean._jit import copy_into, kernel

from ocean import _rules
from ocean import _state as S
from ocean.bots.v2._fields import NO_TARGET, blast_values
from ocean.bots.v3._turn import C_TARGET, K_KILL, K_LATER, K_SILENCE_ATTACK, answer_table, write_line
from ocean.bots.v4._greedy import score_candidates, top_candidates
from ocean.constants import ACTION_FIELDS, CELLS, MAX_LINE_ACTIONS, POWER_COST, SILENCE, TORPEDO

_COST = np.array(POWER_COST, dtype=np.int64)

__all__ = ["greedy_opponent_scratch", "set_seen", "play_opponent_greedy"]


@kernel
def greedy_opponent_scratch():
    """Arrays of the greedy opponent's turns, allocated once a turn: (where it believes us,
    blast values against us, no danger, its encoded line, its charges, the state before its
    line, the cells it believes it can be seen on, their count in slot 0, its best candidate)."""
    return (np.zeros(CELLS), np.zeros(CELLS), np.zeros(CELLS),
            np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.zeros(S.STATE_SIZE, dtype=np.int64), np.zeros(CELLS, dtype=np.int64), np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int64))


@kernel
def set_seen(probs, scratch):
    """Where the opponent can believe it is seen: the cells of the root's belief about it."""
    seen, count = scratch[6], scratch[7]
    n = 0
    for c in range(CELLS):
        if probs[c] > 0.0:
            seen[n] = c
            n += 1
    count[0] = n


@kernel
def play_opponent_greedy(board, state, p, view, n_view, tables, coefs, rng, lines, greedy, cand_score, cand_shot,
                         cand_answer, cand, trace, scratch):
    """The opponent's turn on ``state`` by v3's line choice from its side (after our line; it
    believes us on ``view[:n_view]``). Returns (lives we lost, its TORPEDO's target or -1, 1 if
    it played; 0: no line it could play, ``state`` untouched)."""
    probs, values, danger, out, charges, before, seen, count, order = scratch
    q = 1 - p
    me = S.player_base(p)
    opp = S.player_base(q)
    n = max(n_view, 1)
    for c in range(CELLS):
        probs[c] = 0.0
    for i in range(n_view):
        probs[view[i]] = 1.0 / n
    our_life = max(state[me + S.LIFE], 1)
    blast_values(board, probs, min(our_life, 7), coefs[K_KILL], values)
    cell = state[opp + S.CELL]
    life = state[opp + S.LIFE]
    copy_into(before, state)
    # Its counted MOVEs stand for its charges (v3's own reading of an opponent's charges); its
    # line is scored with them and played with its charge slots set to them.
    for k in (TORPEDO, SILENCE):
        state[opp + S.CHARGE + k] = min(state[opp + S.CHARGE + k], _COST[k])
    for k in range(4):
        charges[k] = state[opp + S.CHARGE + k] if k == TORPEDO or k == SILENCE else 0
    table, weight, share = answer_table(state[me + S.CHARGE + TORPEDO], state[me + S.CHARGE + SILENCE],
                                        coefs[K_LATER], coefs[K_SILENCE_ATTACK])
    n_cand = score_candidates(board, state, opp, cell, life, our_life, charges, probs, values, danger, seen,
                              count[0], tables, table, weight, share, coefs, rng, lines, greedy, cand_score, cand_shot,
                              cand_answer, cand)
    if top_candidates(cand_score, n_cand, 1, order) == 0:
        copy_into(state, before)
        return 0, -1, 0
    best = order[0]
    rows, _ = write_line(board, cell, charges, lines, cand[best], out)
    state[S.ACTIVE] = q
    state[S.ACTIONS] = 0
    life_before = state[me + S.LIFE]
    _rules.play_line(state, board, out, rows, trace)
    state[S.ACTIVE] = p
    if state[opp + S.ERROR] != 0:
        copy_into(state, before)  # a line its guessed state cannot play: the caller's fallback
        return 0, -1, 0
    target = cand[best, C_TARGET]
    return life_before - max(state[me + S.LIFE], 0), -1 if target == NO_TARGET else target, 1
