"""Step 1 of seed 002's search for v4: v3's one-turn greedy, keeping every line it scored.

``score_candidates`` is v3's ``choose_line`` (``bots/v3/_turn.py``) scoring loop, statement for
statement (the same kernels, the same order, the same rng draws for exact ties), except that it
keeps each candidate — a line holding fire or firing its best TORPEDO — with its score and the
part of its score that a shot is expected to deal (``values`` of its TORPEDO and TRIGGER), which
a determinized transition replaces by what the shot deals. ``top_candidates`` ranks them the way
``choose_line`` chooses (first of equal scores), so the best kept candidate is v3's line.
"""
import math

import numpy as np

from ocean._jit import kernel

from ocean.bots._baselines import rand_below
from ocean.bots.v2._fields import NO_TARGET
from ocean.bots.v3._lines import AT_END, L_SIL_DIR, L_SURFACE, MAX_LINES, charges_after, group_key, opponent_view
from ocean.bots.v3._turn import (
    C_AT, C_ROW, C_TARGET, C_TRIGGER, C_TRIGGER_AT, CHOSEN_SIZE, K_COUNTER, K_LEAD, K_RETALIATION, K_SILENCE_AFTER,
    K_SILENCE_COST, K_STEALTH, K_TORPEDO, K_TORPEDO_READY, NO_LINE, answer_loss, answer_scratch, best_torpedo,
    ending_score, line_setup, path_scratch, place_trigger, start_shots,
)
from ocean.constants import CELLS, POWER_COST, TORPEDO, WIDTH
from ocean.tracking._kernel import blast_damage

MAX_CANDIDATES = 2 * MAX_LINES  # every line, holding fire and firing
_COST = np.array(POWER_COST, dtype=np.int64)

__all__ = ["MAX_CANDIDATES", "greedy_scratch", "score_candidates", "top_candidates"]


@kernel
def greedy_scratch():
    """Scratch for ``score_candidates``, allocated once a turn: (mark, held, fired, tmp,
    answering, path, target, after, start_value, start_target)."""
    return (np.zeros(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64),
            np.empty(CELLS, dtype=np.int64), answer_scratch(), path_scratch(), np.empty(1, dtype=np.int64),
            np.empty(4, dtype=np.int64), np.zeros(2), np.full(2, NO_TARGET, dtype=np.int64))


@kernel
def score_candidates(board, state, base, cell, life, opp_life, charges, probs, values, danger, self_cells, n_self,
                     tables, table, table_weight, silence_share, coefs, rng, lines, scratch, cand_score, cand_shot,
                     cand):
    """v3's ``choose_line`` that keeps every candidate: ``cand_score[k]`` its score in lives,
    ``cand_shot[k]`` the part of it its TORPEDO and TRIGGER are expected to deal (net of our
    own blast), ``cand[k]`` its C_* slots. Returns the candidate count (0: no line)."""
    threshold = coefs[K_TORPEDO]
    fear = table_weight * coefs[K_RETALIATION] * max(0.0, 1.0 + coefs[K_LEAD] * (life - opp_life))

    n_lines, n_opp, opp_cells, opp_rows, blocked_kept, blocked_fresh, seen, queue = line_setup(
        board, state, base, cell, life, charges, probs, coefs, lines)

    mark, held, fired, tmp, answering, path, target, after, start_value, start_target = scratch
    start_value[0] = 0.0
    start_value[1] = 0.0
    start_target[0] = NO_TARGET
    start_target[1] = NO_TARGET
    trigger_start, mine_start = start_shots(board, state, base, cell, life, charges, values, coefs, start_value,
                                            start_target, target)

    n_cand = 0
    key = -1
    n_held = 0
    for row in range(n_lines):
        surface = lines[row, L_SURFACE]
        life_now = life - surface
        if group_key(lines, row) != key:
            key = group_key(lines, row)
            n_held = opponent_view(board, lines, row, cell, self_cells, n_self, AT_END, NO_TARGET, held, tmp, mark)
        charges_after(lines, row, charges, after)
        silenced = lines[row, L_SIL_DIR] >= 0

        base_score = ending_score(board, danger, blocked_fresh if surface == 1 else blocked_kept, lines, row, after,
                                  probs, opp_cells, n_opp, n_held, coefs, seen, queue, path)

        trigger_value, trigger_mine, trigger_at = place_trigger(state, base, lines, row, values, coefs, trigger_start,
                                                                mine_start)
        base_score += trigger_value

        torpedo, torpedo_value, at, torpedo_from = best_torpedo(board, values, lines, row, cell, life_now, charges,
                                                                after, start_target[surface], start_value[surface],
                                                                threshold, target)

        for fire in range(2):
            if fire == 1 and torpedo == NO_TARGET:
                break
            score = base_score
            shot = trigger_value
            life_left = life_now
            if fire == 1:
                n_view = opponent_view(board, lines, row, cell, self_cells, n_self, at, torpedo, fired, tmp, mark)
                view = fired
                score += torpedo_value
                shot += torpedo_value
                if silenced:
                    score += (1.0 - coefs[K_SILENCE_AFTER]) * coefs[K_SILENCE_COST]
                life_left -= blast_damage(torpedo_from, torpedo % WIDTH, torpedo // WIDTH)
                torpedo_next = False
            else:
                n_view = n_held
                view = held
                if after[TORPEDO] >= _COST[TORPEDO]:
                    score += coefs[K_TORPEDO_READY]
                torpedo_next = after[TORPEDO] + 1 >= _COST[TORPEDO]
            if table >= 0:
                loss, fires = answer_loss(tables, table, silence_share, view, n_view, probs, opp_rows, coefs,
                                          life_left, answering)
                score -= fear * loss
                if torpedo_next:
                    score += table_weight * coefs[K_COUNTER] * fires
            score += coefs[K_STEALTH] * math.log2(max(n_view, 1))
            score += rand_below(rng, 1024) * 1e-9
            cand_score[n_cand] = score
            cand_shot[n_cand] = shot
            cand[n_cand, C_ROW] = row
            cand[n_cand, C_TARGET] = torpedo if fire == 1 else NO_TARGET
            cand[n_cand, C_AT] = at
            cand[n_cand, C_TRIGGER] = trigger_mine
            cand[n_cand, C_TRIGGER_AT] = trigger_at
            n_cand += 1
    return n_cand


@kernel
def top_candidates(cand_score, n_cand, width, order):
    """The ``width`` best of ``cand_score[:n_cand]`` into ``order`` (best first; of equal
    scores the first, as ``choose_line`` keeps the first best). Returns how many."""
    k = min(width, n_cand)
    for j in range(k):
        best = NO_LINE
        pick = -1
        for i in range(n_cand):
            taken = False
            for q in range(j):
                if order[q] == i:
                    taken = True
                    break
            if taken:
                continue
            if pick < 0 or cand_score[i] > best:
                best = cand_score[i]
                pick = i
        order[j] = pick
    return k
