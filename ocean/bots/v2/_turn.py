"""The v2 bot's turn: observe, fields, enumerate and score the lines, choose, write the
actions (then TRIGGER, MINE, SONAR). See the package doc for the stages."""
import math

import numpy as np

from ocean._jit import copy_into, kernel

from ocean import _state as S
from ocean.board import SECTOR, STEP
from ocean.bots._baselines import emit_action, rand_below
from ocean.bots.coefficients import INDEX_V2
from ocean.bots.v2._fields import NO_TARGET, best_shot, blast_values, mine_danger
from ocean.bots.v2._minefield import path_danger
from ocean.bots.v2._plausible import plausible_probabilities
from ocean.bots.v2._observe import M_OPP_ASSUME, M_OPP_CHARGE, M_OPP_SAFE, M_SELF, TRACKER, observe_turn
from ocean.bots.v2._retaliation import best_answer, near_opponent, revealed, shift, spread
from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER, CELLS, MINE, NO_POWER,
    POWER_COST, SILENCE, SONAR, TORPEDO, WIDTH,
)
from ocean.tracking._kernel import blast_damage
from ocean.tracking._query import cell_probabilities, mine_probabilities

# Coefficient slots (the v2 registry's order).
K_SILENCE_COST = INDEX_V2["silence_cost"]
K_SURFACE_COST = INDEX_V2["surface_cost"]
K_TORPEDO = INDEX_V2["torpedo_hit_threshold"]
K_TRIGGER = INDEX_V2["trigger_hit_threshold"]
K_STEALTH = INDEX_V2["stealth_weight"]
K_SPACE = INDEX_V2["space_weight"]
K_MINE_DANGER = INDEX_V2["mine_danger_weight"]
K_RETALIATION = INDEX_V2["retaliation_weight"]
K_DISCOUNT = INDEX_V2["discount"]
K_MINE_SPACING = INDEX_V2["mine_spacing"]
K_SONAR_WINDOW = INDEX_V2["sonar_window"]
K_ENGAGE = INDEX_V2["engage_distance"]
K_APPROACH = INDEX_V2["approach_weight"]
K_WALL = INDEX_V2["wall_weight"]
K_MINE_PRIORITY = INDEX_V2["mine_priority"]
K_UNREADY = INDEX_V2["opponent_unready_factor"]
K_RADIUS = INDEX_V2["retaliation_radius"]
K_EXACT = INDEX_V2["exact_retaliation_cells"]
K_ESTIMATE = INDEX_V2["retaliation_estimate"]
K_HORIZON = INDEX_V2["space_horizon"]
K_KILL = INDEX_V2["kill_bonus"]
K_LEAD = INDEX_V2["life_lead_weight"]
K_TORPEDO_READY = INDEX_V2["torpedo_ready_value"]
K_SILENCE_READY = INDEX_V2["silence_ready_value"]
K_DEPTH = INDEX_V2["path_depth"]
K_PATH_DANGER = INDEX_V2["path_danger_weight"]
K_DEAD_END = INDEX_V2["dead_end_cost"]
K_MINE_FEAR = INDEX_V2["mine_fear_cells"]
K_SILENCE_AFTER = INDEX_V2["silence_after_torpedo"]
K_ATTACK_MINE = INDEX_V2["attack_mine_value"]
K_PLAUSIBLE_CELLS = INDEX_V2["plausible_cells"]
K_PLAUSIBLE_HORIZON = INDEX_V2["plausible_horizon"]
K_PLAUSIBLE_ROOM = INDEX_V2["plausible_room_weight"]
K_PLAUSIBLE_WALL = INDEX_V2["plausible_wall_weight"]

_COST = np.array(POWER_COST, dtype=np.int64)
_ROOMY = 12  # with this much room and a free neighbour, SURFACE is never considered

# The chosen line, as choose_line writes it.
L_SURFACE = 0
L_MOVE = 1  # direction, -1: no MOVE
L_POWER = 2  # the power the MOVE charges
L_SIL_DIR = 3  # -1: no SILENCE
L_SIL_STEPS = 4
L_TARGET = 5  # TORPEDO target cell, NO_TARGET: none
L_AT = 6  # where the TORPEDO goes: AT_START, AT_MOVED (between MOVE and SILENCE), AT_END
LINE_SIZE = 7
AT_START = 0
AT_MOVED = 1
AT_END = 2


