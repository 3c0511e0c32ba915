"""The v3 bot's turn: observe, fields, score every line (``_lines``) with its best TORPEDO
and TRIGGER placed in it and the opponent's answer (``_answer``), choose, write the actions,
then MINE and SONAR (``_powers``). See the package doc for the stages."""
import math

import numpy as np

from ocean._jit import kernel

from ocean import _state as S
from ocean.board import STEP, has_bit
from ocean.bots._baselines import emit_action, rand_below
from ocean.bots.coefficients import INDEX_V3
from ocean.bots.v2._fields import NO_TARGET, best_shot, blast_values, mine_danger
from ocean.bots.v2._observe import M_OPP_ASSUME, M_OPP_SAFE, M_SELF, TRACKER
from ocean.bots.v2._plausible import plausible_probabilities
from ocean.bots.v2._retaliation import near_opponent
from ocean.bots.v2._turn import room
from ocean.bots.v3._answer import (
    FIRE_MOVED, FIRE_SILENCED, MAX_COVER, ROWS, TABLES_SIZE, cells_to_rows, opponent_answer,
)
from ocean.bots.v3._lines import (
    AT_END, AT_MID, AT_START, L_END, L_MID, L_MOVE, L_ORDER, L_PATH, L_PATH_COUNT, L_POWER, L_SIL_DIR, L_SIL_STEPS,
    L_SURFACE, LINE_FIELDS, MAX_LINES, ORDER_SILENCE_FIRST, charges_after, enumerate_lines, group_key, opponent_view,
)
from ocean.bots.v3._minefield import path_danger
from ocean.bots.v3._observe import M_OPP_CHARGE, M_OPP_SILENCE_CHARGE, M_TABLES, v3_observe
from ocean.bots.v3._powers import NO_MINE, best_trigger, choose_sonar, lay_mine, traffic
from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER, CELLS, MINE, POWER_COST,
    SILENCE, SONAR, TORPEDO, WIDTH,
)
from ocean.tracking._kernel import blast_damage
from ocean.tracking._query import cell_probabilities, mine_probabilities

# Coefficient slots (the v3 registry's order).
K_SILENCE_COST = INDEX_V3["silence_cost"]
K_SURFACE_COST = INDEX_V3["surface_cost"]
K_TORPEDO = INDEX_V3["torpedo_hit_threshold"]
K_TRIGGER = INDEX_V3["trigger_hit_threshold"]
K_STEALTH = INDEX_V3["stealth_weight"]
K_SPACE = INDEX_V3["space_weight"]
K_MINE_DANGER = INDEX_V3["mine_danger_weight"]
K_RETALIATION = INDEX_V3["retaliation_weight"]
K_DISCOUNT = INDEX_V3["discount"]
K_MINE_SPACING = INDEX_V3["mine_spacing"]
K_ENGAGE = INDEX_V3["engage_distance"]
K_APPROACH = INDEX_V3["approach_weight"]
K_WALL = INDEX_V3["wall_weight"]
K_MINE_PRIORITY = INDEX_V3["mine_priority"]
K_HORIZON = INDEX_V3["space_horizon"]
K_KILL = INDEX_V3["kill_bonus"]
K_LEAD = INDEX_V3["life_lead_weight"]
K_TORPEDO_READY = INDEX_V3["torpedo_ready_value"]
K_SILENCE_READY = INDEX_V3["silence_ready_value"]
K_DEPTH = INDEX_V3["path_depth"]
K_PATH_DANGER = INDEX_V3["path_danger_weight"]
K_DEAD_END = INDEX_V3["dead_end_cost"]
K_MINE_FEAR = INDEX_V3["mine_fear_cells"]
K_SILENCE_AFTER = INDEX_V3["silence_after_torpedo"]
K_ATTACK_MINE = INDEX_V3["attack_mine_value"]
K_PLAUSIBLE_CELLS = INDEX_V3["plausible_cells"]
K_PLAUSIBLE_HORIZON = INDEX_V3["plausible_horizon"]
K_PLAUSIBLE_ROOM = INDEX_V3["plausible_room_weight"]
K_PLAUSIBLE_WALL = INDEX_V3["plausible_wall_weight"]
K_OPP_FIRE = INDEX_V3["opponent_fire_threshold"]
K_DEATH = INDEX_V3["death_weight"]
K_COUNTER = INDEX_V3["counter_value"]
K_LATER = INDEX_V3["later_answer_weight"]
K_SILENCE_FIRST = INDEX_V3["silence_before_move"]
K_SILENCE_ATTACK = INDEX_V3["opponent_silence_attack"]
K_SONAR_GAIN = INDEX_V3["sonar_min_gain"]
K_TRAFFIC_DEPTH = INDEX_V3["mine_traffic_depth"]
K_TRAFFIC = INDEX_V3["mine_traffic_weight"]

