"""The learned bot's turn: observe (v3's), fields, score every line of v3's enumeration,
holding fire or firing its best TORPEDO, by the linear advantage of its features, choose (or,
while learning, explore), write, then v3's MINE and SONAR. The search around the evaluation
(lines, TORPEDO and TRIGGER choice, the opponent's answer, MINE, SONAR) runs with v3's default
coefficients (``V3_SEARCH``), and v3's own score of each line is one feature among the others:
only the evaluation is learned."""
import math

import numpy as np

from ocean._jit import kernel

from ocean import _state as S
from ocean.bots._baselines import emit_action, rand_below
from ocean.bots.coefficients import INDEX_V3, vector
from ocean.bots.td._features import (
    F_LIVES, N_FEATURES, advantage, expected_mines, line_features, live_mines, opponent_last_turn, reach_chance,
    set_regrets,
)
from ocean.bots.v2._fields import NO_TARGET, blast_values, mine_danger
from ocean.bots.v2._observe import M_OPP_ASSUME, M_OPP_SAFE, M_SELF, TRACKER
from ocean.bots.v2._plausible import plausible_probabilities
from ocean.bots.v2._retaliation import near_opponent
from ocean.bots.v2._turn import room
from ocean.bots.v3._answer import TABLES_SIZE
from ocean.bots.v3._lines import (
    AT_END, L_END, L_PATH, L_PATH_COUNT, L_SIL_DIR, L_SURFACE, LINE_FIELDS, MAX_LINES, charges_after, group_key,
    opponent_view,
)
from ocean.bots.v3._observe import M_OPP_CHARGE, M_OPP_SILENCE_CHARGE, M_TABLES, V3_MEM, v3_observe
from ocean.bots.v3._powers import NO_MINE, best_trigger
from ocean.bots.v3._turn import (
    C_AT, C_ROW, C_TARGET, C_TRIGGER, C_TRIGGER_AT, CHOSEN_SIZE, NO_LINE, _cells_of, answer_loss, answer_scratch,
    answer_table, best_torpedo, ending_score, line_setup, path_scratch, place_trigger, powers_after, start_shots,
    write_line,
)
from ocean.constants import ACT_SURFACE, CELLS, POWER_COST, TORPEDO, WIDTH
from ocean.tracking._kernel import blast_damage
from ocean.tracking._query import cell_probabilities, mine_probabilities

TD_MEM = V3_MEM  # v3's memory: its trackers, charge counts and answer tables
V3_SEARCH = vector(None, "tunable-v3")  # v3's defaults, for the search around the evaluation
# v3 coefficient slots the search around the evaluation reads.
K_COUNTER_VALUE = INDEX_V3["counter_value"]
K_KILL_BONUS = INDEX_V3["kill_bonus"]
K_LATER_ANSWER_WEIGHT = INDEX_V3["later_answer_weight"]
K_LIFE_LEAD_WEIGHT = INDEX_V3["life_lead_weight"]
K_OPPONENT_SILENCE_ATTACK = INDEX_V3["opponent_silence_attack"]
K_PLAUSIBLE_CELLS = INDEX_V3["plausible_cells"]
K_PLAUSIBLE_HORIZON = INDEX_V3["plausible_horizon"]
K_PLAUSIBLE_ROOM_WEIGHT = INDEX_V3["plausible_room_weight"]
K_PLAUSIBLE_WALL_WEIGHT = INDEX_V3["plausible_wall_weight"]
K_RETALIATION_WEIGHT = INDEX_V3["retaliation_weight"]
K_SILENCE_AFTER_TORPEDO = INDEX_V3["silence_after_torpedo"]
K_SILENCE_COST = INDEX_V3["silence_cost"]
K_SPACE_HORIZON = INDEX_V3["space_horizon"]
K_STEALTH_WEIGHT = INDEX_V3["stealth_weight"]
K_TORPEDO_HIT_THRESHOLD = INDEX_V3["torpedo_hit_threshold"]
K_TORPEDO_READY_VALUE = INDEX_V3["torpedo_ready_value"]
TIE_NOISE = 1e-9  # breaks exact ties (zero weights) by the rng, far below any learned difference
EXPLORE_SCALE = 1_000_000  # epsilon's resolution when drawn from the integer rng
_COST = np.array(POWER_COST, dtype=np.int64)

__all__ = ["TD_MEM", "V3_SEARCH", "td_fields", "td_choose", "td_turn"]


