"""The opponent's turn in v4's transitions (coefficient ``opponent_turn``): after our line is
played on a node's state, the opponent, put on the cell drawn at the root, answers by the same
model v3 scores its answer with (``bots/v3/_answer``), but from one known cell:

1. TRIGGER: of its mines (drawn at the root from the tracked mine probabilities, kept in the
   node state's opponent block), the one whose blast is worth most against where it believes
   we are (2 per believed cell under it, 1 per believed cell next to it, over the count), if
   at least ``opponent_trigger_threshold`` and it misses itself;
2. TORPEDO and MOVE: its MOVE charges its TORPEDO count (MOVEs since its last TORPEDO, as v3
   counts them); once the count allows, it fires at the target worth most against where it
   believes us, from where it stands before its MOVE or after it (v3's FIRE_MOVED table, cell by
   cell), if worth ``opponent_fire_threshold``; it never fires at itself. The MOVE goes where
   the shot is fired from, else to a random free neighbour; boxed in, it surfaces.

Only what the opponent shows is used: its cell is the draw, its charges the counts v3 keeps,
its mines the draw from the tracker, its path the cells visited since the draw. The true
opponent block of the game state is overwritten at the root's children (``seed_opponent``).
"""
import numpy as np

from ocean._jit import kernel

from ocean import _rules
from ocean import _state as S
from ocean.board import REACH, STEP
from ocean.bots._baselines import rand_below
from ocean.bots.v3._powers import spread_step
from ocean.bots.v4._opponent_greedy import greedy_opponent_scratch
from ocean.constants import CELLS, POWER_COST, SILENCE, TORPEDO, WIDTH
from ocean.tracking._kernel import blast_damage
from ocean.tracking._query import lowest_bit

_COST = np.array(POWER_COST, dtype=np.int64)
_COUNT_CAP = 8  # MOVEs counted since a power was used (more tells nothing: it is charged)
_UNIFORM = 1 << 24

__all__ = ["opponent_scratch", "draw_mines", "seed_opponent", "play_opponent", "spread_fields"]


@kernel
def opponent_scratch(draws, depths, nodes):
    """Arrays of the opponent's turns, allocated once a turn: (mine probabilities, the mines of
    each draw as bitboards, cover scratch, touched cells, where the opponent is ``k`` turns
    below the root for k < ``depths``, blast values against it there by its lives, which of
    those are computed, and for each of ``nodes`` nodes the target of the TORPEDO the opponent
    fired in the transition that made it (-1: none), where that shot shows it is, the values
    against it there; then the greedy opponent's arrays, ``_opponent_greedy``)."""
    return (np.zeros(CELLS), np.zeros((max(draws, 1), 4), dtype=np.int64), np.zeros(CELLS, dtype=np.int64),
            np.empty(9 * CELLS, dtype=np.int64), np.zeros((depths, CELLS)), np.zeros((depths, 8, CELLS)),
            np.zeros((depths, 8), dtype=np.int64), np.full(nodes, -1, dtype=np.int64), np.zeros((nodes, CELLS)),
            np.zeros((nodes, CELLS)), greedy_opponent_scratch())


@kernel
def spread_fields(board, probs, depths, spread):
    """spread[k]: ``probs`` after k MOVEs of the opponent, each a random step to a water
    neighbour (the root's belief as it ages below the root: the greedy at a node k turns down
    aims its shots and fears its answer from there)."""
    for c in range(CELLS):
        spread[0, c] = probs[c]
    for k in range(1, depths):
        spread_step(board, spread[k - 1], spread[k])


@kernel
def draw_mines(mine_probs, n_draws, rng, drawn):
    """For each draw, each cell holds one of the opponent's mines with its tracked chance
    (``mine_probs``: expected mines per cell, capped at 1)."""
    for d in range(n_draws):
        for w in range(4):
            drawn[d, w] = 0
        for c in range(CELLS):
            pm = mine_probs[c]
            if pm <= 0.0:
                continue
            if pm >= 1.0 or rand_below(rng, _UNIFORM) < pm * _UNIFORM:
                drawn[d, c >> 6] |= np.int64(1) << (c & 63)


@kernel
def seed_opponent(state, p, cell, mines, torpedo_moves, silence_moves):
    """The opponent block of a root child's state from what is shown: its drawn ``cell`` (its
    only visited one), the drawn ``mines``, its MOVEs since its TORPEDO and SILENCE (in the
    TORPEDO and SILENCE charge slots, as counts)."""
    opp = S.player_base(1 - p)
    state[opp + S.CELL] = cell
    for w in range(4):
        state[opp + S.VISITED + w] = 0
        state[opp + S.MINES_ACTIVE + w] = mines[w]
        state[opp + S.MINES_FRESH + w] = 0
    state[opp + S.VISITED + (cell >> 6)] |= np.int64(1) << (cell & 63)
    state[opp + S.CHARGE + TORPEDO] = min(torpedo_moves, _COUNT_CAP)
    state[opp + S.CHARGE + SILENCE] = min(silence_moves, _COUNT_CAP)


@kernel
def _cover(view, n_view, cover, touched):
    """cover[t]: 2 per believed cell on t, 1 per believed cell next to it. Returns the
    touched count (``touched[:k]``, to clear ``cover`` after)."""
    m = 0
    for i in range(n_view):
        b = view[i]
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
                if cover[t] == 0:
                    touched[m] = t
                    m += 1
                cover[t] += 2 if dx == 0 and dy == 0 else 1
    return m


