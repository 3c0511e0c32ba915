"""Whole learning games inside compiled code: the learned bot (exploring with chance epsilon)
against itself or against v3's defaults, keeping each learning side's chosen feature rows
(x - y of the line it played, turn by turn) for the TD update (``_learn``). A game is a pure
function of (board, weights, epsilon, opponent, game seed)."""
import numpy as np

from ocean._jit import kernel

from ocean import _rules
from ocean import _state as S
from ocean.bots._baselines import seed_rng
from ocean.bots._tunable_v1 import roomy_start
from ocean.bots.coefficients import vector
from ocean.bots.td._features import N_FEATURES
from ocean.bots.td._learn import td_update
from ocean.bots.td._turn import td_choose
from ocean.bots.v3._observe import V3_MEM, v3_reset
from ocean.bots.v3._turn import v3_turn
from ocean.constants import ACTION_FIELDS, ERR_NONE, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS

OPPONENT_SELF = 0  # both sides are the learner, both learn
OPPONENT_V3 = 1  # the other side is tunable-v3 with its defaults; only the learner's side learns
OPPONENTS = {"self": OPPONENT_SELF, "tunable-v3": OPPONENT_V3}
TURNS_EACH = MAX_PLAYER_TURNS // 2 + 1  # rows a side can fill in one game
V3_DEFAULTS = vector(None, "tunable-v3")

__all__ = ["OPPONENTS", "OPPONENT_SELF", "OPPONENT_V3", "TURNS_EACH", "learning_game", "learn_games"]


@kernel
def learning_game(board, weights, epsilon, opponent, learner_side, game_seed, state, mem0, mem1, rows, counts):
    """One game: the learner (``weights``, exploring with chance ``epsilon``) on every side
    (``opponent`` OPPONENT_SELF) or on ``learner_side`` against v3's defaults (OPPONENT_V3).
    ``rows[p, t]``: x - y of the line side p chose at its turn t, ``counts[p]`` how many
    (0 for a side that does not learn). ``mem0``/``mem1``: V3_MEM words each. Returns the
    winner (0, 1, or -1 for a draw)."""
    rng0 = np.empty(1, dtype=np.uint64)
    rng1 = np.empty(1, dtype=np.uint64)
    seed_rng(rng0, game_seed * 2)
    seed_rng(rng1, game_seed * 2 + 1)
    v3_reset(board, mem0)
    v3_reset(board, mem1)
    cell0 = roomy_start(board, rng0)
    cell1 = roomy_start(board, rng1)
    _rules.start_game(state, board, cell0, ERR_NONE, cell1, ERR_NONE)
    out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    no_trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
    diff = np.empty(N_FEATURES)
    counts[0] = 0
    counts[1] = 0
    while _rules.begin_turn(state):
        p = state[S.ACTIVE]
        mem = mem0 if p == 0 else mem1
        rng = rng0 if p == 0 else rng1
        if opponent == OPPONENT_V3 and p != learner_side:
            n = v3_turn(state, board, p, mem, rng, out, V3_DEFAULTS)
        else:
            n = td_choose(state, board, p, mem, rng, out, weights, epsilon, diff)
            t = counts[p]
            if t < rows.shape[1]:
                for i in range(N_FEATURES):
                    rows[p, t, i] = diff[i]
                counts[p] = t + 1
        _rules.play_line(state, board, out, n, no_trace)
    return state[S.WINNER]


@kernel
def learn_games(boards, game_seeds, opponents, weights, epsilon, alpha, lam, bound, results):
    """Play one learning game per row of ``boards`` (``opponents[i]``: OPPONENT_*; against v3
    the learner's side alternates with the game's parity) and after each, TD(lambda) on every
    learning side's rows (``_learn.td_update``; weights clipped to [-bound, bound]), in place
    on ``weights``. ``results[i]``: (winner, learner side or -1 for self-play, player-turns,
    squared TD error summed over the game's rows). Returns the player-turns played."""
    state = np.zeros(S.STATE_SIZE, dtype=np.int64)
    mem0 = np.empty(V3_MEM, dtype=np.int64)
    mem1 = np.empty(V3_MEM, dtype=np.int64)
    rows = np.zeros((2, TURNS_EACH, N_FEATURES))
    counts = np.zeros(2, dtype=np.int64)
    turns = 0
    for i in range(boards.shape[0]):
        side = game_seeds[i] % 2 if opponents[i] == OPPONENT_V3 else -1
        winner = learning_game(boards[i], weights, epsilon, opponents[i], side, game_seeds[i], state, mem0, mem1,
                               rows, counts)
        error = 0.0
        for p in range(2):
            if counts[p] == 0:
                continue
            result = 0.5 if winner < 0 else (1.0 if winner == p else 0.0)
            error += td_update(weights, rows[p], counts[p], result, alpha, lam, bound)
        results[i, 0] = winner
        results[i, 1] = side
        results[i, 2] = state[S.TURN]
        results[i, 3] = error
        turns += state[S.TURN]
    return turns
