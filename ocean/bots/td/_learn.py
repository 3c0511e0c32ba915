"""TD(lambda) on one side's game: the evaluation of each chosen line's end, V_t = 1/(1 +
exp(-w . d_t)) with d_t = x - y of its features, is moved toward the evaluation of the next
line that side chose, V_{t+1}, and the last one toward the game's result (1 won, 0.5 draw,
0 lost) - seed 003's "difference between the evaluation now and after the next search".

Backward view, offline over the game (every V_t from the weights the game was played with):
trace e_t = lambda e_{t-1} + d_t, the advantage's gradient (the logistic loss's, so a
confident wrong evaluation is moved as fast as a doubtful one); w += alpha sum_t delta_t e_t
with delta_t = target_t - V_t; then clipped to [-bound, bound] (the coefficients' bounds)."""
import numpy as np

from ocean._jit import kernel

from ocean.bots.td._features import win_rate

__all__ = ["td_update", "td_errors"]


@kernel
def td_errors(weights, rows, count, result, out):
    """delta_t = target_t - V_t for t < count into ``out``; returns sum delta_t^2."""
    total = 0.0
    v_next = 0.0
    for t in range(count - 1, -1, -1):
        a = 0.0
        for i in range(rows.shape[1]):
            a += weights[i] * rows[t, i]
        v = win_rate(a)
        target = result if t == count - 1 else v_next
        out[t] = target - v
        total += out[t] * out[t]
        v_next = v
    return total


@kernel
def td_update(weights, rows, count, result, alpha, lam, bound):
    """One TD(lambda) update of ``weights`` (in place) from ``rows[:count]`` (a side's x - y
    rows, turn order) and its ``result``. Returns the squared TD errors summed before the update."""
    delta = np.empty(max(count, 1))
    total = td_errors(weights, rows, count, result, delta)
    k = rows.shape[1]
    trace = np.zeros(k)
    step = np.zeros(k)
    for t in range(count):
        for i in range(k):
            trace[i] = lam * trace[i] + rows[t, i]
            step[i] += alpha * delta[t] * trace[i]
    for i in range(k):
        weights[i] = min(bound, max(-bound, weights[i] + step[i]))
    return total