_COST = np.array(POWER_COST, dtype=np.int64)
NO_LINE = -1e18

# The chosen line, as choose_line writes it.
C_ROW = 0  # row of the line table
C_TARGET = 1  # TORPEDO target, NO_TARGET: none
C_AT = 2  # where in the line (AT_*)
C_TRIGGER = 3  # mine to blow, NO_MINE: none
C_TRIGGER_AT = 4  # where in the line (AT_*)
CHOSEN_SIZE = 5


@kernel
def _cells_of(probs, out):
    """The cells where ``probs`` is positive, into ``out``; returns their count."""
    n = 0
    for c in range(CELLS):
        if probs[c] > 0.0:
            out[n] = c
            n += 1
    return n


@kernel
def fields(board, mem, opp_life, coefs, probs, values, danger, self_cells):
    """Stage 2, the fields (v2's, from v2's frozen kernels): where the opponent is (``probs``,
    its states weighted by plausibility), what a blast on each cell is worth against it
    (``values``), the danger of its mines (``danger``), and where it can believe we are
    (``self_cells``; returns their count)."""
    plausible_probabilities(mem[M_OPP_ASSUME:M_OPP_ASSUME + TRACKER], board, int(coefs[K_PLAUSIBLE_CELLS]),
                            int(coefs[K_PLAUSIBLE_HORIZON]), coefs[K_PLAUSIBLE_ROOM], coefs[K_PLAUSIBLE_WALL], probs,
                            np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64))
    blast_values(board, probs, opp_life, coefs[K_KILL], values)
    mine_probs = np.zeros(CELLS)
    mine_probabilities(mem[M_OPP_SAFE:M_OPP_SAFE + TRACKER], board, mine_probs, np.zeros(CELLS))
    mine_danger(board, mine_probs, danger)
    self_probs = np.zeros(CELLS)
    cell_probabilities(mem[M_SELF:M_SELF + TRACKER], self_probs)
    return _cells_of(self_probs, self_cells)


@kernel
def answer_table(opp_torpedo_moves, opp_silence_moves, later_weight, silence_attack):
    """(table, weight, silence share) of the opponent's answer next turn: the table of where
    it can fire from (FIRE_MOVED, or FIRE_SILENCED; -1: it cannot fire), how much its answer
    weighs, and the share of it that comes with a SILENCE first (``silence_attack`` while its
    SILENCE may be charged). Its charges are not shown, only its actions: since its last
    TORPEDO it made ``opp_torpedo_moves`` MOVEs, each charging at most one power, and it moves
    (one more charge) before it fires; likewise for SILENCE. When its TORPEDO cannot be
    charged by its next turn but can by the one after, what it learns of us now counts
    ``later_weight`` times, from two moves away (the silenced table holds every two-step
    reach)."""
    if opp_torpedo_moves + 1 < _COST[TORPEDO]:
        if opp_torpedo_moves + 2 < _COST[TORPEDO] or later_weight == 0.0:
            return -1, 0.0, 0.0
        return FIRE_SILENCED, later_weight, 0.0
    silence = opp_silence_moves >= _COST[SILENCE] or (opp_silence_moves + 1 >= _COST[SILENCE]
                                                     and opp_torpedo_moves >= _COST[TORPEDO])
    return FIRE_MOVED, 1.0, (silence_attack if silence else 0.0)


@kernel
def path_scratch():
    """Scratch arrays for ``_minefield.path_danger`` in ``ending_score``."""
    return (np.empty(CELLS), np.empty(CELLS), np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64),
            np.empty(8, dtype=np.int64))


