"""Per-cell fields of the v2 bot, read from the trackers: what a blast on each cell is worth
against the opponent, the danger of the opponent's mines on each cell, and the best TORPEDO
from a cell."""
from ocean._jit import kernel

from ocean.board import REACH, WATER
from ocean.constants import CELLS, WIDTH
from ocean.tracking._kernel import blast_damage
from ocean.tracking._query import lowest_bit

NO_TARGET = -1
MAX_BLAST = 2.0  # a blast takes 2 lives on its cell, 1 on the eight around it


@kernel
def blast_values(board, probs, opp_life, kill_bonus, values):
    """values[t]: lives a blast at t is worth against a submarine on a cell drawn from
    ``probs``: its expected damage plus ``kill_bonus`` times the chance it takes the
    opponent's last ``opp_life`` lives. 0 on islands."""
    for t in range(CELLS):
        v = 0.0
        kill = 0.0
        if board[WATER + t]:
            tx = t % WIDTH
            ty = t // WIDTH
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    x = tx + dx
                    y = ty + dy
                    if 0 <= x < WIDTH and 0 <= y < WIDTH:
                        c = y * WIDTH + x
                        damage = 2 if dx == 0 and dy == 0 else 1
                        v += probs[c] * damage
                        if damage >= opp_life:
                            kill += probs[c]
        values[t] = v + kill_bonus * kill


@kernel
def mine_danger(board, mine_probs, danger):
    """danger[e]: lives we expect to lose on e if the opponent blows every mine near it,
    capped at MAX_BLAST (one blast is all it takes to be there)."""
    blast_values(board, mine_probs, 99, 0.0, danger)
    for e in range(CELLS):
        danger[e] = min(danger[e], MAX_BLAST)


@kernel
def best_shot(board, values, src, life, target_out):
    """Best TORPEDO fired from src: (value, target), the value net of our own blast damage; a
    shot that would kill us is never taken. target_out[0] is NO_TARGET if none is worth > 0."""
    best = 0.0
    best_t = NO_TARGET
    for w in range(4):
        word = board[REACH + src * 4 + w]
        while word != 0:
            t = w * 64 + lowest_bit(word)
            word &= word - 1
            own = blast_damage(src, t % WIDTH, t // WIDTH)
            if own >= life:
                continue
            v = values[t] - own
            if v > best:
                best = v
                best_t = t
    target_out[0] = best_t
    return best
