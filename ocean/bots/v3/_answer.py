"""The opponent's answer to a line (step 3 of the winner's search, seed 000): from each cell
the opponent may be on, with the MOVE, or MOVE and SILENCE, it makes before firing, its best
TORPEDO against where it can believe we are after our line — and how likely it is to fire.

Sets of cells here are row bitboards: ``ROWS`` words, word y holding bit x of row y (seed
001's layout), so that a step in any direction is a shift of the whole set.
"""
import numpy as np

from ocean._jit import kernel

from ocean.board import REACH, WATER
from ocean.constants import CELLS, WIDTH
from ocean.tracking._query import lowest_bit

ROWS = WIDTH  # one word per row of the map
_ROW_MASK = (1 << WIDTH) - 1
_SILENCE_STEPS = 4  # the longest SILENCE
# The answer tables, per target cell t, ROWS words each: the cells from which the opponent
# can hit t this turn with at most one MOVE, and with one MOVE and one SILENCE (either order).
FIRE_MOVED = 0
FIRE_SILENCED = CELLS * ROWS
TABLES_SIZE = 2 * CELLS * ROWS
MAX_COVER = 10  # 2 for a believed cell under a blast, 1 for each of the eight around it


@kernel
def _water_rows(board, rows):
    for y in range(ROWS):
        w = 0
        for x in range(WIDTH):
            if board[WATER + y * WIDTH + x]:
                w |= 1 << x
        rows[y] = w


@kernel
def _dilate(src, water, out):
    """out: src and every water cell one step from it."""
    for y in range(ROWS):
        w = src[y] | ((src[y] << 1) & _ROW_MASK) | (src[y] >> 1)
        if y > 0:
            w |= src[y - 1]
        if y < ROWS - 1:
            w |= src[y + 1]
        out[y] = w & water[y]


@kernel
def _spread(src, water, out, ray, nxt):
    """out: src and every cell a SILENCE of 1..4 steps through water reaches from it."""
    for y in range(ROWS):
        out[y] = src[y]
    for d in range(4):
        for y in range(ROWS):
            ray[y] = src[y]
        for _ in range(_SILENCE_STEPS):
            for y in range(ROWS):
                if d == 0:  # north: row y takes row y + 1
                    w = ray[y + 1] if y < ROWS - 1 else 0
                elif d == 1:
                    w = ray[y - 1] if y > 0 else 0
                elif d == 2:  # east: x + 1
                    w = (ray[y] << 1) & _ROW_MASK
                else:
                    w = ray[y] >> 1
                nxt[y] = w & water[y]
            for y in range(ROWS):
                ray[y] = nxt[y]
                out[y] |= nxt[y]