@kernel
def ending_score(board, danger, blocked, lines, row, after, probs, opp_cells, n_opp, n_seen, coefs, seen, queue,
                 path):
    """What line ``row`` is worth where it ends, whatever it fires: the costs of its SURFACE and
    SILENCE (or a SILENCE kept charged), the opponent's mines there and on the cheapest path
    ahead (feared less when it can believe us on more than ``mine_fear_cells`` of ``n_seen``
    cells), the room left, the distance to the opponent beyond ``engage_distance``, the walls
    around. ``blocked``: our visited cells (1/0; the line's path is added and removed here).
    The rest is scratch (``path``: ``path_scratch()``)."""
    cost, nxt, pred, npred, layer = path
    e = lines[row, L_END]
    n_path = lines[row, L_PATH_COUNT]
    for j in range(n_path):
        blocked[lines[row, L_PATH + j]] += 1
    free = room(board, blocked, e, int(coefs[K_HORIZON]), seen, queue)
    ahead = path_danger(board, danger, blocked, e, int(coefs[K_DEPTH]), coefs[K_DISCOUNT], coefs[K_DEAD_END], cost,
                        nxt, pred, npred, layer)
    for j in range(n_path):
        blocked[lines[row, L_PATH + j]] -= 1
    walls = 0
    for k in range(4):
        if board[STEP + e * 4 + k] < 0:
            walls += 1
    _, dist = near_opponent(probs, opp_cells, n_opp, e, 0)
    score = -lines[row, L_SURFACE] * (1.0 + coefs[K_SURFACE_COST])
    if lines[row, L_SIL_DIR] >= 0:
        score -= coefs[K_SILENCE_COST]
    elif after[SILENCE] >= _COST[SILENCE]:
        score += coefs[K_SILENCE_READY]
    mine_fear = min(1.0, coefs[K_MINE_FEAR] / max(n_seen, 1))
    score -= mine_fear * (coefs[K_MINE_DANGER] * danger[e] + coefs[K_PATH_DANGER] * ahead)
    score -= coefs[K_SPACE] * coefs[K_DISCOUNT] ** free
    if dist > coefs[K_ENGAGE]:
        score -= coefs[K_APPROACH] * (dist - coefs[K_ENGAGE])
    return score + coefs[K_WALL] * walls


@kernel
def best_torpedo(board, values, lines, row, cell, life, charges, after, start_target, start_value, threshold, target):
    """Where line ``row`` fires its TORPEDO from: (target, value, AT_*, the cell fired from) of
    the best shot worth at least ``threshold`` before the movement (``start_target``,
    ``start_value``: computed once), between its two parts, or after it, each where our
    charges allow; target NO_TARGET: none. ``target``: int64[1] scratch."""
    torpedo, torpedo_value, at, torpedo_from = start_target, start_value, AT_START, cell
    if lines[row, L_MOVE] >= 0 and lines[row, L_SIL_DIR] >= 0:
        mid = lines[row, L_MID]
        if lines[row, L_ORDER] == ORDER_SILENCE_FIRST:
            ready = charges[TORPEDO] >= _COST[TORPEDO]
        else:
            ready = after[TORPEDO] >= _COST[TORPEDO]
        if ready:
            v = best_shot(board, values, mid, life, target)
            if v >= threshold and v > torpedo_value:
                torpedo, torpedo_value, at, torpedo_from = target[0], v, AT_MID, mid
    if after[TORPEDO] >= _COST[TORPEDO]:
        e = lines[row, L_END]
        v = best_shot(board, values, e, life, target)
        if v >= threshold and v > torpedo_value:
            torpedo, torpedo_value, at, torpedo_from = target[0], v, AT_END, e
    return torpedo, torpedo_value, at, torpedo_from


@kernel
def line_setup(board, state, base, cell, life, charges, probs, coefs, lines):
    """This turn's lines (``_lines.enumerate_lines``, into ``lines``) and what scoring them
    reads. Returns (line count, opponent cell count, the opponent's cells, their rows, the cells
    our path may not cross as 1/0: visited ones, and after a SURFACE; ``room``'s scratch: seen,
    queue)."""
    opp_cells = np.empty(CELLS, dtype=np.int64)
    opp_rows = np.empty(ROWS, dtype=np.int64)
    blocked_kept = np.zeros(CELLS, dtype=np.int64)
    blocked_fresh = np.zeros(CELLS, dtype=np.int64)
    seen = np.zeros(CELLS, dtype=np.int64)
    queue = np.empty(CELLS, dtype=np.int64)
    n_opp = _cells_of(probs, opp_cells)
    cells_to_rows(opp_cells, n_opp, opp_rows)
    for c in range(CELLS):
        blocked_kept[c] = has_bit(state, base + S.VISITED, c)
    blocked_kept[cell] = 1
    blocked_fresh[cell] = 1
    free_now = 0
    for d in range(4):
        t = board[STEP + cell * 4 + d]
        if t >= 0 and not blocked_kept[t]:
            free_now += 1
    space_now = room(board, blocked_kept, cell, int(coefs[K_HORIZON]), seen, queue)
    n_lines = enumerate_lines(board, cell, life, charges, blocked_kept, blocked_fresh, free_now, space_now,
                              coefs[K_MINE_PRIORITY], coefs[K_SILENCE_FIRST] > 0.0, lines)
    return n_lines, n_opp, opp_cells, opp_rows, blocked_kept, blocked_fresh, seen, queue


