"""Step 1 of the winner's search for v3: v2's cheapest path ahead through the opponent's mine
danger (``bots/v2/_minefield.path_danger``, same walks, same value), computed over the cells
each layer reaches instead of the whole map. A line ends near its start, so a layer holds a
handful of cells; v2 scanned all 225 and reset its arrays on every layer, most of v3's time
per line. Cells are taken in increasing order (a bitboard's bits) so ties between paths break
as in v2, and so does the no-step-back rule that depends on them."""
from ocean._jit import kernel

from ocean.board import STEP
from ocean.tracking._query import lowest_bit

_INF = 1e18


@kernel
def path_danger(board, danger, blocked, start, depth, discount, dead_end_cost, cost, nxt, pred, npred, layer):
    """Cheapest discounted mine danger over walks of ``depth`` moves from ``start`` through
    cells not ``blocked``, never stepping straight back; a walk that cannot go on pays
    ``dead_end_cost`` from the move it could not make (v2's ``path_danger``). ``cost``,
    ``nxt`` (float) and ``pred``, ``npred`` (int) are scratch of CELLS entries, ``layer``
    int64[8] (two bitboards); none needs clearing."""
    cost[start] = 0.0
    pred[start] = -1
    for w in range(4):
        layer[w] = 0
    layer[start >> 6] = 1 << (start & 63)
    best_end = _INF
    weight = 1.0
    for _ in range(depth):
        weight *= discount
        for w in range(4):
            layer[4 + w] = 0
        any_step = False
        for w in range(4):
            word = layer[w]
            while word != 0:
                c = w * 64 + lowest_bit(word)
                word &= word - 1
                moved = False
                for d in range(4):
                    t = board[STEP + c * 4 + d]
                    if t < 0 or blocked[t] or t == start or t == pred[c]:
                        continue
                    moved = True
                    v = cost[c] + weight * danger[t]
                    if (layer[4 + (t >> 6)] >> (t & 63)) & 1 == 0:
                        layer[4 + (t >> 6)] |= 1 << (t & 63)
                        nxt[t] = v
                        npred[t] = c
                    elif v < nxt[t]:
                        nxt[t] = v
                        npred[t] = c
                if not moved:
                    best_end = min(best_end, cost[c] + weight * dead_end_cost)
                else:
                    any_step = True
        if not any_step:
            return best_end
        for w in range(4):
            word = layer[4 + w]
            layer[w] = word
            while word != 0:
                t = w * 64 + lowest_bit(word)
                word &= word - 1
                cost[t] = nxt[t]
                pred[t] = npred[t]
    best = best_end
    for w in range(4):
        word = layer[w]
        while word != 0:
            c = w * 64 + lowest_bit(word)
            word &= word - 1
            if cost[c] < best:
                best = cost[c]
    return best
