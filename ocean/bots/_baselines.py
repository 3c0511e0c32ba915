"""Baseline bots as compiled kernels: a random legal bot and a simple chaser.

A bot sees only what a CodinGame program sees: its own state, its sonar answer and the
opponent's summary line (read from the state's summary block, never the opponent's cell).
Each bot keeps its memory in an int64 array ``mem`` and draws randomness from ``rng``
(uint64[1], xorshift64*), so a game is a pure function of its seeds. Both are frozen
(``bots.registry``): panel members ``random-v1`` and ``chaser-v1`` play them.
"""
import numpy as np

from ocean._jit import copy_into, inline_kernel, kernel

from ocean import _state as S
from ocean.tracking._kernel import blast_damage
from ocean.board import REACH, SECTOR, STEP, WATER
from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER, CELLS,
    ERR_NONE, MINE, SILENCE, SONAR, TORPEDO, WIDTH,
)

BASELINE_MEM = 2 * CELLS + 8  # words of memory the baselines use (the chaser's layout below)

# Chaser memory: candidate opponent cells (1/0) at [0, CELLS), scratch at [CELLS, 2*CELLS),
# the sector of our last SONAR at _LAST_SONAR.
_LAST_SONAR = 2 * CELLS


@kernel
def rand_below(rng, n):
    """Uniform integer in [0, n) from the xorshift64* state rng[0]."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    # Multiply-shift instead of a modulo: the top 32 bits scaled to [0, n).
    high = (x * np.uint64(2685821657736338717)) >> np.uint64(32)
    return np.int64((high * np.uint64(n)) >> np.uint64(32))


@kernel
def rand_bits(rng):
    """64 random bits (int64) from the xorshift64* state, for several small draws at once."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return np.int64(x * np.uint64(2685821657736338717))


@kernel
def _field_below(bits, shift, n):
    """Uniform integer in [0, n) from the 16 bits of ``bits`` at ``shift``."""
    return (((bits >> shift) & 0xFFFF) * n) >> 16


@kernel
def seed_rng(rng, seed):
    """Seed an xorshift64* state from any int64 (splitmix64 scrambling; never zero)."""
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    rng[0] = z if z != np.uint64(0) else np.uint64(1)


@kernel
def _visited(state, base, cell):
    return (state[base + S.VISITED + (cell >> 6)] >> (cell & 63)) & 1


@kernel
def emit_action(out, n, kind, a, b):
    """Write action (kind, a, b) as row n of an encoded line; returns n + 1."""
    out[n, 0] = kind
    out[n, 1] = a
    out[n, 2] = b
    out[n, 3] = ERR_NONE
    return n + 1


@kernel
def random_start(board, rng):
    """A uniformly random water cell."""
    while True:
        c = rand_below(rng, CELLS)
        if board[WATER + c]:
            return c


@kernel
def _free_mask(state, board, base, cell, behind):
    """Bit d set where a MOVE in direction d is legal (``behind`` is excluded)."""
    mask = 0
    for d in range(4):
        t = board[STEP + cell * 4 + d]
        if d != behind and t >= 0 and not _visited(state, base, t):
            mask |= 1 << d
    return mask


@kernel
def _random_direction(bits, shift, mask):
    """A uniformly random set bit of a non-zero 4-bit mask, drawn from 16 random bits."""
    count = (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1) + ((mask >> 3) & 1)
    k = _field_below(bits, shift, count)
    for d in range(4):
        if (mask >> d) & 1:
            if k == 0:
                return d
            k -= 1
    return -1


