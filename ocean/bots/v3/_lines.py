"""The lines v3 considers, one row each, and what the opponent can believe about us after one.

A line is an optional SURFACE, then its movement: a MOVE (or none) and an optional SILENCE of
0..4 steps after it, or a SILENCE of 1..4 steps and then a MOVE (``ORDER_SILENCE_FIRST``,
which reaches cells the other order cannot and lets the MOVE charge the SILENCE just spent).
A TORPEDO and a TRIGGER are placed into a line later, when it is scored (``_turn``).
Rows are written group by group — lines of one group (``group_key``) show the opponent the
same movement, so what it can believe is computed once per group.
"""
import numpy as np

from ocean._jit import copy_into, kernel

from ocean.board import SECTOR, STEP
from ocean.bots.v2._retaliation import revealed, shift, spread
from ocean.bots.v2._turn import power_to_charge
from ocean.constants import NO_POWER, POWER_COST, SILENCE

# Fields of a line row.
L_SURFACE = 0
L_ORDER = 1  # ORDER_MOVE_FIRST or ORDER_SILENCE_FIRST
L_MOVE = 2  # direction, -1: no MOVE
L_POWER = 3  # the power the MOVE charges
L_SIL_DIR = 4  # -1: no SILENCE
L_SIL_STEPS = 5
L_MID = 6  # where we are after the first movement action (= L_END if there is no second)
L_END = 7
L_PATH_COUNT = 8
L_PATH = 9  # the cells entered, in order (at most 1 + 4)
LINE_FIELDS = L_PATH + 5
ORDER_MOVE_FIRST = 0
ORDER_SILENCE_FIRST = 1
MAX_LINES = 2 * (5 * 18 + 16 * 4)  # SURFACE or not x (MOVE or none x SILENCE or none | SILENCE x MOVE)
ROOMY = 12  # with this much room and a free neighbour, SURFACE is never considered
_COST = np.array(POWER_COST, dtype=np.int64)

# Where in a line a TORPEDO (or TRIGGER) goes.
AT_START = 0  # before the first movement action
AT_MID = 1  # between the two movement actions
AT_END = 2


@kernel
def _walk(board, blocked, lines, row, start, direction, steps):
    """Append ``steps`` cells in ``direction`` from ``start`` to the row's path; the end cell,
    or -1 if a step leaves the water or enters a blocked cell or the path itself."""
    e = start
    for _ in range(steps):
        t = board[STEP + e * 4 + direction]
        if t < 0 or blocked[t]:
            return -1
        n = lines[row, L_PATH_COUNT]
        for j in range(n):
            if lines[row, L_PATH + j] == t:
                return -1
        lines[row, L_PATH + n] = t
        lines[row, L_PATH_COUNT] = n + 1
        e = t
    return e


@kernel
def _silence_option(k):
    """Option k of 0..16: (direction, steps); 0 is SILENCE 0 (any direction)."""
    if k == 0:
        return 0, 0
    return (k - 1) // 4, (k - 1) % 4 + 1