@kernel
def _best_cell(words, base, src, cover):
    """(cover, cell) of the cell of most ``cover`` among the bits of ``words[base:base + 4]``
    whose blast misses ``src`` (the first of equals); cell -1: none above 0."""
    best = 0
    pick = -1
    for w in range(4):
        word = words[base + w]
        while word != 0:
            t = w * 64 + lowest_bit(word)
            word &= word - 1
            if cover[t] > best and blast_damage(src, t % WIDTH, t // WIDTH) == 0:
                best = cover[t]
                pick = t
    return best, pick


@kernel
def _free_step(board, state, opp, cell, d):
    """The cell a MOVE in direction ``d`` from ``cell`` reaches, -1 if blocked or visited."""
    t = board[STEP + cell * 4 + d]
    if t < 0 or (state[opp + S.VISITED + (t >> 6)] >> (t & 63)) & 1:
        return -1
    return t


@kernel
def _best_step(board, state, opp, cell, cover, floor):
    """(cover, target, direction) of the free MOVE from ``cell`` after which the best target in
    its TORPEDO's reach covers most, if above ``floor`` (the first of equals); else (floor, -1,
    -1)."""
    best, pick, pick_dir = floor, -1, -1
    for d in range(4):
        t = _free_step(board, state, opp, cell, d)
        if t < 0:
            continue
        v, target = _best_cell(board, REACH + t * 4, t, cover)
        if v > best:
            best, pick, pick_dir = v, target, d
    return best, pick, pick_dir


@kernel
def play_opponent(board, state, p, view, n_view, coefs_fire, coefs_trigger, rng, scratch, hunt=0):
    """The opponent's turn on ``state`` (after our line; the opponent believes us on
    ``view[:n_view]``). Updates our lives, its cell, path, counts and mines. Returns (lives its
    TORPEDO took, lives its mine took, its TORPEDO's target or -1); ``scratch``:
    ``opponent_scratch``. ``hunt`` 1: a MOVE that fires nothing goes where its next shot would
    be worth most against where it believes us (a random step if none is worth anything)."""
    cover, touched = scratch[2], scratch[3]
    me = S.player_base(p)
    opp = S.player_base(1 - p)
    # Its mines laid so far may be blown; it lays none (where it would is unknown).
    m = _cover(view, n_view, cover, touched)
    n = max(n_view, 1)
    cell = state[opp + S.CELL]
    torpedo_lost = 0
    mine_lost = 0
    best, mine = _best_cell(state, opp + S.MINES_ACTIVE, cell, cover)  # its best mine to blow
    if mine >= 0 and best >= coefs_trigger * n:
        before = state[me + S.LIFE]
        state[opp + S.MINES_ACTIVE + (mine >> 6)] &= ~(np.int64(1) << (mine & 63))
        _rules._explode(state, mine % WIDTH, mine // WIDTH, 1 - p, True)
        mine_lost = before - state[me + S.LIFE]
    # Its TORPEDO: from here (charged already), or after its MOVE (the MOVE charges it).
    count = state[opp + S.CHARGE + TORPEDO]
    fire_at = -1
    fire_dir = -1
    best = 0
    if count >= _COST[TORPEDO]:
        best, fire_at = _best_cell(board, REACH + cell * 4, cell, cover)
    if count + 1 >= _COST[TORPEDO]:
        v, target, d = _best_step(board, state, opp, cell, cover, best)
        if d >= 0:
            best, fire_at, fire_dir = v, target, d
    fire = fire_at >= 0 and best >= coefs_fire * n and state[me + S.LIFE] > 0
    hunt_dir = -1
    if hunt > 0 and not fire:
        # A hunter closes in: the step from which the best target in its reach covers most of us.
        _, _, hunt_dir = _best_step(board, state, opp, cell, cover, 0)
    for i in range(m):
        cover[touched[i]] = 0
    if fire and fire_dir < 0:
        before = state[me + S.LIFE]
        _rules._explode(state, fire_at % WIDTH, fire_at // WIDTH, 1 - p, False)
        torpedo_lost = before - state[me + S.LIFE]
        count = 0
    # Its MOVE: where it fires from, else a random free direction; boxed in, it surfaces.
    d = fire_dir if fire_dir >= 0 else hunt_dir
    if d < 0:
        free = 0
        for k in range(4):
            if _free_step(board, state, opp, cell, k) >= 0:
                free += 1
        if free > 0:
            pick = rand_below(rng, free)
            for k in range(4):
                if _free_step(board, state, opp, cell, k) >= 0:
                    if pick == 0:
                        d = k
                        break
                    pick -= 1
    if d >= 0:
        t = board[STEP + cell * 4 + d]
        state[opp + S.CELL] = t
        state[opp + S.VISITED + (t >> 6)] |= np.int64(1) << (t & 63)
        count = min(count + 1, _COUNT_CAP)
        state[opp + S.CHARGE + SILENCE] = min(state[opp + S.CHARGE + SILENCE] + 1, _COUNT_CAP)
    else:
        for w in range(4):
            state[opp + S.VISITED + w] = 0
        state[opp + S.VISITED + (cell >> 6)] |= np.int64(1) << (cell & 63)
        state[opp + S.LIFE] = max(state[opp + S.LIFE] - 1, 0)
    if fire and fire_dir >= 0:
        before = state[me + S.LIFE]
        _rules._explode(state, fire_at % WIDTH, fire_at // WIDTH, 1 - p, False)
        torpedo_lost = before - state[me + S.LIFE]
        count = 0
    state[opp + S.CHARGE + TORPEDO] = count
    return torpedo_lost, mine_lost, fire_at if fire else -1