@kernel
def start_shots(board, state, base, cell, life, charges, values, coefs, start_value, start_target, target):
    """What does not depend on the movement: the best TORPEDO fired before it, worth at least
    ``torpedo_hit_threshold``, without and with a SURFACE first (``start_value``,
    ``start_target`` by surface; NO_TARGET: none), and the best TRIGGER then (returns
    (value, mine)). ``target``: int64[1] scratch."""
    for surface in range(2):
        if charges[TORPEDO] >= _COST[TORPEDO]:
            v = best_shot(board, values, cell, life - surface, target)
            if v >= coefs[K_TORPEDO]:
                start_value[surface] = v
                start_target[surface] = target[0]
    return best_trigger(state, base, cell, values, coefs[K_TRIGGER])


@kernel
def place_trigger(state, base, lines, row, values, coefs, trigger_start, mine_start):
    """Line ``row``'s TRIGGER: before the movement (``trigger_start``, ``mine_start``), between
    its two parts or after it, whichever blast is worth more and misses us where we stand then.
    Returns (value, mine, AT_*); mine NO_MINE: none."""
    e = lines[row, L_END]
    trigger_value, trigger_mine = best_trigger(state, base, e, values, coefs[K_TRIGGER])
    trigger_at = AT_END
    if mine_start != NO_MINE and trigger_start > trigger_value:
        trigger_value, trigger_mine, trigger_at = trigger_start, mine_start, AT_START
    if lines[row, L_MOVE] >= 0 and lines[row, L_SIL_DIR] >= 0:
        v, m = best_trigger(state, base, lines[row, L_MID], values, coefs[K_TRIGGER])
        if m != NO_MINE and v > trigger_value:
            trigger_value, trigger_mine, trigger_at = v, m, AT_MID
    return trigger_value, trigger_mine, trigger_at


@kernel
def answer_scratch():
    """Scratch arrays for ``answer_loss``, allocated once a turn."""
    return (np.zeros(CELLS, dtype=np.int64), np.zeros(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64),
            np.empty(CELLS, dtype=np.int64), np.empty(MAX_COVER + 2, dtype=np.int64), np.empty(ROWS, dtype=np.int64))


@kernel
def answer_loss(tables, table, silence_share, view, n_view, probs, opp_rows, coefs, life_left, scratch):
    """The opponent's answer next turn (``_answer.opponent_answer`` from ``table``, >= 0, and
    ``silence_share`` of it from FIRE_SILENCED) when it can believe us on ``view[:n_view]``:
    (lives it is expected to take, how often it fires). ``scratch``: ``answer_scratch()``."""
    cover, kill, order, targets, level_count, unassigned = scratch
    loss, fires = opponent_answer(tables, table, view, n_view, probs, opp_rows, coefs[K_OPP_FIRE], life_left,
                                  coefs[K_DEATH], cover, kill, order, targets, level_count, unassigned)
    if silence_share > 0.0:
        loss2, fires2 = opponent_answer(tables, FIRE_SILENCED, view, n_view, probs, opp_rows, coefs[K_OPP_FIRE],
                                        life_left, coefs[K_DEATH], cover, kill, order, targets, level_count,
                                        unassigned)
        loss += silence_share * (loss2 - loss)
        fires += silence_share * (fires2 - fires)
    return loss, fires


