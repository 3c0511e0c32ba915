"""The rules of Ocean of Code as compiled kernels over the flat state and board arrays.

One rules core for every door: in-process bots hand over encoded action rows, the text
protocol parses a program's line into the same rows (ocean.protocol), and both end up in
``play_line``. Validation is lazy and always against the current state, as in the
referee: leading actions that cannot execute are dropped, disqualifying faults are raised
only when their action is reached.
"""
import numpy as np

from ocean._jit import copy_into, inline_kernel, kernel

from ocean import _state as S
from ocean.board import REACH, SECTOR, STEP, WATER
from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER,
    CELLS, END_DISQUALIFIED, END_LIFE, END_MAXFRAMES, END_MAXTURNS, END_NONE, ERR_MOVE_BLOCKED,
    ERR_MOVE_VISITED, ERR_NONE, HEIGHT, MAX_ACTIONS, MAX_PLAYER_TURNS, MINE, NO_POWER, POWER_COST,
    SILENCE, SONAR, SONAR_NA, SONAR_NO, SONAR_YES, START_LIFE, TORPEDO, WIDTH,
)

_COST = np.array(POWER_COST, dtype=np.int64)

_CAN = 1
_DROP = 0


@kernel
def _bit(state, offset, cell):
    return (state[offset + (cell >> 6)] >> (cell & 63)) & 1


@kernel
def _set_bit(state, offset, cell):
    state[offset + (cell >> 6)] |= np.int64(1) << (cell & 63)


@kernel
def _clear_bit(state, offset, cell):
    state[offset + (cell >> 6)] &= ~(np.int64(1) << (cell & 63))


@kernel
def new_state():
    """A zeroed state array; call ``start_game`` next."""
    return np.zeros(S.STATE_SIZE, dtype=np.int64)


@kernel
def start_game(state, board, cell0, error0, cell1, error1):
    """Place both submarines. A non-zero error code disqualifies that player (start answer
    malformed or not a water cell); the game is then over at once."""
    state[:] = 0
    cells = (cell0, cell1)
    errors = (error0, error1)
    for p in range(2):
        base = S.player_base(p)
        state[base + S.SONAR_RESULT] = SONAR_NA
        if errors[p] != ERR_NONE:
            state[base + S.LIFE] = -1
            state[base + S.ERROR] = errors[p]
            state[base + S.CELL] = -1
        else:
            state[base + S.LIFE] = START_LIFE
            state[base + S.CELL] = cells[p]
            _set_bit(state, base + S.VISITED, cells[p])
    state[S.ACTIVE] = 1  # so that the first turn goes to player 0
    if errors[0] != ERR_NONE or errors[1] != ERR_NONE:
        _finish(state, END_DISQUALIFIED)


@kernel
def _finish(state, reason):
    state[S.END] = reason
    life0 = state[S.player_base(0) + S.LIFE]
    life1 = state[S.player_base(1) + S.LIFE]
    if life0 > life1:
        state[S.WINNER] = 0
    elif life1 > life0:
        state[S.WINNER] = 1
    else:
        state[S.WINNER] = -1


@kernel
def _lives_over(state):
    return state[S.player_base(0) + S.LIFE] <= 0 or state[S.player_base(1) + S.LIFE] <= 0


@inline_kernel
def begin_turn(state):
    """Advance to the next player's turn. Returns False (and ends the game) if the game is
    over before that turn: a life at 0 or the turn limit."""
    if state[S.END] != END_NONE:
        return False
    if _lives_over(state):
        _finish(state, END_LIFE)
        return False
    if state[S.TURN] >= MAX_PLAYER_TURNS:
        _finish(state, END_MAXTURNS)
        return False
    state[S.TURN] += 1
    state[S.ACTIVE] = 1 - state[S.ACTIVE]
    return True


@kernel
def _explode(state, x, y, owner, is_mine):
    """Blast at (x, y): 2 lives on the cell, 1 on the 8 neighbours, for both submarines."""
    for q in range(2):
        base = S.player_base(q)
        cell = state[base + S.CELL]
        qx = cell % WIDTH
        qy = cell // WIDTH
        damage = 0
        if qx == x and qy == y:
            damage = 2
        elif abs(qx - x) <= 1 and abs(qy - y) <= 1:
            damage = 1
        if damage == 0:
            continue
        life = state[base + S.LIFE]
        lost = min(damage, life) if life > 0 else 0
        state[base + S.LIFE] = max(life - damage, 0)
        owner_stats = S.player_base(owner) + S.STATS
        if q == owner:
            state[owner_stats + S.ST_SELF_DAMAGE] += lost
        else:
            state[owner_stats + S.ST_DAMAGE_DEALT] += lost
            if is_mine:
                state[base + S.STATS + S.ST_MINE_DAMAGE_TAKEN] += lost
            else:
                state[base + S.STATS + S.ST_TORPEDO_DAMAGE_TAKEN] += lost
                if lost > 0:
                    state[owner_stats + S.ST_TORPEDO_HITS] += 1
                    if damage == 2:
                        state[owner_stats + S.ST_DIRECT_HITS] += 1
            if lost > 0:
                # Only the active player's blasts take lives: the turn is the owner's.
                state[base + S.STATS + S.ST_HIT_AT] = state[S.TURN]
                if state[S.player_base(0) + S.STATS + S.ST_FIRST_DAMAGE] == 0 and \
                        state[S.player_base(1) + S.STATS + S.ST_FIRST_DAMAGE] == 0:
                    state[owner_stats + S.ST_FIRST_DAMAGE] = 1