@kernel
def _bit(words, offset, cell):
    return (words[offset + (cell >> 6)] >> (cell & 63)) & 1


@kernel
def room(board, blocked, start, limit, seen, queue):
    """Water cells reachable from start through cells not ``blocked`` (start excluded),
    counting up to ``limit``."""
    seen[:] = 0
    seen[start] = 1
    head = 0
    tail = 1
    queue[0] = start
    count = 0
    while head < tail and count < limit:
        c = queue[head]
        head += 1
        for d in range(4):
            t = board[STEP + c * 4 + d]
            if t >= 0 and seen[t] == 0 and blocked[t] == 0:
                seen[t] = 1
                queue[tail] = t
                tail += 1
                count += 1
    return count


@kernel
def power_to_charge(charges, mine_rank):
    """The first power not yet full in the order TORPEDO, SILENCE, SONAR (the winner's order
    of needs) with MINE inserted at ``mine_rank``."""
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
def choose_line(board, cell, life, opp_life, charges, visited, probs, values, danger, self_cells, n_self,
                opp_ready, coefs, rng, line):
    """Stages 2-6: enumerate every line (optional SURFACE, a MOVE or none, an optional SILENCE
    of 0..4 steps, a TORPEDO before the MOVE, between MOVE and SILENCE or at the end), score
    each in lives and write the best into ``line`` (L_* slots). ``probs``: the opponent's cell
    probabilities; ``values``: blast values (``blast_values``); ``danger``: mine danger
    (``mine_danger``); ``self_cells[:n_self]``: where the opponent may believe we are;
    ``opp_ready``: 1 if its TORPEDO may be charged. Returns the best score (-1e18: no line)."""
    discount = coefs[K_DISCOUNT]
    depth = int(coefs[K_DEPTH])
    horizon = int(coefs[K_HORIZON])
    radius = int(coefs[K_RADIUS])
    exact = int(coefs[K_EXACT])
    fear = coefs[K_RETALIATION] * (1.0 if opp_ready else coefs[K_UNREADY])
    fear *= max(0.0, 1.0 + coefs[K_LEAD] * (life - opp_life))

    opp_cells = np.empty(CELLS, dtype=np.int64)
    n_opp = 0
    for c in range(CELLS):
        if probs[c] > 0.0:
            opp_cells[n_opp] = c
            n_opp += 1
    # Cells a line may not walk through: visited ones (all free again after a SURFACE).
    blocked_kept = np.zeros(CELLS, dtype=np.int64)
    blocked_fresh = np.zeros(CELLS, dtype=np.int64)
    for c in range(CELLS):
        blocked_kept[c] = _bit(visited, 0, c)
    blocked_kept[cell] = 1
    blocked_fresh[cell] = 1
    mark = np.zeros(CELLS, dtype=np.int64)
    seen = np.zeros(CELLS, dtype=np.int64)
    queue = np.empty(CELLS, dtype=np.int64)
    cover = np.zeros(CELLS)
    surfaced = np.empty(CELLS, dtype=np.int64)
    moved = np.empty(CELLS, dtype=np.int64)
    spread_cells = np.empty(CELLS, dtype=np.int64)
    shown = np.empty(CELLS, dtype=np.int64)
    shown2 = np.empty(CELLS, dtype=np.int64)
    path = np.empty(8, dtype=np.int64)
    target = np.empty(1, dtype=np.int64)
    cost = np.empty(CELLS)
    nxt = np.empty(CELLS)
    pred = np.empty(CELLS, dtype=np.int64)
    npred = np.empty(CELLS, dtype=np.int64)
    threshold = coefs[K_TORPEDO]

    free_now = 0
    for d in range(4):
        t = board[STEP + cell * 4 + d]
        if t >= 0 and not blocked_kept[t]:
            free_now += 1
    space_now = room(board, blocked_kept, cell, horizon, seen, queue)

    best_score = -1e18
    for surface in range(2):
        if surface == 1 and (life <= 1 or (free_now > 0 and space_now >= _ROOMY)):
            continue
        if surface == 0 and free_now == 0 and charges[SILENCE] < _COST[SILENCE]:
            continue
        blocked = blocked_fresh if surface == 1 else blocked_kept
        life_now = life - surface
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
        # A TORPEDO before moving is fired from here, whatever follows.
        start_value = 0.0
        start_target = NO_TARGET
        if charges[TORPEDO] >= _COST[TORPEDO]:
            start_value = best_shot(board, values, cell, life_now, target)
            start_target = target[0] if start_value >= threshold else NO_TARGET
        for d in range(-1, 4):
            if d >= 0:
                e1 = board[STEP + cell * 4 + d]
                if e1 < 0 or blocked[e1]:
                    continue
                n_m = shift(board, surfaced, n_s, d, moved, mark)
            else:
                e1 = cell
                copy_into(moved, surfaced[:n_s])
                n_m = n_s
            power = NO_POWER
            after = charges.copy()
            if d >= 0:
                power = power_to_charge(charges, coefs[K_MINE_PRIORITY])
                if after[power] < _COST[power]:
                    after[power] += 1
            can_silence = after[SILENCE] >= _COST[SILENCE]
            if d < 0 and not can_silence:
                continue
            n_spread = 0
            if can_silence:
                n_spread = spread(board, moved, n_m, spread_cells, mark)
            # A TORPEDO between the MOVE and a SILENCE is fired from e1.
            moved_value = 0.0
            moved_target = NO_TARGET
            if d >= 0 and can_silence and after[TORPEDO] >= _COST[TORPEDO]:
                moved_value = best_shot(board, values, e1, life_now, target)
                moved_target = target[0] if moved_value >= threshold else NO_TARGET
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
                    if t < 0 or blocked[t]:
                        legal = False
                        break
                    for j in range(n_path):
                        if path[j] == t:
                            legal = False
                    if not legal:
                        break
                    e = t
                    path[n_path] = t
                    n_path += 1
                if not legal:
                    continue
                # What does not depend on the TORPEDO: where we end, the room and mines ahead.
                near, dist = near_opponent(probs, opp_cells, n_opp, e, radius)
                for j in range(n_path):
                    blocked[path[j]] += 1
                free = room(board, blocked, e, horizon, seen, queue)
                ahead = path_danger(board, danger, blocked, e, depth, discount, coefs[K_DEAD_END], cost, nxt,
                                    pred, npred)
                for j in range(n_path):
                    blocked[path[j]] -= 1
                walls = 0
                for k in range(4):
                    if board[STEP + e * 4 + k] < 0:
                        walls += 1
                base_score = -surface * (1.0 + coefs[K_SURFACE_COST])
                if sil >= 0:
                    base_score -= coefs[K_SILENCE_COST]
                elif after[SILENCE] >= _COST[SILENCE]:
                    base_score += coefs[K_SILENCE_READY]
                # A mine is only blown under us where the opponent can place us (seed 002: when it
                # has narrowed us to a few cells); better hidden, less fear.
                n_line = n_spread if sil >= 0 else n_m
                mine_fear = min(1.0, coefs[K_MINE_FEAR] / max(n_line, 1))
                base_score -= mine_fear * (coefs[K_MINE_DANGER] * danger[e] + coefs[K_PATH_DANGER] * ahead)
                base_score -= coefs[K_SPACE] * discount ** free
                if dist > coefs[K_ENGAGE]:
                    base_score -= coefs[K_APPROACH] * (dist - coefs[K_ENGAGE])
                base_score += coefs[K_WALL] * walls
                # Damage: the best place to fire (at the start, between, at the end)...
                at = AT_END
                torpedo = NO_TARGET
                torpedo_value = 0.0
                if after[TORPEDO] >= _COST[TORPEDO]:
                    v = best_shot(board, values, e, life_now, target)
                    if v >= threshold:
                        torpedo = target[0]
                        torpedo_value = v
                if sil >= 0 and moved_target != NO_TARGET and moved_value > torpedo_value:
                    torpedo, torpedo_value, at = moved_target, moved_value, AT_MOVED
                if start_target != NO_TARGET and start_value > torpedo_value:
                    torpedo, torpedo_value, at = start_target, start_value, AT_START
                # ...against holding fire (the charge kept, nothing revealed): both scored.
                for fire in range(2):
                    if fire == 1 and torpedo == NO_TARGET:
                        break
                    if sil >= 0:
                        seen_cells = spread_cells
                        n_seen = n_spread
                    else:
                        seen_cells = moved
                        n_seen = n_m
                    score = base_score
                    if fire == 1:
                        score += torpedo_value
                        if sil >= 0:
                            score += (1.0 - coefs[K_SILENCE_AFTER]) * coefs[K_SILENCE_COST]
                        # What the shot tells the opponent about where we were, then moved on.
                        if at == AT_END:
                            n_seen = revealed(board, seen_cells, n_seen, torpedo, shown)
                        else:
                            if at == AT_START:
                                n_b = revealed(board, surfaced, n_s, torpedo, shown2)
                                if d >= 0:
                                    n_b = shift(board, shown2, n_b, d, shown, mark)
                                else:
                                    copy_into(shown, shown2[:n_b])
                            else:
                                n_b = revealed(board, moved, n_m, torpedo, shown)
                            if sil >= 0:
                                n_b = spread(board, shown, n_b, shown2, mark)
                                copy_into(shown, shown2[:n_b])
                            n_seen = n_b
                        seen_cells = shown
                    elif after[TORPEDO] >= _COST[TORPEDO]:
                        score += coefs[K_TORPEDO_READY]
                    n_seen = max(n_seen, 1)
                    if near > 0.0:
                        score -= fear * near * best_answer(seen_cells, n_seen, cover, exact, coefs[K_ESTIMATE])
                    score += coefs[K_STEALTH] * math.log2(n_seen)
                    score += rand_below(rng, 1024) * 1e-9
                    if score > best_score:
                        best_score = score
                        line[L_SURFACE] = surface
                        line[L_MOVE] = d
                        line[L_POWER] = power
                        line[L_SIL_DIR] = sil_dir if sil >= 0 else -1
                        line[L_SIL_STEPS] = steps
                        line[L_TARGET] = torpedo if fire == 1 else NO_TARGET
                        line[L_AT] = at
    return best_score


