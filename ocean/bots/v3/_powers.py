"""v3's TRIGGER, MINE and SONAR choices.

- TRIGGER: the best of our mines to blow from where we stand (blast value against the
  opponent, kill chance included), never one whose blast reaches us; the line scorer
  places it before, between the parts of, or after the line's movement.
- MINE: where the opponent's paths go (seed 002's attack mines): its likely cells spread a
  few moves ahead, summed under each spot's blast, beside v1's spacing.
- SONAR: the sector whose answer is expected to improve our best TORPEDO the most.
"""
import numpy as np

from ocean._jit import kernel

from ocean import _state as S
from ocean.board import SECTOR, STEP, WATER, has_bit
from ocean.bots._baselines import rand_below
from ocean.constants import CELLS, WIDTH
from ocean.tracking._kernel import blast_damage
from ocean.tracking._query import lowest_bit

NO_MINE = -1


@kernel
def best_trigger(state, base, where, values, threshold):
    """(value, mine cell) of our best TRIGGER from ``where``: the active mine whose blast is
    worth the most against the opponent (``values``) and at least ``threshold``, and cannot
    reach ``where``. Mine cell NO_MINE: none."""
    best = threshold
    best_m = NO_MINE
    for w in range(4):
        word = state[base + S.MINES_ACTIVE + w]
        while word != 0:
            m = w * 64 + lowest_bit(word)
            word &= word - 1
            if blast_damage(where, m % WIDTH, m // WIDTH) > 0:
                continue
            if values[m] >= best:
                best = values[m]
                best_m = m
    return (best if best_m != NO_MINE else 0.0), best_m


@kernel
def spread_step(board, src, dst):
    """dst: the presence ``src`` after one MOVE of the opponent, a random step to a water
    neighbour (a cell with none keeps its share)."""
    for c in range(CELLS):
        dst[c] = 0.0
    for c in range(CELLS):
        mass = src[c]
        if mass == 0.0:
            continue
        degree = 0
        for d in range(4):
            if board[STEP + c * 4 + d] >= 0:
                degree += 1
        if degree == 0:
            dst[c] += mass
            continue
        share = mass / degree
        for d in range(4):
            t = board[STEP + c * 4 + d]
            if t >= 0:
                dst[t] += share


@kernel
def traffic(board, probs, depth, out, scratch):
    """out[c]: the opponent's presence on c now and over its next ``depth`` moves, averaged
    (each move a random step to a water neighbour)."""
    for c in range(CELLS):
        out[c] = probs[c]
    layer = probs.copy()
    for _ in range(depth):
        spread_step(board, layer, scratch)
        for c in range(CELLS):
            layer[c] = scratch[c]
            out[c] += scratch[c]
    for c in range(CELLS):
        out[c] /= depth + 1


@kernel
def lay_mine(state, board, base, end, values, flow, spacing, attack, traffic_weight, rng):
    """Direction of the MINE to lay next to ``end``, or -1: where its blast is worth
    ``attack`` lives against the opponent now if such a spot is free, else the spot with the
    most ``traffic_weight`` x (the opponent's ``flow`` under its blast) + its distance to our
    nearest mine in king moves (at most 8), among those at least ``spacing`` from every mine
    of ours."""
    best_d = -1
    best = -1.0
    attacking = False
    for d in range(4):
        spot = board[STEP + end * 4 + d]
        if spot < 0:
            continue
        if has_bit(state, base + S.MINES_ACTIVE, spot) or has_bit(state, base + S.MINES_FRESH, spot):
            continue
        if values[spot] >= attack:
            if not attacking or values[spot] > best:
                best = values[spot]
                best_d = d
            attacking = True
        if attacking:
            continue
        gap = 8
        for m in range(CELLS):
            if has_bit(state, base + S.MINES_ACTIVE, m) or has_bit(state, base + S.MINES_FRESH, m):
                gap = min(gap, max(abs(m % WIDTH - spot % WIDTH), abs(m // WIDTH - spot // WIDTH)))
        if gap < spacing:
            continue
        under = 0.0
        sx = spot % WIDTH
        sy = spot // WIDTH
        for y in range(max(sy - 1, 0), min(sy + 2, WIDTH)):
            for x in range(max(sx - 1, 0), min(sx + 2, WIDTH)):
                under += flow[y * WIDTH + x]
        score = traffic_weight * under + gap + rand_below(rng, 1024) * 1e-6
        if score > best:
            best = score
            best_d = d
    return best_d


@kernel
def sonar_gains(board, probs, gains):
    """gains[s] for sectors 1..9: lives our best TORPEDO is expected to gain from knowing
    whether the opponent is in sector s: the best shot at the cells inside plus the best at
    the cells outside, less the best shot now (expected damage, the opponent on a cell drawn
    from ``probs``, any target on the map)."""
    best_in = np.zeros(10)
    best_out = np.zeros(10)
    inside = np.zeros(10)
    best_all = 0.0
    for t in range(CELLS):
        if not board[WATER + t]:
            continue
        inside[:] = 0.0
        total = 0.0
        tx = t % WIDTH
        ty = t // WIDTH
        for y in range(max(ty - 1, 0), min(ty + 2, WIDTH)):
            for x in range(max(tx - 1, 0), min(tx + 2, WIDTH)):
                c = y * WIDTH + x
                if probs[c] > 0.0:
                    v = probs[c] * (2.0 if c == t else 1.0)
                    inside[board[SECTOR + c]] += v
                    total += v
        if total == 0.0:
            continue
        best_all = max(best_all, total)
        for s in range(1, 10):
            best_in[s] = max(best_in[s], inside[s])
            best_out[s] = max(best_out[s], total - inside[s])
    for s in range(1, 10):
        gains[s] = best_in[s] + best_out[s] - best_all


@kernel
def choose_sonar(board, probs, min_gain):
    """The sector whose SONAR answer gains our best TORPEDO the most, if that is at least
    ``min_gain`` lives; 0: none."""
    shares = np.zeros(10)
    for c in range(CELLS):
        shares[board[SECTOR + c]] += probs[c]
    gains = np.zeros(10)
    sonar_gains(board, probs, gains)
    best_s = 0
    best = min_gain
    for s in range(1, 10):
        if shares[s] <= 1e-9 or shares[s] >= 1.0 - 1e-9:
            continue  # the answer is known already
        if gains[s] >= best:
            best = gains[s]
            best_s = s
    return best_s