@inline_kernel
def _can_execute(state, board, p, kind, a, b, error):
    """1 if the action can run now, 0 if it is dropped, -code if it disqualifies."""
    base = S.player_base(p)
    if kind == ACT_MOVE:
        return -error if error != ERR_NONE else _CAN
    if kind == ACT_SURFACE:
        return _CAN
    if kind == ACT_TORPEDO:
        if state[base + S.CHARGE + TORPEDO] < _COST[TORPEDO]:
            return _DROP
        if error != ERR_NONE:
            return -error
        if a < 0 or a >= WIDTH or b < 0 or b >= HEIGHT:
            return _DROP
        target = b * WIDTH + a
        if board[WATER + target] == 0:
            return _DROP
        src = state[base + S.CELL]
        return _CAN if _bit(board, REACH + src * 4, target) else _DROP
    if kind == ACT_SONAR:
        if state[base + S.CHARGE + SONAR] < _COST[SONAR]:
            return _DROP
        return -error if error != ERR_NONE else _CAN
    if kind == ACT_SILENCE:
        if state[base + S.CHARGE + SILENCE] < _COST[SILENCE]:
            return _DROP
        return -error if error != ERR_NONE else _CAN
    if kind == ACT_MINE:
        if state[base + S.CHARGE + MINE] < _COST[MINE]:
            return _DROP
        if error != ERR_NONE:
            return -error
        target = board[STEP + state[base + S.CELL] * 4 + a]
        if target < 0:
            return _DROP
        if _bit(state, base + S.MINES_ACTIVE, target) or _bit(state, base + S.MINES_FRESH, target):
            return _DROP
        return _CAN
    if kind == ACT_TRIGGER:
        if error != ERR_NONE:
            return -error
        if a < 0 or a >= WIDTH or b < 0 or b >= HEIGHT:
            return _DROP
        return _CAN if _bit(state, base + S.MINES_ACTIVE, b * WIDTH + a) else _DROP
    return -error  # unknown word


@kernel
def _summarize(state, base, kind, a, b):
    n = state[base + S.SUMMARY_COUNT]
    entry = base + S.SUMMARY + 3 * n
    state[entry] = kind
    state[entry + 1] = a
    state[entry + 2] = b
    state[base + S.SUMMARY_COUNT] = n + 1


@kernel
def _step(state, board, base, direction):
    """One MOVE/SILENCE step; returns an error code (0 if fine)."""
    cell = state[base + S.CELL]
    target = board[STEP + cell * 4 + direction]
    if target < 0:
        return ERR_MOVE_BLOCKED
    if _bit(state, base + S.VISITED, target):
        return ERR_MOVE_VISITED
    state[base + S.CELL] = target
    _set_bit(state, base + S.VISITED, target)
    return ERR_NONE


@inline_kernel
def _execute(state, board, p, kind, a, b):
    """Run one action that passed ``_can_execute``; returns a disqualification code or 0."""
    base = S.player_base(p)
    stats = base + S.STATS
    if kind == ACT_MOVE:
        err = _step(state, board, base, a)
        if err != ERR_NONE:
            return err
        if b != NO_POWER:
            slot = base + S.CHARGE + b
            if state[slot] < _COST[b]:
                state[slot] += 1
        state[stats + S.ST_MOVES] += 1
        _summarize(state, base, ACT_MOVE, a, 0)
    elif kind == ACT_SURFACE:
        cell = state[base + S.CELL]
        for w in range(4):
            state[base + S.VISITED + w] = 0
        _set_bit(state, base + S.VISITED, cell)
        state[base + S.LIFE] = max(state[base + S.LIFE] - 1, 0)
        state[stats + S.ST_SURFACES] += 1
        # Under fire: the opponent took a life from us in its last two turns (TURN - 1, TURN - 3).
        hit_at = state[stats + S.ST_HIT_AT]
        if hit_at > 0 and state[S.TURN] - hit_at <= 3:
            state[stats + S.ST_SURFACES_UNDER_FIRE] += 1
        _summarize(state, base, ACT_SURFACE, board[SECTOR + cell], 0)
    elif kind == ACT_TORPEDO:
        state[stats + S.ST_TORPEDOES] += 1
        _explode(state, a, b, p, False)
        state[base + S.CHARGE + TORPEDO] = 0
        _summarize(state, base, ACT_TORPEDO, a, b)
    elif kind == ACT_SONAR:
        opponent_cell = state[S.player_base(1 - p) + S.CELL]
        state[base + S.SONAR_RESULT] = SONAR_YES if board[SECTOR + opponent_cell] == a else SONAR_NO
        state[base + S.CHARGE + SONAR] = 0
        state[stats + S.ST_SONARS] += 1
        _summarize(state, base, ACT_SONAR, a, 0)
    elif kind == ACT_SILENCE:
        for _ in range(b):
            err = _step(state, board, base, a)
            if err != ERR_NONE:
                return err
        state[base + S.CHARGE + SILENCE] = 0
        state[stats + S.ST_SILENCES] += 1
        _summarize(state, base, ACT_SILENCE, 0, 0)
    elif kind == ACT_MINE:
        target = board[STEP + state[base + S.CELL] * 4 + a]
        _set_bit(state, base + S.MINES_FRESH, target)
        state[base + S.CHARGE + MINE] = 0
        state[stats + S.ST_MINES] += 1
        _summarize(state, base, ACT_MINE, 0, 0)
    elif kind == ACT_TRIGGER:
        _clear_bit(state, base + S.MINES_ACTIVE, b * WIDTH + a)
        state[stats + S.ST_TRIGGERS] += 1
        _explode(state, a, b, p, True)
        _summarize(state, base, ACT_TRIGGER, a, b)
    return ERR_NONE