@inline_kernel
def random_turn(state, board, p, mem, rng, out):
    """A random legal line: a move (or SURFACE when boxed in) charging a random power,
    and now and then a charged power at a random legal target."""
    base = S.player_base(p)
    cell = state[base + S.CELL]
    n = 0
    # One 64-bit draw feeds every small decision of the turn (bits 0..47: three 16-bit
    # fields; 48..63: coin flips).
    bits = rand_bits(rng)
    free = _free_mask(state, board, base, cell, -1)
    if state[base + S.CHARGE + SILENCE] >= 6 and free != 0 and (bits >> 48) & 1:
        d = _random_direction(bits, 0, free)
        steps = 0
        limit = _field_below(bits, 16, 5)
        while steps < limit:
            nxt = board[STEP + cell * 4 + d]
            if nxt < 0 or _visited(state, base, nxt):
                break
            cell = nxt
            steps += 1
        n = emit_action(out, n, ACT_SILENCE, d, steps)
        # Of the cells SILENCE walked, only the one just behind can border the new cell.
        free = _free_mask(state, board, base, cell, d ^ 1 if steps > 0 else -1)
        bits = rand_bits(rng)
    if free == 0:
        n = emit_action(out, n, ACT_SURFACE, 0, 0)
        for d in range(4):
            if board[STEP + cell * 4 + d] >= 0:
                free |= 1 << d
    if free != 0:
        d = _random_direction(bits, 0, free)
        n = emit_action(out, n, ACT_MOVE, d, (bits >> 49) & 3)
        cell = board[STEP + cell * 4 + d]
    if state[base + S.CHARGE + TORPEDO] >= 3 and (bits >> 51) & 1:
        for _ in range(8):
            t = rand_below(rng, CELLS)
            if (board[REACH + cell * 4 + (t >> 6)] >> (t & 63)) & 1:
                n = emit_action(out, n, ACT_TORPEDO, t % WIDTH, t // WIDTH)
                break
    if state[base + S.CHARGE + MINE] >= 3 and (bits >> 52) & 1:
        spots = 0  # directions where a mine can go: water without one of ours
        for d in range(4):
            t = board[STEP + cell * 4 + d]
            if t >= 0 and not ((state[base + S.MINES_ACTIVE + (t >> 6)] | state[base + S.MINES_FRESH + (t >> 6)]) >> (t & 63)) & 1:
                spots |= 1 << d
        if spots != 0:
            n = emit_action(out, n, ACT_MINE, _random_direction(bits, 16, spots), 0)
    if state[base + S.CHARGE + SONAR] >= 4 and (bits >> 55) & 1:
        n = emit_action(out, n, ACT_SONAR, 1 + _field_below(bits, 32, 9), 0)
    if ((bits >> 56) & 3) == 0:
        for _ in range(4):
            t = rand_below(rng, CELLS)
            if (state[base + S.MINES_ACTIVE + (t >> 6)] >> (t & 63)) & 1:
                n = emit_action(out, n, ACT_TRIGGER, t % WIDTH, t // WIDTH)
                break
    return n


@kernel
def _chaser_observe(state, board, p, mem):
    """Narrow the candidate opponent cells with our sonar answer and its last summary.
    Visited cells are ignored, so the set only over-approximates: the truth stays inside."""
    cand = mem[0:CELLS]
    scratch = mem[CELLS:2 * CELLS]
    me = S.player_base(p)
    opp = S.player_base(1 - p)
    sonar = state[me + S.SONAR_RESULT]
    if sonar >= 0:
        sector = mem[_LAST_SONAR]
        for c in range(CELLS):
            if (board[SECTOR + c] == sector) != (sonar == 1):
                cand[c] = 0
    for i in range(state[opp + S.SUMMARY_COUNT]):
        entry = opp + S.SUMMARY + 3 * i
        kind = state[entry]
        a = state[entry + 1]
        b = state[entry + 2]
        if kind == ACT_MOVE or kind == ACT_SILENCE:
            scratch[:] = 0
            for c in range(CELLS):
                if cand[c] == 0:
                    continue
                if kind == ACT_MOVE:
                    t = board[STEP + c * 4 + a]
                    if t >= 0:
                        scratch[t] = 1
                else:
                    scratch[c] = 1
                    for d in range(4):
                        t = c
                        for _ in range(4):
                            t = board[STEP + t * 4 + d]
                            if t < 0:
                                break
                            scratch[t] = 1
            copy_into(cand, scratch)
        elif kind == ACT_SURFACE:
            for c in range(CELLS):
                if board[SECTOR + c] != a:
                    cand[c] = 0
        elif kind == ACT_TORPEDO:
            target = b * WIDTH + a
            for c in range(CELLS):
                if not (board[REACH + target * 4 + (c >> 6)] >> (c & 63)) & 1:
                    cand[c] = 0
    total = 0
    for c in range(CELLS):
        total += cand[c]
    if total == 0:  # cannot happen with a sound update; reset rather than act on nothing
        for c in range(CELLS):
            cand[c] = board[WATER + c]


@kernel
def chaser_reset(board, mem):
    """Fresh chaser memory: the opponent may be on any water cell."""
    mem[:] = 0
    for c in range(CELLS):
        mem[c] = board[WATER + c]


@kernel
def chaser_turn(state, board, p, mem, rng, out):
    """Move towards the middle of the opponent's candidate cells charging TORPEDO, and fire
    at the reachable cell with the best expected damage once it is worth at least half a
    life (never where the blast would hurt us)."""
    _chaser_observe(state, board, p, mem)
    base = S.player_base(p)
    cell = state[base + S.CELL]
    cand = mem[0:CELLS]
    total = 0
    sx = 0
    sy = 0
    for c in range(CELLS):
        if cand[c]:
            total += 1
            sx += c % WIDTH
            sy += c // WIDTH
    gx = sx / total
    gy = sy / total
    n = 0
    free = _free_mask(state, board, base, cell, -1)
    if free == 0:
        n = emit_action(out, n, ACT_SURFACE, 0, 0)
        for d in range(4):
            if board[STEP + cell * 4 + d] >= 0:
                free |= 1 << d
    best_d = -1
    best = 1e18
    for d in range(4):
        if not (free >> d) & 1:
            continue
        t = board[STEP + cell * 4 + d]
        dist = abs(t % WIDTH - gx) + abs(t // WIDTH - gy) + rand_below(rng, 100) * 1e-4
        if dist < best:
            best = dist
            best_d = d
    charge = SILENCE
    if state[base + S.CHARGE + TORPEDO] < 3:
        charge = TORPEDO
    elif state[base + S.CHARGE + SONAR] < 4:
        charge = SONAR
    if best_d >= 0:
        n = emit_action(out, n, ACT_MOVE, best_d, charge)
        cell = board[STEP + cell * 4 + best_d]
    torpedo = state[base + S.CHARGE + TORPEDO] + (1 if best_d >= 0 and charge == TORPEDO else 0)
    if torpedo >= 3:
        best_target = -1
        best_value = 0.5
        for t in range(CELLS):
            if not (board[REACH + cell * 4 + (t >> 6)] >> (t & 63)) & 1:
                continue
            if blast_damage(cell, t % WIDTH, t // WIDTH) > 0:
                continue
            value = 0.0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    x = t % WIDTH + dx
                    y = t // WIDTH + dy
                    if 0 <= x < WIDTH and 0 <= y < WIDTH and cand[y * WIDTH + x]:
                        value += 2.0 if dx == 0 and dy == 0 else 1.0
            value /= total
            if value > best_value:
                best_value = value
                best_target = t
        if best_target >= 0:
            n = emit_action(out, n, ACT_TORPEDO, best_target % WIDTH, best_target // WIDTH)
    sonar_charge = state[base + S.CHARGE + SONAR] + (1 if best_d >= 0 and charge == SONAR else 0)
    if sonar_charge >= 4 and total > 20:
        best_sector = 1
        best_count = -1
        for s in range(1, 10):
            k = 0
            for c in range(CELLS):
                if cand[c] and board[SECTOR + c] == s:
                    k += 1
            if k > best_count:
                best_count = k
                best_sector = s
        mem[_LAST_SONAR] = best_sector
        n = emit_action(out, n, ACT_SONAR, best_sector, 0)
    return n
