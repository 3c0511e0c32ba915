"""What the opponent can believe about us after a line, and the lives its best TORPEDO is
expected to take from us then (step 3 of the winner's search, one shot deep)."""
from ocean._jit import kernel

from ocean.board import REACH, STEP
from ocean.constants import WIDTH


@kernel
def _bit(words, offset, cell):
    return (words[offset + (cell >> 6)] >> (cell & 63)) & 1


@kernel
def shift(board, src, n, d, out_cells, mark):
    """Cells one MOVE in direction d away from src[:n] (the opponent's view of us moving)."""
    m = 0
    for i in range(n):
        t = board[STEP + src[i] * 4 + d]
        if t >= 0 and mark[t] == 0:
            mark[t] = 1
            out_cells[m] = t
            m += 1
    for i in range(m):
        mark[out_cells[i]] = 0
    return m


@kernel
def spread(board, src, n, out_cells, mark):
    """Cells a SILENCE of 0..4 steps can reach from src[:n]."""
    m = 0
    for i in range(n):
        c = src[i]
        if mark[c] == 0:
            mark[c] = 1
            out_cells[m] = c
            m += 1
        for d in range(4):
            t = c
            for _ in range(4):
                t = board[STEP + t * 4 + d]
                if t < 0:
                    break
                if mark[t] == 0:
                    mark[t] = 1
                    out_cells[m] = t
                    m += 1
    for i in range(m):
        mark[out_cells[i]] = 0
    return m


@kernel
def revealed(board, src, n, target, out_cells):
    """The cells of src[:n] from which a TORPEDO at target could have been fired."""
    m = 0
    for i in range(n):
        if _bit(board, REACH + target * 4, src[i]):
            out_cells[m] = src[i]
            m += 1
    return m


@kernel
def best_answer(cells, n, cover, exact_limit, estimate):
    """Lives the opponent expects to take from us with its best shot when it believes we are
    on one of cells[:n], each equally likely: exact up to ``exact_limit`` cells, else
    ``estimate / n``."""
    if n == 0:
        return 0.0
    if n > exact_limit:
        return estimate / n
    cover[:] = 0.0
    best = 0.0
    for i in range(n):
        c = cells[i]
        cx = c % WIDTH
        cy = c // WIDTH
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                x = cx + dx
                y = cy + dy
                if 0 <= x < WIDTH and 0 <= y < WIDTH:
                    t = y * WIDTH + x
                    cover[t] += 2.0 if dx == 0 and dy == 0 else 1.0
                    if cover[t] > best:
                        best = cover[t]
    return best / n


@kernel
def near_opponent(probs, opp_cells, n_opp, e, radius):
    """Probability the opponent is within ``radius`` (Manhattan) of cell e, and its expected
    distance."""
    near = 0.0
    dist = 0.0
    ex = e % WIDTH
    ey = e // WIDTH
    for i in range(n_opp):
        o = opp_cells[i]
        d = abs(o % WIDTH - ex) + abs(o // WIDTH - ey)
        dist += probs[o] * d
        if d <= radius:
            near += probs[o]
    return near, dist