@inline_kernel
def _first_executable(state, board, p, actions, start, n):
    """Index of the first action from ``start`` that can execute (n if none), dropping the
    others; -code if the first one that is not dropped disqualifies."""
    i = start
    while i < n:
        verdict = _can_execute(state, board, p, actions[i, 0], actions[i, 1], actions[i, 2], actions[i, 3])
        if verdict == _CAN:
            return i
        if verdict < 0:
            return verdict
        i += 1
    return n


@kernel
def disqualify(state, p, error):
    """Disqualify player p with an error code (life -1) and end the game."""
    base = S.player_base(p)
    state[base + S.LIFE] = -1
    state[base + S.ERROR] = error
    _finish(state, END_DISQUALIFIED)


@kernel
def play_line(state, board, actions, n, trace):
    """Play the active player's turn from its encoded line ``actions[:n]`` (rows of
    kind, a, b, error). Call ``begin_turn`` first. Ends the game when the rules say so.

    ``trace`` (int64[k, STATE_SIZE + 4]) receives, for each executed action up to k, the
    action (kind, a, b, fallback flag) and the whole state after it; pass a 0-row array
    to skip. Returns the number of executed actions."""
    done = 0
    p = state[S.ACTIVE]
    base = S.player_base(p)
    # Start of the player's turn: older mines become triggerable, last results are cleared.
    for w in range(4):
        state[base + S.MINES_ACTIVE + w] |= state[base + S.MINES_FRESH + w]
        state[base + S.MINES_FRESH + w] = 0
    state[base + S.SONAR_RESULT] = SONAR_NA
    state[base + S.SUMMARY_COUNT] = 0

    i = _first_executable(state, board, p, actions, 0, n)
    if i < 0:
        disqualify(state, p, -i)
        return done
    fallback = i >= n
    while True:
        if fallback:
            err = _execute(state, board, p, ACT_SURFACE, 0, 0)
        else:
            opponent_life = state[S.player_base(1 - p) + S.LIFE]
            err = _execute(state, board, p, actions[i, 0], actions[i, 1], actions[i, 2])
        state[S.ACTIONS] += 1
        if done < trace.shape[0]:
            if fallback:
                trace[done, 0] = ACT_SURFACE
                trace[done, 1] = 0
                trace[done, 2] = 0
                trace[done, 3] = 1
            else:
                trace[done, 0] = actions[i, 0]
                trace[done, 1] = actions[i, 1]
                trace[done, 2] = actions[i, 2]
                trace[done, 3] = 0
            copy_into(trace[done, 4:], state)
        done += 1
        if err != ERR_NONE:
            disqualify(state, p, err)
            return done
        if fallback:
            i = n
        else:
            # Trailing checks run in the same frame, so they may disqualify even now.
            i = _first_executable(state, board, p, actions, i + 1, n)
            if i < 0:
                state[S.STALE_SCORE] = 1 + opponent_life
                disqualify(state, p, -i)
                return done
        if state[S.ACTIONS] >= MAX_ACTIONS:
            if _lives_over(state):
                _finish(state, END_LIFE)
            elif i >= n and state[S.TURN] >= MAX_PLAYER_TURNS:
                _finish(state, END_MAXTURNS)
            else:
                _finish(state, END_MAXFRAMES)
            return done
        if _lives_over(state):
            _finish(state, END_LIFE)
            return done
        if i >= n:
            if state[S.TURN] >= MAX_PLAYER_TURNS:
                _finish(state, END_MAXTURNS)
            return done