@kernel
def powers_after(state, board, base, end, charges, probs, values, coefs, rng, out, n):
    """Stage 5, after the line (``out[:n]``) that ends on ``end``: MINE where it pays, SONAR
    where it tells most. Returns the row count."""
    if charges[MINE] >= _COST[MINE]:
        flow = np.zeros(CELLS)
        traffic(board, probs, int(coefs[K_TRAFFIC_DEPTH]), flow, np.zeros(CELLS))
        d = lay_mine(state, board, base, end, values, flow, coefs[K_MINE_SPACING], coefs[K_ATTACK_MINE],
                     coefs[K_TRAFFIC], rng)
        if d >= 0:
            n = emit_action(out, n, ACT_MINE, d, 0)
    if charges[SONAR] >= _COST[SONAR]:
        s = choose_sonar(board, probs, coefs[K_SONAR_GAIN])
        if s > 0:
            n = emit_action(out, n, ACT_SONAR, s, 0)
    return n


@kernel
def line_scratch():
    """Scratch for ``score_lines``: (mark, held, fired, tmp, answering, path, target, after,
    start_value, start_target)."""
    return (np.zeros(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64), np.empty(CELLS, dtype=np.int64),
            np.empty(CELLS, dtype=np.int64), answer_scratch(), path_scratch(), np.empty(1, dtype=np.int64),
            np.empty(4, dtype=np.int64), np.zeros(2), np.full(2, NO_TARGET, dtype=np.int64))


@kernel
def choose_line(board, state, base, cell, life, opp_life, charges, probs, values, danger, self_cells, n_self,
                tables, table, table_weight, silence_share, coefs, rng, lines, chosen):
    """Score every line (``_lines.enumerate_lines``) in lives and write the best into
    ``chosen`` (C_* slots; ``lines`` holds the rows). Each line is scored holding fire and,
    when a TORPEDO is worth it, firing from its best place (before, between or after the
    movement): damage dealt and a TRIGGER placed before, between or after, against the opponent's
    answer (``_answer.opponent_answer`` from ``table``, -1: it cannot fire, weighing
    ``table_weight``; from FIRE_SILENCED too, ``silence_share`` of it), room, mine
    danger and the minefield path ahead, charges kept, stealth. ``probs``: the opponent's
    cell probabilities; ``values``: blast values; ``danger``: mine danger;
    ``self_cells[:n_self]``: where the opponent may believe we are. Returns the best
    score (NO_LINE: no line)."""
    score = np.empty(1)
    shot = np.empty(1)
    answer = np.empty(1)
    score_lines(board, state, base, cell, life, opp_life, charges, probs, values, danger, self_cells, n_self, tables,
                table, table_weight, silence_share, coefs, rng, lines, line_scratch(), score, shot, answer,
                chosen.reshape(1, CHOSEN_SIZE), False)
    return score[0]


@kernel
def score_lines(board, state, base, cell, life, opp_life, charges, probs, values, danger, self_cells, n_self,
                tables, table, table_weight, silence_share, coefs, rng, lines, scratch, cand_score, cand_shot,
                cand_answer, cand, keep_all):
    """The scoring of ``choose_line`` (its arguments up to ``lines``; ``scratch``:
    ``line_scratch()``), one kernel for v3 and v4. Each candidate (a line holding fire, or
    firing its best TORPEDO) has a score in lives, the part of it its TORPEDO and TRIGGER are
    expected to deal (net of our own blast), the lives its score loses to the opponent's answer
    (``fear`` times the expected loss; v4 replaces it by a simulated answer), and its C_* slots.
    ``keep_all`` (v4's greedy): every candidate in scoring order into ``cand_score[k]``,
    ``cand_shot[k]``, ``cand_answer[k]``, ``cand[k]``;
    returns the count. Else (v3): the first best into slot 0 (``cand_score[0]`` NO_LINE: no
    line); returns 1."""
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

    best_score = NO_LINE
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
            answer = 0.0
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
                answer = fear * loss
                score -= answer
                if torpedo_next:
                    score += table_weight * coefs[K_COUNTER] * fires
            score += coefs[K_STEALTH] * math.log2(max(n_view, 1))
            score += rand_below(rng, 1024) * 1e-9
            if keep_all:
                k = n_cand
                n_cand += 1
            elif score > best_score:
                best_score = score
                k = 0
            else:
                continue
            cand_score[k] = score
            cand_shot[k] = shot
            cand_answer[k] = answer
            cand[k, C_ROW] = row
            cand[k, C_TARGET] = torpedo if fire == 1 else NO_TARGET
            cand[k, C_AT] = at
            cand[k, C_TRIGGER] = trigger_mine
            cand[k, C_TRIGGER_AT] = trigger_at
    if keep_all:
        return n_cand
    if best_score == NO_LINE:
        cand_score[0] = NO_LINE
    return 1