@kernel
def td_fields(board, mem, search, opp_life, probs, values, expected, mine_probs, danger, self_cells):
    """Where the opponent is (``probs``: v3's plausibility weighting), what a blast on each cell
    is worth to v3 (``values``: with its kill bonus) and the lives it is expected to take
    (``expected``), where the opponent's mines may be (``mine_probs``) and their danger
    (``danger``), and where it can believe we are (``self_cells``; returns their count)."""
    plausible_probabilities(mem[M_OPP_ASSUME:M_OPP_ASSUME + TRACKER], board, int(search[K_PLAUSIBLE_CELLS]),
                            int(search[K_PLAUSIBLE_HORIZON]), search[K_PLAUSIBLE_ROOM_WEIGHT],
                            search[K_PLAUSIBLE_WALL_WEIGHT], probs, np.empty(CELLS, dtype=np.int64),
                            np.empty(CELLS, dtype=np.int64))
    blast_values(board, probs, opp_life, search[K_KILL_BONUS], values)
    blast_values(board, probs, opp_life, 0.0, expected)
    mine_probabilities(mem[M_OPP_SAFE:M_OPP_SAFE + TRACKER], board, mine_probs, np.zeros(CELLS))
    mine_danger(board, mine_probs, danger)
    self_probs = np.zeros(CELLS)
    cell_probabilities(mem[M_SELF:M_SELF + TRACKER], self_probs)
    return _cells_of(self_probs, self_cells)


