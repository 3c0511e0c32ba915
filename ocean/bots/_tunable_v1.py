"""FROZEN: the v1 tunable bot (policies ``tunable`` and ``tunable-v1``, every v1 panel member
and every coefficient file without ``bot = "tunable-v2"``). This module never changes again:
the frozen bots' fingerprints are hashes of what it plays. New work goes into the v2 bot
(ocean/bots/v2/). It reads the v1 coefficient registry (``coefficients.INDEX``), which is
frozen with it.

The v1 tunable bot, in the spirit of the 2020 winner's (../shared/seeds/000): every turn it
enumerates the sensible movement lines — optional SURFACE, a MOVE (or none), an optional
SILENCE of 0..4 steps after it, a TORPEDO before or after moving — and scores each in
lives, discounted: damage it expects to deal (hit probabilities from its tracker of the
opponent), the opponent's best retaliation given how well the opponent can know where we
are (our own tracker run from its side), mine danger where we end and next, room left
before we must surface, and the costs of spending SURFACE and SILENCE. TRIGGER, MINE and
SONAR are then added by threshold rules. Every weight is a named coefficient
(coefficients.py); the coefficient vector arrives in registry order.

Deterministic: the rng only breaks exact ties; the work per turn is bounded by the plan
count, never by a clock.
"""
import math

import numpy as np

from ocean._jit import copy_into, inline_kernel, kernel

from ocean import _state as S
from ocean.board import REACH, SECTOR, STEP, WATER
from ocean.bots._baselines import emit_action, rand_below
from ocean.bots.coefficients import INDEX
from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER, CELLS,
    MINE, NO_POWER, POWER_COST, SILENCE, SONAR, SONAR_NA, SONAR_NO, SONAR_YES, TORPEDO,
    WIDTH,
)
from ocean.tracking._driver import observe_from_state
from ocean.tracking._kernel import blast_damage, observe, reset_tracker
from ocean.tracking._layout import DEFAULT_CAP, tracker_layout, tracker_size
from ocean.tracking._query import cell_probabilities, lowest_bit, mine_probabilities

# Coefficient slots (registry order).
K_SILENCE_COST = INDEX["silence_cost"]
K_SURFACE_COST = INDEX["surface_cost"]
K_TORPEDO_AFTER = INDEX["torpedo_hit_threshold"]
K_TORPEDO_BEFORE = INDEX["torpedo_hit_threshold_before"]
K_TRIGGER = INDEX["trigger_hit_threshold"]
K_STEALTH = INDEX["stealth_weight"]
K_SPACE = INDEX["space_weight"]
K_MINE_DANGER = INDEX["mine_danger_weight"]
K_RETALIATION = INDEX["retaliation_weight"]
K_DISCOUNT = INDEX["discount"]
K_MINE_SPACING = INDEX["mine_spacing"]
K_SONAR_WINDOW = INDEX["sonar_window"]
K_ENGAGE = INDEX["engage_distance"]
K_APPROACH = INDEX["approach_weight"]
K_WALL = INDEX["wall_weight"]
K_MINE_PRIORITY = INDEX["mine_priority"]

# Memory: bookkeeping, then three trackers (the opponent: safe and assumption; ourselves
# as the opponent can track us).
M_OPP_PREV = 0  # 8 triples: the opponent's summary shown at our previous turn
M_OPP_PREV_COUNT = 24
M_CELL_PREV = 25  # our cell during that opponent turn (its SONAR looked there)
M_OPP_CHARGE = 26  # MOVEs the opponent made since its last TORPEDO
M_HEADER = 32
_TRACKER = tracker_size(DEFAULT_CAP)
M_OPP_SAFE = M_HEADER
M_OPP_ASSUME = M_OPP_SAFE + _TRACKER
M_SELF = M_OPP_ASSUME + _TRACKER
TUNABLE_MEM = M_SELF + _TRACKER

_COST = np.array(POWER_COST, dtype=np.int64)
_SPACE_LIMIT = 60  # flood fills stop here: discount**60 is already small
_EXACT_RETALIATION = 24  # beyond this many cells the opponent's best shot is estimated
_NO_TARGET = -1


@kernel
def tunable_reset(board, mem):
    """Fresh memory for a game: trackers on every water cell, nothing seen yet."""
    mem[:M_HEADER] = 0
    for offset, assume in ((M_OPP_SAFE, 0), (M_OPP_ASSUME, 1), (M_SELF, 0)):
        trk = mem[offset:offset + _TRACKER]
        tracker_layout(trk, DEFAULT_CAP, assume)
        reset_tracker(trk, board)