@kernel
def write_line(board, cell, charges, lines, chosen, out):
    """The chosen line as encoded actions in ``out`` (charges updated): SURFACE, TRIGGER and
    TORPEDO where they go, the movement in its order. Returns the row count and the cell we
    end on."""
    row = chosen[C_ROW]
    target = chosen[C_TARGET]
    mine = chosen[C_TRIGGER]
    n = 0
    if lines[row, L_SURFACE]:
        n = emit_action(out, n, ACT_SURFACE, 0, 0)
    if mine != NO_MINE and chosen[C_TRIGGER_AT] == AT_START:
        n = emit_action(out, n, ACT_TRIGGER, mine % WIDTH, mine // WIDTH)
    if target != NO_TARGET and chosen[C_AT] == AT_START:
        n = emit_action(out, n, ACT_TORPEDO, target % WIDTH, target // WIDTH)
        charges[TORPEDO] = 0
    silence_first = lines[row, L_ORDER] == ORDER_SILENCE_FIRST
    for part in range(2):
        if part == 1 and mine != NO_MINE and chosen[C_TRIGGER_AT] == AT_MID:
            n = emit_action(out, n, ACT_TRIGGER, mine % WIDTH, mine // WIDTH)
        if part == 1 and target != NO_TARGET and chosen[C_AT] == AT_MID:
            n = emit_action(out, n, ACT_TORPEDO, target % WIDTH, target // WIDTH)
            charges[TORPEDO] = 0
        if (part == 0) != silence_first:
            if lines[row, L_MOVE] >= 0:
                power = lines[row, L_POWER]
                n = emit_action(out, n, ACT_MOVE, lines[row, L_MOVE], power)
                if charges[power] < _COST[power]:
                    charges[power] += 1
        elif lines[row, L_SIL_DIR] >= 0:
            n = emit_action(out, n, ACT_SILENCE, lines[row, L_SIL_DIR], lines[row, L_SIL_STEPS])
            charges[SILENCE] = 0
    if target != NO_TARGET and chosen[C_AT] == AT_END:
        n = emit_action(out, n, ACT_TORPEDO, target % WIDTH, target // WIDTH)
        charges[TORPEDO] = 0
    if mine != NO_MINE and chosen[C_TRIGGER_AT] == AT_END:
        n = emit_action(out, n, ACT_TRIGGER, mine % WIDTH, mine // WIDTH)
    return n, lines[row, L_END]


@kernel
def v3_turn(state, board, p, mem, rng, out, coefs):
    """The v3 bot's line for player p (encoded rows in ``out``; returns their count)."""
    v3_observe(state, board, p, mem)
    base = S.player_base(p)
    cell = state[base + S.CELL]
    life = state[base + S.LIFE]
    opp_life = max(state[S.player_base(1 - p) + S.LIFE], 1)  # shown to every CodinGame bot
    charges = state[base + S.CHARGE:base + S.CHARGE + 4].copy()

    probs = np.zeros(CELLS)
    values = np.zeros(CELLS)
    danger = np.zeros(CELLS)
    self_cells = np.empty(CELLS, dtype=np.int64)
    n_self = fields(board, mem, opp_life, coefs, probs, values, danger, self_cells)
    table, table_weight, silence_share = answer_table(mem[M_OPP_CHARGE], mem[M_OPP_SILENCE_CHARGE], coefs[K_LATER],
                                                      coefs[K_SILENCE_ATTACK])

    lines = np.empty((MAX_LINES, LINE_FIELDS), dtype=np.int64)
    chosen = np.empty(CHOSEN_SIZE, dtype=np.int64)
    score = choose_line(board, state, base, cell, life, opp_life, charges, probs, values, danger, self_cells, n_self,
                        mem[M_TABLES:M_TABLES + TABLES_SIZE], table, table_weight, silence_share, coefs, rng, lines,
                        chosen)
    if score == NO_LINE:
        # Boxed in with one life and nothing charged: the only line left.
        return emit_action(out, 0, ACT_SURFACE, 0, 0)
    n, end = write_line(board, cell, charges, lines, chosen, out)
    return powers_after(state, board, base, end, charges, probs, values, coefs, rng, out, n)
