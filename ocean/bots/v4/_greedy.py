"""Step 1 of seed 002's search for v4: v3's one-turn greedy, keeping every line it scored.

``score_candidates`` is v3's line scoring (``bots/v3/_turn.score_lines``, the kernel v3's
``choose_line`` runs: the same order, the same rng draws for exact ties) keeping each
candidate — a line holding fire or firing its best TORPEDO — with its score and the part of its
score that a shot is expected to deal (``values`` of its TORPEDO and TRIGGER), which a
determinized transition replaces by what the shot deals, and the part the opponent's answer is
expected to cost, which the simulated opponent turn (``_opponent``) can replace likewise. ``top_candidates`` ranks them the way
``choose_line`` chooses (first of equal scores), so the best kept candidate is v3's line.
"""
from ocean._jit import kernel

from ocean.bots.v3._lines import MAX_LINES
from ocean.bots.v3._turn import NO_LINE, line_scratch, score_lines

MAX_CANDIDATES = 2 * MAX_LINES  # every line, holding fire and firing

__all__ = ["MAX_CANDIDATES", "greedy_scratch", "score_candidates", "top_candidates"]


@kernel
def greedy_scratch():
    """Scratch for ``score_candidates``, allocated once a turn (v3's ``line_scratch``)."""
    return line_scratch()


@kernel
def score_candidates(board, state, base, cell, life, opp_life, charges, probs, values, danger, self_cells, n_self,
                     tables, table, table_weight, silence_share, coefs, rng, lines, scratch, cand_score, cand_shot,
                     cand_answer, cand):
    """v3's line scoring keeping every candidate: ``cand_score[k]`` its score in lives,
    ``cand_shot[k]`` the part of it its TORPEDO and TRIGGER are expected to deal (net of our
    own blast), ``cand_answer[k]`` the lives its score loses to the opponent's expected answer,
    ``cand[k]`` its C_* slots. Returns the candidate count (0: no line)."""
    return score_lines(board, state, base, cell, life, opp_life, charges, probs, values, danger, self_cells, n_self,
                       tables, table, table_weight, silence_share, coefs, rng, lines, scratch, cand_score, cand_shot,
                       cand_answer, cand, True)


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