@kernel
def build_answer_tables(board, tables):
    """Fill ``tables`` (TABLES_SIZE words) for ``board``: FIRE_MOVED[t] is the torpedo reach of
    t grown by one step, FIRE_SILENCED[t] that grown by a SILENCE then a step, or a step then
    a SILENCE (torpedo reach, steps and silences are symmetric). Visited cells are ignored: an
    answer may be feared that the opponent's own path forbids, never missed."""
    water = np.empty(ROWS, dtype=np.int64)
    _water_rows(board, water)
    reach = np.empty(ROWS, dtype=np.int64)
    grown = np.empty(ROWS, dtype=np.int64)
    spread = np.empty(ROWS, dtype=np.int64)
    a = np.empty(ROWS, dtype=np.int64)
    b = np.empty(ROWS, dtype=np.int64)
    ray = np.empty(ROWS, dtype=np.int64)
    nxt = np.empty(ROWS, dtype=np.int64)
    tables[:] = 0
    for t in range(CELLS):
        if not board[WATER + t]:
            continue
        reach[:] = 0
        for w in range(4):
            word = board[REACH + t * 4 + w]
            while word != 0:
                c = w * 64 + lowest_bit(word)
                word &= word - 1
                reach[c // WIDTH] |= 1 << (c % WIDTH)
        _dilate(reach, water, grown)
        for y in range(ROWS):
            tables[FIRE_MOVED + t * ROWS + y] = grown[y]
        _spread(reach, water, spread, ray, nxt)
        _dilate(spread, water, a)  # fired after SILENCE then... read backwards: step, then silence
        _spread(grown, water, b, ray, nxt)
        for y in range(ROWS):
            tables[FIRE_SILENCED + t * ROWS + y] = a[y] | b[y]


@kernel
def cells_to_rows(cells, n, rows):
    """Row bitboard of cells[:n]."""
    rows[:] = 0
    for i in range(n):
        c = cells[i]
        rows[c // WIDTH] |= 1 << (c % WIDTH)


@kernel
def opponent_answer(tables, table, seen, n, opp_probs, opp_rows, fire_threshold, life, death_weight,
                    cover, kill, order, targets, level_count, unassigned):
    """The opponent's best TORPEDO after our line: (lives it is expected to cost us, chance
    it fires). It believes us on one of seen[:n], each equally likely, and fires at the target
    with the most expected damage among those it can reach from where it is (``table``:
    FIRE_MOVED or FIRE_SILENCED, by the charges it may have), if that damage is at least
    ``fire_threshold``. ``opp_probs``: where it is; ``opp_rows``: those cells as rows. A hit
    that would take our last ``life`` lives costs ``death_weight`` more per unit of chance.
    Scratch: ``cover``, ``kill`` (int64[CELLS], zero on entry and on return), ``order``,
    ``targets`` (int64[CELLS]), ``level_count`` (int64[MAX_COVER + 2]), ``unassigned``
    (int64[ROWS])."""
    if n == 0 or MAX_COVER / n < fire_threshold:
        return 0.0, 0.0
    # What a blast on each cell is worth to the opponent: 2 per believed cell under it, 1 per
    # believed cell next to it.
    m = 0
    top = 0
    for i in range(n):
        b = seen[i]
        bx = b % WIDTH
        by = b // WIDTH
        for dy in range(-1, 2):
            y = by + dy
            if y < 0 or y >= WIDTH:
                continue
            for dx in range(-1, 2):
                x = bx + dx
                if x < 0 or x >= WIDTH:
                    continue
                t = y * WIDTH + x
                damage = 2 if dx == 0 and dy == 0 else 1
                if cover[t] == 0:
                    order[m] = t  # collected here, sorted below
                    m += 1
                cover[t] += damage
                if damage >= life:
                    kill[t] += 1
                top = max(top, cover[t])
    loss = 0.0
    fire = 0.0
    if top / n >= fire_threshold:
        # Targets by decreasing cover (counting sort: a cover is at most MAX_COVER). After
        # the prefix sums, level_count[k] is where the targets of cover top - k start.
        level_count[:top + 1] = 0
        for i in range(m):
            level_count[top - cover[order[i]] + 1] += 1
        for k in range(1, top + 1):
            level_count[k] += level_count[k - 1]
        for i in range(m):
            t = order[i]
            k = top - cover[t]
            targets[level_count[k]] = t
            level_count[k] += 1
        for y in range(ROWS):
            unassigned[y] = opp_rows[y]
        left = 0
        for y in range(ROWS):
            left |= unassigned[y]
        for i in range(m):
            t = targets[i]
            if cover[t] < fire_threshold * n or left == 0:
                break
            base = table + t * ROWS
            mass = 0.0
            left = 0
            for y in range(ROWS):
                hit = unassigned[y] & tables[base + y]
                while hit != 0:
                    x = lowest_bit(hit)
                    hit &= hit - 1
                    mass += opp_probs[y * WIDTH + x]
                unassigned[y] &= ~tables[base + y]
                left |= unassigned[y]
            if mass > 0.0:
                loss += mass * (cover[t] + death_weight * kill[t]) / n
                fire += mass
    for i in range(m):
        cover[order[i]] = 0
        kill[order[i]] = 0
    return loss, fire