@kernel
def _bit(words, offset, cell):
    return (words[offset + (cell >> 6)] >> (cell & 63)) & 1


@kernel
def _sonar_answer(board, line, n, cell):
    """The answer the opponent got to a SONAR in its line, given where we were."""
    for i in range(n):
        if line[3 * i] == ACT_SONAR:
            return SONAR_YES if board[SECTOR + cell] == line[3 * i + 1] else SONAR_NO
    return SONAR_NA


@inline_kernel  # its one caller (tunable_turn): no library of its own
def _observe_turn(state, board, p, mem):
    """Feed the three trackers with everything shown since our last turn."""
    me = S.player_base(p)
    opp = S.player_base(1 - p)
    cell = state[me + S.CELL]
    observe_from_state(mem[M_OPP_SAFE:M_OPP_SAFE + _TRACKER], mem[M_OPP_ASSUME:M_OPP_ASSUME + _TRACKER],
                       board, state, p)
    n_opp = state[opp + S.SUMMARY_COUNT]
    opp_line = state[opp + S.SUMMARY:opp + S.SUMMARY + 24]
    n_own = state[me + S.SUMMARY_COUNT]
    if n_own > 0:
        # The opponent's view of us, as it stood at the start of its last turn: its own
        # previous line (and our answer to its sonar), our line, our life after our line.
        life_after = max(state[me + S.LIFE], 0)
        for i in range(n_opp):
            kind = opp_line[3 * i]
            if kind == ACT_TORPEDO or kind == ACT_TRIGGER:
                life_after += blast_damage(cell, opp_line[3 * i + 1], opp_line[3 * i + 2])
        prev_n = mem[M_OPP_PREV_COUNT]
        prev = mem[M_OPP_PREV:M_OPP_PREV + 24]
        answer = _sonar_answer(board, prev, prev_n, mem[M_CELL_PREV])
        no_mines = np.zeros(4, dtype=np.int64)
        observe(mem[M_SELF:M_SELF + _TRACKER], board, prev, prev_n, answer,
                state[me + S.SUMMARY:me + S.SUMMARY + 24], n_own, life_after, no_mines)
    copy_into(mem[M_OPP_PREV:M_OPP_PREV + 24], opp_line)
    mem[M_OPP_PREV_COUNT] = n_opp
    mem[M_CELL_PREV] = cell
    for i in range(n_opp):
        kind = opp_line[3 * i]
        if kind == ACT_MOVE:
            mem[M_OPP_CHARGE] += 1
        elif kind == ACT_TORPEDO:
            mem[M_OPP_CHARGE] = 0


@kernel
def _blast_expectation(board, probs, values):
    """values[t]: lives a blast at t is expected to take from a submarine on a cell drawn from
    ``probs`` (2 on t, 1 on its eight neighbours); 0 on islands."""
    for t in range(CELLS):
        v = 0.0
        if board[WATER + t]:
            tx = t % WIDTH
            ty = t // WIDTH
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    x = tx + dx
                    y = ty + dy
                    if 0 <= x < WIDTH and 0 <= y < WIDTH:
                        c = y * WIDTH + x
                        v += probs[c] * (2.0 if dx == 0 and dy == 0 else 1.0)
        values[t] = v


@kernel
def _mine_danger(board, mine_probs, danger):
    """danger[e]: lives we expect to lose on e if the opponent blows every mine near it (a
    blast takes at most 2)."""
    _blast_expectation(board, mine_probs, danger)
    for e in range(CELLS):
        danger[e] = min(danger[e], 2.0)


