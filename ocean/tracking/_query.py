"""What a tracker tells a bot: where the tracked submarine may be, where its mines may
lie, how many cells it may be on, and (for tests and ``ocean track``) whether a given
true state is among the candidates."""
import numpy as np

from ocean._jit import kernel

from ocean.board import STEP
from ocean.constants import CELLS
from ocean.tracking._layout import F_CELL, F_ORIGINS, F_VISITED, H_COUNT, states_view

# Index of the lowest set bit of a 64-bit word by de Bruijn multiplication.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[(((1 << _i) * int(_DEBRUIJN)) & ((1 << 64) - 1)) >> 58] = _i


@kernel
def lowest_bit(word):
    """Index of the lowest set bit of a non-zero int64."""
    low = np.uint64(word & -word)
    return _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]


@kernel
def cell_probabilities(trk, out):
    """out[c] = share of candidate states on cell c (each state counts once). Returns the
    number of distinct candidate cells."""
    states = states_view(trk)
    n = trk[H_COUNT]
    out[:] = 0.0
    for i in range(n):
        out[states[i, F_CELL]] += 1.0
    cells = 0
    for c in range(CELLS):
        if out[c] > 0.0:
            cells += 1
            out[c] /= n
    return cells


@kernel
def candidate_cells(trk, scratch):
    """Number of distinct cells the tracked submarine may be on (``scratch``: int64[CELLS])."""
    states = states_view(trk)
    scratch[:] = 0
    cells = 0
    for i in range(trk[H_COUNT]):
        c = states[i, F_CELL]
        if scratch[c] == 0:
            scratch[c] = 1
            cells += 1
    return cells


@kernel
def mine_probabilities(trk, board, out, origin_count):
    """out[c] = expected number (capped at 1) of the tracked player's mines on cell c: each
    candidate state weighs 1/n, and a mine laid from an origin lies on any of the origin's
    water neighbours with equal chance. ``origin_count``: float64[CELLS] scratch."""
    states = states_view(trk)
    n = trk[H_COUNT]
    origin_count[:] = 0.0
    out[:] = 0.0
    if n == 0:
        return
    for i in range(n):
        for w in range(4):
            word = states[i, F_ORIGINS + w]
            while word != 0:
                origin_count[w * 64 + lowest_bit(word)] += 1.0
                word &= word - 1
    for o in range(CELLS):
        if origin_count[o] == 0.0:
            continue
        k = 0
        for d in range(4):
            if board[STEP + o * 4 + d] >= 0:
                k += 1
        share = origin_count[o] / (n * k)
        for d in range(4):
            m = board[STEP + o * 4 + d]
            if m >= 0:
                out[m] += share
    for c in range(CELLS):
        if out[c] > 1.0:
            out[c] = 1.0


@kernel
def _covers_mines(row, board, mines):
    """Every mine cell has a neighbour among the state's origins."""
    for m in range(CELLS):
        if not (mines[m >> 6] >> (m & 63)) & 1:
            continue
        found = False
        for d in range(4):
            o = board[STEP + m * 4 + d]
            if o >= 0 and (row[F_ORIGINS + (o >> 6)] >> (o & 63)) & 1:
                found = True
                break
        if not found:
            return False
    return True


@kernel
def truth_inside(trk, board, cell, visited, mines):
    """Index of a candidate state consistent with the true one (same cell, no visited cell
    the truth has not visited, an origin next to every true mine), or -1."""
    states = states_view(trk)
    for i in range(trk[H_COUNT]):
        row = states[i]
        if row[F_CELL] != cell:
            continue
        subset = True
        for w in range(4):
            if row[F_VISITED + w] & ~visited[w]:
                subset = False
        if subset and _covers_mines(row, board, mines):
            return i
    return -1
