"""Weighted opponent states (seed 002, "enemy position prediction"): once the tracker has
narrowed the opponent down, the candidate states are not equally likely. A submarine that is
played well keeps room to move and hugs islands and edges, so a state whose path walked into a
pocket, or crossed open water, is weighted down. The weights sharpen the hit probabilities
that TORPEDO, TRIGGER, SONAR and the retaliation radius read."""
from ocean._jit import kernel

from ocean.board import STEP
from ocean.constants import CELLS
from ocean.tracking._layout import F_CELL, F_VISITED, H_COUNT, states_view
from ocean.tracking._query import cell_probabilities, lowest_bit


@kernel
def _room_left(board, row, horizon, stamp, seen, queue):
    """Water cells the state can still reach without crossing its visited cells (the cell it
    is on excluded), counted up to ``horizon``. ``seen[c] == stamp`` marks cells reached."""
    start = row[F_CELL]
    seen[start] = stamp
    queue[0] = start
    head = 0
    tail = 1
    count = 0
    while head < tail and count < horizon:
        c = queue[head]
        head += 1
        for d in range(4):
            t = board[STEP + c * 4 + d]
            if t < 0 or seen[t] == stamp:
                continue
            if (row[F_VISITED + (t >> 6)] >> (t & 63)) & 1:
                continue
            seen[t] = stamp
            queue[tail] = t
            tail += 1
            count += 1
    return count


@kernel
def _hugging_share(board, row):
    """Share of the state's visited cells that touch an island or the map's edge."""
    visited = 0
    hugging = 0
    for w in range(4):
        word = row[F_VISITED + w]
        while word != 0:
            c = w * 64 + lowest_bit(word)
            word &= word - 1
            visited += 1
            for d in range(4):
                if board[STEP + c * 4 + d] < 0:
                    hugging += 1
                    break
    return hugging / visited if visited > 0 else 0.0


@kernel
def plausible_probabilities(trk, board, max_cells, horizon, room_weight, wall_weight, out, seen, queue):
    """out[c]: the chance the tracked submarine is on c, each candidate state weighted by
    ((room left + 1) / (horizon + 1)) ** room_weight * (1 + wall_weight * hugging share).
    While the states cover more than ``max_cells`` cells every state counts once, as in
    ``cell_probabilities`` (the weights say little before the set is narrowed). ``seen`` and
    ``queue``: int64[CELLS] scratch. Returns the number of candidate cells."""
    cells = cell_probabilities(trk, out)
    if cells > max_cells or (room_weight == 0.0 and wall_weight == 0.0):
        return cells
    states = states_view(trk)
    n = trk[H_COUNT]
    out[:] = 0.0
    seen[:] = 0
    total = 0.0
    for i in range(n):
        row = states[i]
        free = _room_left(board, row, horizon, i + 1, seen, queue)
        weight = ((free + 1.0) / (horizon + 1.0)) ** room_weight
        weight *= 1.0 + wall_weight * _hugging_share(board, row)
        out[row[F_CELL]] += weight
        total += weight
    if total > 0.0:
        for c in range(CELLS):
            out[c] /= total
    return cells