@kernel
def td_choose(state, board, p, mem, rng, out, weights, epsilon, diff):
    """Player ``p``'s line (encoded rows in ``out``; returns their count): among v3's lines,
    each holding fire or firing v3's best TORPEDO (with v3's TRIGGER), the one whose end has the
    highest advantage under ``weights``, or with chance ``epsilon`` a uniformly random one.
    ``diff`` receives x - y of the chosen line's features."""
    search = V3_SEARCH
    v3_observe(state, board, p, mem)
    base = S.player_base(p)
    cell = state[base + S.CELL]
    life = state[base + S.LIFE]
    opp_life = max(state[S.player_base(1 - p) + S.LIFE], 1)
    charges = state[base + S.CHARGE:base + S.CHARGE + 4].copy()
    horizon = int(search[K_SPACE_HORIZON])

    probs = np.zeros(CELLS)
    values = np.zeros(CELLS)
    expected = np.zeros(CELLS)
    mine_probs = np.zeros(CELLS)
    danger = np.zeros(CELLS)
    self_cells = np.empty(CELLS, dtype=np.int64)
    n_self = td_fields(board, mem, search, opp_life, probs, values, expected, mine_probs, danger, self_cells)
    opp_mines = expected_mines(mine_probs)
    my_mines = live_mines(state, base)
    opp_turn = np.zeros(3, dtype=np.int64)
    opp_turn[0], opp_turn[1], opp_turn[2] = opponent_last_turn(state, p)
    opp_torpedo_moves = mem[M_OPP_CHARGE]
    opp_silence_moves = mem[M_OPP_SILENCE_CHARGE]
    table, table_weight, silence_share = answer_table(opp_torpedo_moves, opp_silence_moves,
                                                      search[K_LATER_ANSWER_WEIGHT], search[K_OPPONENT_SILENCE_ATTACK])
    tables = mem[M_TABLES:M_TABLES + TABLES_SIZE]
    threshold = search[K_TORPEDO_HIT_THRESHOLD]
    fear = table_weight * search[K_RETALIATION_WEIGHT] * max(0.0, 1.0 + search[K_LIFE_LEAD_WEIGHT] * (life - opp_life))

    lines = np.empty((MAX_LINES, LINE_FIELDS), dtype=np.int64)
    n_lines, n_opp, opp_cells, opp_rows, blocked_kept, blocked_fresh, seen, queue = line_setup(
        board, state, base, cell, life, charges, probs, search, lines)

    held = np.empty(CELLS, dtype=np.int64)
    fired_view = np.empty(CELLS, dtype=np.int64)
    tmp = np.empty(CELLS, dtype=np.int64)
    mark = np.zeros(CELLS, dtype=np.int64)
    answering = answer_scratch()
    path = path_scratch()
    target = np.empty(1, dtype=np.int64)
    after = np.empty(4, dtype=np.int64)
    after_fire = np.empty(4, dtype=np.int64)
    x = np.empty(N_FEATURES)
    y = np.empty(N_FEATURES)
    chosen = np.empty(CHOSEN_SIZE, dtype=np.int64)

    start_value = np.zeros(2)
    start_target = np.full(2, NO_TARGET, dtype=np.int64)
    trigger_start, mine_start = start_shots(board, state, base, cell, life, charges, values, search, start_value,
                                            start_target, target)

    exploring = epsilon > 0.0 and rand_below(rng, EXPLORE_SCALE) < epsilon * EXPLORE_SCALE
    cand_x = np.empty((2 * MAX_LINES, N_FEATURES))  # every line, holding fire and firing: x, y, choice
    cand_y = np.empty((2 * MAX_LINES, N_FEATURES))
    cand = np.empty((2 * MAX_LINES, CHOSEN_SIZE), dtype=np.int64)
    n_cand = 0
    best = NO_LINE
    key = -1
    n_held = 0
    for row in range(n_lines):
        surface = lines[row, L_SURFACE]
        life_now = life - surface
        e = lines[row, L_END]
        if group_key(lines, row) != key:
            key = group_key(lines, row)
            n_held = opponent_view(board, lines, row, cell, self_cells, n_self, AT_END, NO_TARGET, held, tmp, mark)
        charges_after(lines, row, charges, after)
        silenced = lines[row, L_SIL_DIR] >= 0
        blocked = blocked_fresh if surface == 1 else blocked_kept
        v3_base = ending_score(board, danger, blocked, lines, row, after, probs, opp_cells, n_opp, n_held, search,
                               seen, queue, path)
        n_path = lines[row, L_PATH_COUNT]
        for j in range(n_path):
            blocked[lines[row, L_PATH + j]] += 1
        free = room(board, blocked, e, horizon, seen, queue)
        for j in range(n_path):
            blocked[lines[row, L_PATH + j]] -= 1
        _, distance = near_opponent(probs, opp_cells, n_opp, e, 0)

        trigger_value, trigger_mine, trigger_at = place_trigger(state, base, lines, row, values, search, trigger_start,
                                                                mine_start)
        v3_base += trigger_value
        trigger_dealt = expected[trigger_mine] if trigger_mine != NO_MINE else 0.0
        threat, _ = best_trigger(state, base, e, expected, 0.0)

        torpedo, torpedo_value, at, torpedo_from = best_torpedo(board, values, lines, row, cell, life_now, charges,
                                                                after, start_target[surface], start_value[surface],
                                                                threshold, target)
        for fire in range(2):
            if fire == 1 and torpedo == NO_TARGET:
                break
            v3_score = v3_base
            life_left = life_now
            dealt = trigger_dealt
            for k in range(4):
                after_fire[k] = after[k]
            if fire == 1:
                n_view = opponent_view(board, lines, row, cell, self_cells, n_self, at, torpedo, fired_view, tmp, mark)
                view = fired_view
                v3_score += torpedo_value
                if silenced:
                    v3_score += (1.0 - search[K_SILENCE_AFTER_TORPEDO]) * search[K_SILENCE_COST]
                own = blast_damage(torpedo_from, torpedo % WIDTH, torpedo // WIDTH)
                life_left -= own
                dealt += expected[torpedo]
                after_fire[TORPEDO] = 0
                torpedo_next = False
            else:
                n_view = n_held
                view = held
                if after[TORPEDO] >= _COST[TORPEDO]:
                    v3_score += search[K_TORPEDO_READY_VALUE]
                torpedo_next = after[TORPEDO] + 1 >= _COST[TORPEDO]
            loss = 0.0
            if table >= 0:
                loss, fires = answer_loss(tables, table, silence_share, view, n_view, probs, opp_rows, search,
                                          life_left, answering)
                v3_score -= fear * loss
                if torpedo_next:
                    v3_score += table_weight * search[K_COUNTER_VALUE] * fires
                loss *= table_weight
            v3_score += search[K_STEALTH_WEIGHT] * math.log2(max(n_view, 1))
            reach = reach_chance(board, probs, e) if after_fire[TORPEDO] + 1 >= _COST[TORPEDO] else 0.0
            line_features(life_left, opp_life, dealt, n_view, n_opp, free, horizon, after_fire, my_mines, opp_mines,
                          reach, loss, distance, danger[e], threat, surface, 1 if silenced else 0, fire,
                          opp_torpedo_moves, opp_silence_moves, opp_turn, v3_score, x, y)
            # Kept, and chosen once every line is scored: the regret feature needs the best v3 score.
            k = n_cand
            for i in range(N_FEATURES):
                cand_x[k, i] = x[i]
                cand_y[k, i] = y[i]
            cand[k, C_ROW] = row
            cand[k, C_TARGET] = torpedo if fire == 1 else NO_TARGET
            cand[k, C_AT] = at
            cand[k, C_TRIGGER] = trigger_mine
            cand[k, C_TRIGGER_AT] = trigger_at
            n_cand += 1
    set_regrets(cand_x, n_cand)
    pick = -1
    exploring = exploring and n_cand > 0
    for k in range(n_cand):
        if exploring:
            take = rand_below(rng, k + 1) == 0  # reservoir: each candidate kept with chance 1/count
        else:
            score = advantage(weights, cand_x[k], cand_y[k]) + rand_below(rng, 1024) * TIE_NOISE
            take = score > best
            if take:
                best = score
        if take:
            pick = k
    found = pick >= 0
    if found:
        for i in range(CHOSEN_SIZE):
            chosen[i] = cand[pick, i]
        for i in range(N_FEATURES):
            diff[i] = cand_x[pick, i] - cand_y[pick, i]
    if not found:
        # Boxed in with one life and nothing charged: the only line left.
        for i in range(N_FEATURES):
            diff[i] = 0.0
        diff[F_LIVES] = life - 1 - opp_life
        return emit_action(out, 0, ACT_SURFACE, 0, 0)
    n, end = write_line(board, cell, charges, lines, chosen, out)
    return powers_after(state, board, base, end, charges, probs, values, search, rng, out, n)


@kernel
def td_turn(state, board, p, mem, rng, out, coefs):
    """The learned bot's line for player p (the turn slot): the best line under the weights
    ``coefs`` (``COEFFICIENTS_TD`` order), no exploration."""
    diff = np.empty(N_FEATURES)
    return td_choose(state, board, p, mem, rng, out, coefs, 0.0, diff)