@kernel
def enumerate_lines(board, cell, life, charges, blocked_kept, blocked_fresh, free_now, space_now, mine_rank,
                    silence_first, lines):
    """Write every legal line into ``lines`` (int64[MAX_LINES, LINE_FIELDS]); returns their
    count. ``blocked_kept``: our visited cells (1/0), ``blocked_fresh``: our cell only (after
    a SURFACE); ``free_now``, ``space_now``: free neighbours and room from here;
    ``silence_first``: also the lines that SILENCE before their MOVE. SURFACE is considered
    only when it is needed or cheap (no free neighbour, or less than ROOMY room) and never
    on our last life. A SILENCE of 0 steps with no MOVE (staying put) only when every
    neighbour is taken: it delays a SURFACE by a turn for the SILENCE's charge."""
    count = 0
    for surface in range(2):
        if surface == 1 and (life <= 1 or (free_now > 0 and space_now >= ROOMY)):
            continue
        blocked = blocked_fresh if surface == 1 else blocked_kept
        # MOVE (or none), then SILENCE (or none).
        for d in range(-1, 4):
            after = charges.copy()
            power = NO_POWER
            e1 = cell
            if d >= 0:
                e1 = board[STEP + cell * 4 + d]
                if e1 < 0 or blocked[e1]:
                    continue
                power = power_to_charge(charges, mine_rank)
                if after[power] < _COST[power]:
                    after[power] += 1
            can_silence = after[SILENCE] >= _COST[SILENCE]
            for k in range(-1, 17):
                if k >= 0 and not can_silence:
                    break
                if d < 0 and (k < 0 or (k == 0 and free_now > 0)):
                    continue  # no MOVE and no SILENCE is no line
                row = count
                lines[row, L_SURFACE] = surface
                lines[row, L_ORDER] = ORDER_MOVE_FIRST
                lines[row, L_MOVE] = d
                lines[row, L_POWER] = power
                lines[row, L_PATH_COUNT] = 0
                if d >= 0:
                    lines[row, L_PATH] = e1
                    lines[row, L_PATH_COUNT] = 1
                lines[row, L_MID] = e1
                if k < 0:
                    lines[row, L_SIL_DIR] = -1
                    lines[row, L_SIL_STEPS] = 0
                    lines[row, L_END] = e1
                    count += 1
                    continue
                direction, steps = _silence_option(k)
                e = _walk(board, blocked, lines, row, e1, direction, steps)
                if e < 0:
                    continue
                lines[row, L_SIL_DIR] = direction
                lines[row, L_SIL_STEPS] = steps
                lines[row, L_END] = e
                count += 1
        # SILENCE first (1..4 steps), then a MOVE charging a power with the SILENCE spent.
        if not silence_first or charges[SILENCE] < _COST[SILENCE]:
            continue
        after_silence = charges.copy()
        after_silence[SILENCE] = 0
        power = power_to_charge(after_silence, mine_rank)
        for d in range(4):
            for k in range(1, 17):
                direction, steps = _silence_option(k)
                row = count
                lines[row, L_PATH_COUNT] = 0
                e1 = _walk(board, blocked, lines, row, cell, direction, steps)
                if e1 < 0:
                    continue
                e = _walk(board, blocked, lines, row, e1, d, 1)
                if e < 0:
                    continue
                lines[row, L_SURFACE] = surface
                lines[row, L_ORDER] = ORDER_SILENCE_FIRST
                lines[row, L_MOVE] = d
                lines[row, L_POWER] = power
                lines[row, L_SIL_DIR] = direction
                lines[row, L_SIL_STEPS] = steps
                lines[row, L_MID] = e1
                lines[row, L_END] = e
                count += 1
    return count


@kernel
def group_key(lines, row):
    """Lines with the same key show the opponent the same movement (the SILENCE's direction
    and length are hidden from it)."""
    silenced = 1 if lines[row, L_SIL_DIR] >= 0 else 0
    return ((lines[row, L_SURFACE] * 2 + lines[row, L_ORDER]) * 5 + lines[row, L_MOVE] + 1) * 2 + silenced


@kernel
def charges_after(lines, row, charges, out):
    """Our charges once the line's movement is done (a TORPEDO in it not counted)."""
    copy_into(out, charges)
    if lines[row, L_ORDER] == ORDER_SILENCE_FIRST:
        out[SILENCE] = 0
    power = lines[row, L_POWER]
    if lines[row, L_MOVE] >= 0 and out[power] < _COST[power]:
        out[power] += 1
    if lines[row, L_ORDER] == ORDER_MOVE_FIRST and lines[row, L_SIL_DIR] >= 0:
        out[SILENCE] = 0


@kernel
def opponent_view(board, lines, row, cell, self_cells, n_self, at, target, out, tmp, mark):
    """Where the opponent can believe we are after line ``row``: from ``self_cells[:n_self]``
    (what it believes now), narrowed by a SURFACE's sector and by a TORPEDO at ``target``
    fired at ``at`` (AT_*; target < 0: none), moved by the line's MOVE and spread by its
    SILENCE, in the line's order. Returns the count written to ``out``; ``tmp`` is scratch
    of the same size, ``mark`` int64[CELLS] of zeros."""
    n = 0
    if lines[row, L_SURFACE]:
        sector = board[SECTOR + cell]
        for i in range(n_self):
            if board[SECTOR + self_cells[i]] == sector:
                out[n] = self_cells[i]
                n += 1
    else:
        copy_into(out, self_cells[:n_self])
        n = n_self
    if target >= 0 and at == AT_START:
        n = revealed(board, out, n, target, tmp)
        copy_into(out, tmp[:n])
    silence_first = lines[row, L_ORDER] == ORDER_SILENCE_FIRST
    for part in range(2):
        if part == 1 and target >= 0 and at == AT_MID:
            n = revealed(board, out, n, target, tmp)
            copy_into(out, tmp[:n])
        moving = (part == 0) != silence_first
        if moving:
            if lines[row, L_MOVE] < 0:
                continue
            n = shift(board, out, n, lines[row, L_MOVE], tmp, mark)
        else:
            if lines[row, L_SIL_DIR] < 0:
                continue
            n = spread(board, out, n, tmp, mark)
        copy_into(out, tmp[:n])
    if target >= 0 and at == AT_END:
        n = revealed(board, out, n, target, tmp)
        copy_into(out, tmp[:n])
    return n
