"""The learned bot's features: what it believes at the end of a line, for our side (x) and the
opponent's (y), one named slot each. The advantage is A = sum w_i (x_i - y_i), so a feature
measured on one side only (the other side's value is unknowable or would cancel) has y = 0.

Everything comes from the bot's own trackers and from what every CodinGame bot is shown (both
lives, our own state, the opponent's last summary), never from the opponent's true state.
"""
import math

import numpy as np

from ocean._jit import kernel

from ocean import _state as S
from ocean.board import REACH
from ocean.constants import (
    ACT_SILENCE, ACT_SURFACE, ACT_TORPEDO, CELLS, MINE, POWER_COST, SILENCE, SONAR, TORPEDO, WIDTH,
)
from ocean.bots.td.coefficients import (
    F_BELIEVED, F_DANGER, F_DISTANCE, F_FIRED, F_LIVES, F_MINE, F_MINES, F_REACH, F_ROOM, F_SILENCE, F_SILENCED,
    F_SONAR, F_SURFACED, F_TORPEDO, F_REGRET, F_SHOT, F_V3, FEATURE_NAMES, FEATURES, N_FEATURES,
)
from ocean.tracking._query import lowest_bit

MINES_SCALE = 10.0  # live mines are counted in tens, so every feature is of order 1
_COST = np.array(POWER_COST, dtype=np.int64)

__all__ = ["FEATURES", "FEATURE_NAMES", "N_FEATURES", "reach_chance", "opponent_last_turn", "expected_mines",
           "live_mines", "charge_shares", "set_regrets", "advantage", "win_rate"]


@kernel
def reach_chance(board, probs, e):
    """The chance (``probs``) that the opponent is on a cell a TORPEDO fired from ``e`` can hit."""
    total = 0.0
    for w in range(4):
        word = board[REACH + e * 4 + w]
        while word != 0:
            c = w * 64 + lowest_bit(word)
            word &= word - 1
            total += probs[c]
    return total


@kernel
def opponent_last_turn(state, p):
    """(surfaced, silenced, fired), 1/0 each, in the opponent's last turn as its summary shows it."""
    opp = S.player_base(1 - p)
    surfaced = 0
    silenced = 0
    fired = 0
    for i in range(state[opp + S.SUMMARY_COUNT]):
        kind = state[opp + S.SUMMARY + 3 * i]
        if kind == ACT_SURFACE:
            surfaced = 1
        elif kind == ACT_SILENCE:
            silenced = 1
        elif kind == ACT_TORPEDO:
            fired = 1
    return surfaced, silenced, fired


@kernel
def expected_mines(mine_probs):
    """The opponent's expected number of live mines: its mine tracker's expectations summed."""
    total = 0.0
    for c in range(CELLS):
        total += mine_probs[c]
    return total


@kernel
def live_mines(state, base):
    """Our live mines (our own state: laid, not yet blown)."""
    count = 0
    for w in range(4):
        word = state[base + S.MINES_ACTIVE + w]
        while word != 0:
            word &= word - 1
            count += 1
    return count


@kernel
def charge_shares(after, x):
    """Our four charges as shares of their costs into ``x`` (slots F_TORPEDO .. F_MINE)."""
    x[F_TORPEDO] = after[TORPEDO] / _COST[TORPEDO]
    x[F_SILENCE] = after[SILENCE] / _COST[SILENCE]
    x[F_SONAR] = after[SONAR] / _COST[SONAR]
    x[F_MINE] = after[MINE] / _COST[MINE]


@kernel
def line_features(life_left, opp_life_left, dealt, n_view, n_opp, free, horizon, after, my_mines, opp_mines, reach,
                  answer_loss, distance, danger, trigger_threat, surfaced, silenced, fired, opp_torpedo_moves,
                  opp_silence_moves, opp_turn, v3_score, x, y):
    """Write both sides' features (``FEATURES`` order) into ``x`` (ours) and ``y`` (the
    opponent's) from what the line leaves: lives, believed cells (``n_view`` where the opponent
    can believe us, ``n_opp`` where we believe it), ``free`` cells of ``horizon``, our charges
    ``after``, mines, ``reach`` (chance it is in our TORPEDO's reach, 0 if uncharged),
    ``answer_loss`` (its answer's expected damage), expected ``distance``, mine ``danger`` at
    our end cell, ``trigger_threat`` (our best mine's value next turn), what the line does and
    what the opponent did (``opp_turn``: surfaced, silenced, fired), v3's score of the line."""
    x[F_LIVES] = life_left
    y[F_LIVES] = opp_life_left
    x[F_BELIEVED] = math.log2(max(n_view, 1))
    y[F_BELIEVED] = math.log2(max(n_opp, 1))
    x[F_ROOM] = free / max(horizon, 1)
    y[F_ROOM] = 0.0
    charge_shares(after, x)
    y[F_TORPEDO] = min(opp_torpedo_moves, _COST[TORPEDO]) / _COST[TORPEDO]
    y[F_SILENCE] = min(opp_silence_moves, _COST[SILENCE]) / _COST[SILENCE]
    y[F_SONAR] = 0.0
    y[F_MINE] = 0.0
    x[F_MINES] = my_mines / MINES_SCALE
    y[F_MINES] = opp_mines / MINES_SCALE
    x[F_REACH] = reach
    y[F_REACH] = answer_loss
    x[F_DISTANCE] = distance / WIDTH
    y[F_DISTANCE] = 0.0
    x[F_DANGER] = danger
    y[F_DANGER] = trigger_threat
    x[F_SURFACED] = surfaced
    y[F_SURFACED] = opp_turn[0]
    x[F_SILENCED] = silenced
    y[F_SILENCED] = opp_turn[1]
    x[F_FIRED] = fired
    y[F_FIRED] = opp_turn[2]
    x[F_V3] = v3_score
    y[F_V3] = 0.0
    x[F_SHOT] = dealt
    y[F_SHOT] = 0.0
    x[F_REGRET] = 0.0  # set once every line of the turn is scored (``set_regrets``)
    y[F_REGRET] = 0.0


@kernel
def set_regrets(xs, n):
    """x[F_REGRET] of candidates ``xs[:n]``: exp(its v3 score less the best of them) - 1, in
    (-1, 0]. Saturating, so the lines far below v3's best, which exploring plays and which lose
    alike, do not flatten what TD fits to the near-best ones a choice is made between."""
    top = -1e300
    for k in range(n):
        top = max(top, xs[k, F_V3])
    for k in range(n):
        xs[k, F_REGRET] = math.exp(xs[k, F_V3] - top) - 1.0


@kernel
def advantage(weights, x, y):
    """A = sum w_i (x_i - y_i) over the features."""
    a = 0.0
    for i in range(x.shape[0]):
        a += weights[i] * (x[i] - y[i])
    return a


@kernel
def win_rate(a):
    """The win rate an advantage stands for: 1 / (1 + exp(-a)), safe for any a."""
    if a >= 0.0:
        return 1.0 / (1.0 + math.exp(-a))
    z = math.exp(a)
    return z / (1.0 + z)