@kernel
def write_line(board, cell, charges, line, out):
    """Stage 7: the chosen line as encoded actions in ``out`` (charges updated); returns the
    row count and the cell we end on."""
    n = 0
    if line[L_SURFACE]:
        n = emit_action(out, n, ACT_SURFACE, 0, 0)
    target = line[L_TARGET]
    if target != NO_TARGET and line[L_AT] == AT_START:
        n = emit_action(out, n, ACT_TORPEDO, target % WIDTH, target // WIDTH)
        charges[TORPEDO] = 0
    end = cell
    if line[L_MOVE] >= 0:
        power = line[L_POWER]
        n = emit_action(out, n, ACT_MOVE, line[L_MOVE], power)
        end = board[STEP + cell * 4 + line[L_MOVE]]
        if charges[power] < _COST[power]:
            charges[power] += 1
    if target != NO_TARGET and line[L_AT] == AT_MOVED:
        n = emit_action(out, n, ACT_TORPEDO, target % WIDTH, target // WIDTH)
        charges[TORPEDO] = 0
    if line[L_SIL_DIR] >= 0:
        n = emit_action(out, n, ACT_SILENCE, line[L_SIL_DIR], line[L_SIL_STEPS])
        charges[SILENCE] = 0
        for _ in range(line[L_SIL_STEPS]):
            end = board[STEP + end * 4 + line[L_SIL_DIR]]
    if target != NO_TARGET and line[L_AT] == AT_END:
        n = emit_action(out, n, ACT_TORPEDO, target % WIDTH, target // WIDTH)
        charges[TORPEDO] = 0
    return n, end


@kernel
def v2_turn(state, board, p, mem, rng, out, coefs):
    """The v2 bot's line for player p (encoded rows in ``out``; returns their count)."""
    observe_turn(state, board, p, mem)
    base = S.player_base(p)
    cell = state[base + S.CELL]
    life = state[base + S.LIFE]
    opp_life = max(state[S.player_base(1 - p) + S.LIFE], 1)  # shown to every CodinGame bot
    charges = state[base + S.CHARGE:base + S.CHARGE + 4].copy()
    visited = state[base + S.VISITED:base + S.VISITED + 4].copy()

    probs = np.zeros(CELLS)
    plausible_probabilities(mem[M_OPP_ASSUME:M_OPP_ASSUME + TRACKER], board, int(coefs[K_PLAUSIBLE_CELLS]),
                            int(coefs[K_PLAUSIBLE_HORIZON]), coefs[K_PLAUSIBLE_ROOM], coefs[K_PLAUSIBLE_WALL], probs,
                            np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64))
    values = np.zeros(CELLS)
    blast_values(board, probs, opp_life, coefs[K_KILL], values)
    mine_probs = np.zeros(CELLS)
    mine_probabilities(mem[M_OPP_SAFE:M_OPP_SAFE + TRACKER], board, mine_probs, np.zeros(CELLS))
    danger = np.zeros(CELLS)
    mine_danger(board, mine_probs, danger)
    self_probs = np.zeros(CELLS)
    cell_probabilities(mem[M_SELF:M_SELF + TRACKER], self_probs)
    self_cells = np.empty(CELLS, dtype=np.int64)
    n_self = 0
    for c in range(CELLS):
        if self_probs[c] > 0.0:
            self_cells[n_self] = c
            n_self += 1
    opp_ready = mem[M_OPP_CHARGE] >= _COST[TORPEDO]

    line = np.zeros(LINE_SIZE, dtype=np.int64)
    score = choose_line(board, cell, life, opp_life, charges, visited, probs, values, danger, self_cells, n_self,
                        opp_ready, coefs, rng, line)
    if score == -1e18:
        # Boxed in with one life and nothing charged: the only line left.
        return emit_action(out, 0, ACT_SURFACE, 0, 0)
    n, end = write_line(board, cell, charges, line, out)
    n = trigger(state, board, base, end, values, coefs, out, n)
    if charges[MINE] >= _COST[MINE]:
        n = lay_mine(state, board, base, end, values, coefs, rng, out, n)
    if charges[SONAR] >= _COST[SONAR]:
        n = sonar(board, probs, coefs, out, n)
    return n


@kernel
def trigger(state, board, base, end, values, coefs, out, n):
    """Blow the own mine with the best blast value (expected damage and kill chance) if it
    clears ``trigger_hit_threshold`` and cannot hurt us where we stand."""
    best = coefs[K_TRIGGER]
    best_m = -1
    for m in range(CELLS):
        if not _bit(state, base + S.MINES_ACTIVE, m):
            continue
        if blast_damage(end, m % WIDTH, m // WIDTH) > 0:
            continue
        if values[m] >= best:
            best = values[m]
            best_m = m
    if best_m >= 0:
        n = emit_action(out, n, ACT_TRIGGER, best_m % WIDTH, best_m // WIDTH)
    return n


@kernel
def lay_mine(state, board, base, end, values, coefs, rng, out, n):
    """Lay a mine next to us: where its blast is worth ``attack_mine_value`` lives against the
    opponent (``values``: blast values) if such a cell is free, else where none of ours lies
    within ``mine_spacing`` cells."""
    spacing = coefs[K_MINE_SPACING]
    best_d = -1
    best_gap = -1
    attack = coefs[K_ATTACK_MINE]
    attacking = False  # an attack spot found: spacing no longer counts
    for d in range(4):
        spot = board[STEP + end * 4 + d]
        if spot < 0:
            continue
        if _bit(state, base + S.MINES_ACTIVE, spot) or _bit(state, base + S.MINES_FRESH, spot):
            continue
        if values[spot] >= attack:
            attack = values[spot]
            best_d = d
            attacking = True
        if attacking:
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
def sonar(board, probs, coefs, out, n):
    """SONAR the sector whose share of the opponent's probability is closest to one half, if
    that share lies inside [sonar_window, 1 - sonar_window]."""
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
