"""Step 1 of the winner's search: the cheapest path ahead of where a line ends, through the
opponent's mine danger, ``depth`` moves deep, each move's danger discounted, and the cost of
a dead end when fewer moves are possible. Running out of room is seen ``depth`` turns ahead."""
from ocean._jit import kernel

from ocean.board import STEP
from ocean.constants import CELLS

_INF = 1e18


@kernel
def path_danger(board, danger, blocked, start, depth, discount, dead_end_cost, cost, nxt, pred, npred):
    """Cheapest discounted mine danger over walks of ``depth`` moves from ``start`` through
    cells not ``blocked`` (1/0 per cell; our visited cells and this line's path), never
    stepping straight back. A walk that cannot go on ends there and pays ``dead_end_cost``,
    discounted from the move it could not make. ``cost``, ``nxt`` (float) and ``pred``,
    ``npred`` (int) are scratch of CELLS entries. Layered Dijkstra: work is depth x reached
    cells x 4."""
    cost[:] = _INF
    pred[:] = -1
    cost[start] = 0.0
    best_end = _INF  # cheapest walk that had to stop early, dead end paid
    weight = 1.0
    for _ in range(depth):
        weight *= discount
        nxt[:] = _INF
        npred[:] = -1
        any_step = False
        for c in range(CELLS):
            if cost[c] >= _INF:
                continue
            moved = False
            for d in range(4):
                t = board[STEP + c * 4 + d]
                if t < 0 or blocked[t] or t == start or t == pred[c]:
                    continue
                moved = True
                v = cost[c] + weight * danger[t]
                if v < nxt[t]:
                    nxt[t] = v
                    npred[t] = c
            if not moved:
                best_end = min(best_end, cost[c] + weight * dead_end_cost)
            else:
                any_step = True
        if not any_step:
            return best_end
        cost[:] = nxt
        pred[:] = npred
    best = best_end
    for c in range(CELLS):
        if cost[c] < best:
            best = cost[c]
    return best