@kernel
def _best_shot(board, values, src, target_out, life):
    """Best TORPEDO from src: (value, target). The value counts our own blast damage
    against us, and a shot that would kill us is never taken."""
    best = 0.0
    best_t = _NO_TARGET
    for w in range(4):
        word = board[REACH + src * 4 + w]
        while word != 0:
            t = w * 64 + lowest_bit(word)
            word &= word - 1
            own = blast_damage(src, t % WIDTH, t // WIDTH)
            if own >= life:
                continue
            v = values[t] - own
            if v > best:
                best = v
                best_t = t
    target_out[0] = best_t
    return best


@kernel
def roomy_start(board, rng):
    """A uniformly random water cell of the largest body of water. A start in a closed pocket
    (some maps have pockets of a dozen cells) means surfacing every few turns until dead."""
    label = np.full(CELLS, -1, dtype=np.int64)
    queue = np.empty(CELLS, dtype=np.int64)
    best_label = -1
    best_size = 0
    for c0 in range(CELLS):
        if not board[WATER + c0] or label[c0] >= 0:
            continue
        label[c0] = c0
        queue[0] = c0
        head = 0
        tail = 1
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(4):
                t = board[STEP + c * 4 + d]
                if t >= 0 and label[t] < 0:
                    label[t] = c0
                    queue[tail] = t
                    tail += 1
        if tail > best_size:
            best_size = tail
            best_label = c0
    while True:
        c = rand_below(rng, CELLS)
        if board[WATER + c] and label[c] == best_label:
            return c


@kernel
def _space(board, visited, extra, n_extra, start, seen, queue):
    """Water cells reachable from start through cells neither visited nor in extra[:n]
    (start excluded), counting up to _SPACE_LIMIT."""
    seen[:] = 0
    for i in range(n_extra):
        seen[extra[i]] = 1
    seen[start] = 1
    head = 0
    tail = 0
    queue[tail] = start
    tail += 1
    count = 0
    while head < tail and count < _SPACE_LIMIT:
        c = queue[head]
        head += 1
        for d in range(4):
            t = board[STEP + c * 4 + d]
            if t >= 0 and seen[t] == 0 and not _bit(visited, 0, t):
                seen[t] = 1
                queue[tail] = t
                tail += 1
                count += 1
    return count


@kernel
def _shift(board, src, n, d, out_cells, mark):
    """Cells one MOVE in direction d away from src[:n] (the opponent's view of us moving)."""
    m = 0
    for i in range(n):
        t = board[STEP + src[i] * 4 + d]
        if t >= 0 and mark[t] == 0:
            mark[t] = 1
            out_cells[m] = t
            m += 1
    for i in range(m):
        mark[out_cells[i]] = 0
    return m


@kernel
def _spread(board, src, n, out_cells, mark):
    """Cells a SILENCE of 0..4 steps can reach from src[:n]."""
    m = 0
    for i in range(n):
        c = src[i]
        if mark[c] == 0:
            mark[c] = 1
            out_cells[m] = c
            m += 1
        for d in range(4):
            t = c
            for _ in range(4):
                t = board[STEP + t * 4 + d]
                if t < 0:
                    break
                if mark[t] == 0:
                    mark[t] = 1
                    out_cells[m] = t
                    m += 1
    for i in range(m):
        mark[out_cells[i]] = 0
    return m


@kernel
def _revealed(board, src, n, target, out_cells):
    """The cells of src[:n] from which a TORPEDO at target could have been fired."""
    m = 0
    for i in range(n):
        if _bit(board, REACH + target * 4, src[i]):
            out_cells[m] = src[i]
            m += 1
    return m


@kernel
def _retaliation(cells, n, cover):
    """Lives the opponent expects to take from us with its best shot when it believes we
    are on one of cells[:n], each equally likely."""
    if n == 0:
        return 0.0
    if n > _EXACT_RETALIATION:
        return 5.0 / n
    cover[:] = 0.0
    best = 0.0
    for i in range(n):
        c = cells[i]
        cx = c % WIDTH
        cy = c // WIDTH
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                x = cx + dx
                y = cy + dy
                if 0 <= x < WIDTH and 0 <= y < WIDTH:
                    t = y * WIDTH + x
                    cover[t] += 2.0 if dx == 0 and dy == 0 else 1.0
                    if cover[t] > best:
                        best = cover[t]
    return best / n


@kernel
def _near_opponent(probs, opp_cells, n_opp, e, radius):
    """Probability the opponent is within ``radius`` (Manhattan) of cell e, and its
    expected distance."""
    near = 0.0
    dist = 0.0
    ex = e % WIDTH
    ey = e // WIDTH
    for i in range(n_opp):
        o = opp_cells[i]
        d = abs(o % WIDTH - ex) + abs(o // WIDTH - ey)
        dist += probs[o] * d
        if d <= radius:
            near += probs[o]
    return near, dist


@kernel
def _power_to_charge(charges, mine_rank):
    """The first power not yet full in the order TORPEDO, SILENCE, SONAR (the winner's
    order of needs) with MINE inserted at ``mine_rank``."""
    rank = 0
    for power in (TORPEDO, SILENCE, SONAR):
        if rank == mine_rank and charges[MINE] < _COST[MINE]:
            return MINE
        rank += 1
        if charges[power] < _COST[power]:
            return power
    if charges[MINE] < _COST[MINE]:
        return MINE
    return TORPEDO


@kernel
def tunable_turn(state, board, p, mem, rng, out, coefs):
    """The tunable bot's line for player p (encoded rows in ``out``; returns their count)."""
    _observe_turn(state, board, p, mem)
    base = S.player_base(p)
    cell = state[base + S.CELL]
    life = state[base + S.LIFE]
    charges = state[base + S.CHARGE:base + S.CHARGE + 4].copy()
    visited = state[base + S.VISITED:base + S.VISITED + 4].copy()
    discount = coefs[K_DISCOUNT]

    probs = np.zeros(CELLS)
    cell_probabilities(mem[M_OPP_ASSUME:M_OPP_ASSUME + _TRACKER], probs)
    opp_cells = np.empty(CELLS, dtype=np.int64)
    n_opp = 0
    for c in range(CELLS):
        if probs[c] > 0.0:
            opp_cells[n_opp] = c
            n_opp += 1
    mine_probs = np.zeros(CELLS)
    mine_probabilities(mem[M_OPP_SAFE:M_OPP_SAFE + _TRACKER], board, mine_probs, np.zeros(CELLS))
    shot_values = np.zeros(CELLS)
    _blast_expectation(board, probs, shot_values)
    danger = np.zeros(CELLS)
    _mine_danger(board, mine_probs, danger)

    # Where the opponent may believe we are now.
    self_cells = np.empty(CELLS, dtype=np.int64)
    self_probs = np.zeros(CELLS)
    cell_probabilities(mem[M_SELF:M_SELF + _TRACKER], self_probs)
    n_self = 0
    for c in range(CELLS):
        if self_probs[c] > 0.0:
            self_cells[n_self] = c
            n_self += 1

    ready = 1.0 if mem[M_OPP_CHARGE] >= _COST[TORPEDO] else 0.35
    mark = np.zeros(CELLS, dtype=np.int64)
    seen = np.zeros(CELLS, dtype=np.int64)
    queue = np.empty(CELLS, dtype=np.int64)
    cover = np.zeros(CELLS)
    surfaced = np.empty(CELLS, dtype=np.int64)
    moved = np.empty(CELLS, dtype=np.int64)
    spread = np.empty(CELLS, dtype=np.int64)
    shown = np.empty(CELLS, dtype=np.int64)
    shown2 = np.empty(CELLS, dtype=np.int64)
    path = np.empty(8, dtype=np.int64)
    target = np.empty(1, dtype=np.int64)
    empty_visited = np.zeros(4, dtype=np.int64)

    # A TORPEDO before moving is fired from here, whatever the plan.
    before_value = 0.0
    before_target = _NO_TARGET
    if charges[TORPEDO] >= _COST[TORPEDO]:
        before_value = _best_shot(board, shot_values, cell, target, life)
        before_target = target[0]
        if before_value < coefs[K_TORPEDO_BEFORE]:
            before_target = _NO_TARGET

    free_now = 0
    for d in range(4):
        t = board[STEP + cell * 4 + d]
        if t >= 0 and not _bit(visited, 0, t):
            free_now += 1
    space_now = _space(board, visited, path, 0, cell, seen, queue)

    best_score = -1e18
    best_surface = 0
    best_move = -1
    best_sil_dir = -1
    best_sil_steps = 0
    best_torpedo = _NO_TARGET
    best_torpedo_after = False
    best_power = NO_POWER
    for surface in range(2):
        if surface == 1 and (life <= 1 or (free_now > 0 and space_now >= 12)):
            continue
        if surface == 0 and free_now == 0 and charges[SILENCE] < _COST[SILENCE]:
            continue
        n_s = 0
        if surface == 1:
            sector = board[SECTOR + cell]
            for i in range(n_self):
                if board[SECTOR + self_cells[i]] == sector:
                    surfaced[n_s] = self_cells[i]
                    n_s += 1
        else:
            copy_into(surfaced, self_cells[:n_self])
            n_s = n_self
        for d in range(-1, 4):
            if d >= 0:
                e1 = board[STEP + cell * 4 + d]
                if e1 < 0:
                    continue
                if surface == 0 and _bit(visited, 0, e1):
                    continue
                n_m = _shift(board, surfaced, n_s, d, moved, mark)
            else:
                e1 = cell
                copy_into(moved, surfaced[:n_s])
                n_m = n_s
            power = NO_POWER
            after = charges.copy()
            if d >= 0:
                power = _power_to_charge(charges, coefs[K_MINE_PRIORITY])
                if after[power] < _COST[power]:
                    after[power] += 1
            can_silence = after[SILENCE] >= _COST[SILENCE]
            if d < 0 and not can_silence:
                continue
            n_spread = 0
            if can_silence:
                n_spread = _spread(board, moved, n_m, spread, mark)
            for sil in range(-1, 17):
                # sil -1: no SILENCE; 0: SILENCE of 0 steps; 1..16: direction, 1..4 steps.
                if sil >= 0 and not can_silence:
                    break
                if sil < 0 and d < 0:
                    continue
                sil_dir = 0 if sil <= 0 else (sil - 1) // 4
                steps = 0 if sil <= 0 else (sil - 1) % 4 + 1
                e = e1
                n_path = 0
                if d >= 0:
                    path[n_path] = e1
                    n_path += 1
                legal = True
                for _ in range(steps):
                    t = board[STEP + e * 4 + sil_dir]
                    if t < 0 or t == cell or (surface == 0 and _bit(visited, 0, t)):
                        legal = False
                        break
                    dup = False
                    for j in range(n_path):
                        if path[j] == t:
                            dup = True
                    if dup:
                        legal = False
                        break
                    e = t
                    path[n_path] = t
                    n_path += 1
                if not legal:
                    continue
                # What the opponent will be able to believe about us.
                if sil >= 0:
                    seen_cells = spread
                    n_seen = n_spread
                else:
                    seen_cells = moved
                    n_seen = n_m
                # Our best shot after moving, against firing before, or holding fire.
                torpedo = _NO_TARGET
                torpedo_after = False
                torpedo_value = 0.0
                if after[TORPEDO] >= _COST[TORPEDO]:
                    v = _best_shot(board, shot_values, e, target, life)
                    if v >= coefs[K_TORPEDO_AFTER]:
                        torpedo = target[0]
                        torpedo_after = True
                        torpedo_value = v
                if before_target != _NO_TARGET and before_value > torpedo_value:
                    torpedo = before_target
                    torpedo_after = False
                    torpedo_value = before_value
                if torpedo != _NO_TARGET:
                    if torpedo_after:
                        n_seen = _revealed(board, seen_cells, n_seen, torpedo, shown)
                    else:
                        # Fired before moving: the shot pins where we started.
                        n_b = _revealed(board, surfaced, n_s, torpedo, shown2)
                        if d >= 0:
                            n_b = _shift(board, shown2, n_b, d, shown, mark)
                        else:
                            copy_into(shown, shown2[:n_b])
                        if sil >= 0:
                            n_b = _spread(board, shown, n_b, shown2, mark)
                            copy_into(shown, shown2[:n_b])
                        n_seen = n_b
                    seen_cells = shown
                n_seen = max(n_seen, 1)
                near, dist = _near_opponent(probs, opp_cells, n_opp, e, 6)
                path[n_path] = cell  # visited in any case, surfaced or not
                free = _space(board, empty_visited if surface == 1 else visited, path, n_path + 1, e, seen, queue)
                next_danger = 2.0
                walls = 0
                for k in range(4):
                    t = board[STEP + e * 4 + k]
                    if t < 0:
                        walls += 1
                        continue
                    if surface == 0 and _bit(visited, 0, t):
                        continue
                    next_danger = min(next_danger, danger[t])
                if next_danger == 2.0:
                    next_danger = 0.0
                score = torpedo_value
                score -= surface * (1.0 + coefs[K_SURFACE_COST])
                if sil >= 0:
                    score -= coefs[K_SILENCE_COST]
                score -= coefs[K_MINE_DANGER] * (danger[e] + discount * next_danger)
                score -= coefs[K_RETALIATION] * ready * near * _retaliation(seen_cells, n_seen, cover)
                score += coefs[K_STEALTH] * math.log2(n_seen)
                score -= coefs[K_SPACE] * discount ** free
                if dist > coefs[K_ENGAGE]:
                    score -= coefs[K_APPROACH] * (dist - coefs[K_ENGAGE])
                score += coefs[K_WALL] * walls
                score += rand_below(rng, 1024) * 1e-9
                if score > best_score:
                    best_score = score
                    best_surface = surface
                    best_move = d
                    best_sil_dir = sil_dir if sil >= 0 else -1
                    best_sil_steps = steps
                    best_torpedo = torpedo
                    best_torpedo_after = torpedo_after
                    best_power = power

    n = 0
    if best_score == -1e18:
        # Boxed in with one life and nothing charged: the only line left.
        return emit_action(out, n, ACT_SURFACE, 0, 0)
    if best_surface:
        n = emit_action(out, n, ACT_SURFACE, 0, 0)
    if best_torpedo != _NO_TARGET and not best_torpedo_after:
        n = emit_action(out, n, ACT_TORPEDO, best_torpedo % WIDTH, best_torpedo // WIDTH)
        charges[TORPEDO] = 0
    end = cell
    if best_move >= 0:
        n = emit_action(out, n, ACT_MOVE, best_move, best_power)
        end = board[STEP + cell * 4 + best_move]
        if charges[best_power] < _COST[best_power]:
            charges[best_power] += 1
    if best_sil_dir >= 0:
        n = emit_action(out, n, ACT_SILENCE, best_sil_dir, best_sil_steps)
        for _ in range(best_sil_steps):
            end = board[STEP + end * 4 + best_sil_dir]
    if best_torpedo != _NO_TARGET and best_torpedo_after:
        n = emit_action(out, n, ACT_TORPEDO, best_torpedo % WIDTH, best_torpedo // WIDTH)
    n = _trigger(state, board, base, end, life, probs, coefs, out, n)
    if charges[MINE] >= _COST[MINE]:
        n = _mine(state, board, base, end, coefs, rng, out, n)
    if charges[SONAR] >= _COST[SONAR]:
        n = _sonar(board, probs, n_opp, coefs, out, n)
    return n


@kernel
def _trigger(state, board, base, end, life, probs, coefs, out, n):
    """Blow the own mine with the best expected damage if it clears the threshold and
    cannot hurt us where we stand."""
    best = coefs[K_TRIGGER]
    best_m = -1
    for m in range(CELLS):
        if not _bit(state, base + S.MINES_ACTIVE, m):
            continue
        if blast_damage(end, m % WIDTH, m // WIDTH) > 0:
            continue
        v = 0.0
        mx = m % WIDTH
        my = m // WIDTH
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                x = mx + dx
                y = my + dy
                if 0 <= x < WIDTH and 0 <= y < WIDTH:
                    v += probs[y * WIDTH + x] * (2.0 if dx == 0 and dy == 0 else 1.0)
        if v >= best:
            best = v
            best_m = m
    if best_m >= 0:
        n = emit_action(out, n, ACT_TRIGGER, best_m % WIDTH, best_m // WIDTH)
    return n


@kernel
def _mine(state, board, base, end, coefs, rng, out, n):
    """Lay a mine next to us where none of ours lies within ``mine_spacing`` cells."""
    spacing = coefs[K_MINE_SPACING]
    best_d = -1
    best_gap = -1
    for d in range(4):
        spot = board[STEP + end * 4 + d]
        if spot < 0:
            continue
        if _bit(state, base + S.MINES_ACTIVE, spot) or _bit(state, base + S.MINES_FRESH, spot):
            continue
        gap = 99
        for m in range(CELLS):
            if _bit(state, base + S.MINES_ACTIVE, m) or _bit(state, base + S.MINES_FRESH, m):
                gap = min(gap, max(abs(m % WIDTH - spot % WIDTH), abs(m // WIDTH - spot // WIDTH)))
        if gap < spacing:
            continue
        gap = gap * 4 + rand_below(rng, 4)
        if gap > best_gap:
            best_gap = gap
            best_d = d
    if best_d >= 0:
        n = emit_action(out, n, ACT_MINE, best_d, 0)
    return n


@kernel
def _sonar(board, probs, n_opp, coefs, out, n):
    """SONAR the sector whose share of the opponent's probability is closest to one half,
    if that share lies inside [sonar_window, 1 - sonar_window]."""
    if n_opp <= 1:
        return n
    shares = np.zeros(10)
    for c in range(CELLS):
        shares[board[SECTOR + c]] += probs[c]
    window = coefs[K_SONAR_WINDOW]
    best_s = -1
    best_gap = 1.0
    for s in range(1, 10):
        if window <= shares[s] <= 1.0 - window and abs(shares[s] - 0.5) < best_gap:
            best_gap = abs(shares[s] - 0.5)
            best_s = s
    if best_s > 0:
        n = emit_action(out, n, ACT_SONAR, best_s, 0)
    return n
