"""A whole game between in-process bots, inside compiled code: no strings, no Python
objects between the first turn and the verdict."""
import numpy as np

from ocean._jit import kernel

from ocean import _rules
from ocean import _state as S
from ocean.bots._baselines import MEM_SIZE, bot_reset, bot_turn, random_start, seed_rng
from ocean.constants import ACTION_FIELDS, ERR_NONE, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS


@kernel
def play_game(board, kinds, game_seed, state, log, log_counts):
    """Play bots ``kinds[0]`` vs ``kinds[1]`` on ``board``; the game is a pure function of
    (board, kinds, game_seed). Fills ``state`` with the final state. If ``log`` has rows,
    turn t's encoded line goes to ``log[t]`` (count in ``log_counts[t]``) and the start
    cells to ``log_counts[MAX_PLAYER_TURNS + p]``. Returns the number of turns played."""
    # One variable per player, so the turn loop passes whole arrays, never row views.
    rng0 = np.empty(1, dtype=np.uint64)
    rng1 = np.empty(1, dtype=np.uint64)
    mem0 = np.empty(MEM_SIZE, dtype=np.int64)
    mem1 = np.empty(MEM_SIZE, dtype=np.int64)
    seed_rng(rng0, game_seed * 2)
    seed_rng(rng1, game_seed * 2 + 1)
    bot_reset(kinds[0], board, mem0)
    bot_reset(kinds[1], board, mem1)
    kind0 = kinds[0]
    kind1 = kinds[1]
    cell0 = random_start(board, rng0)
    cell1 = random_start(board, rng1)
    recording = log.shape[0] > 0
    if recording:
        log_counts[MAX_PLAYER_TURNS] = cell0
        log_counts[MAX_PLAYER_TURNS + 1] = cell1
    _rules.start_game(state, board, cell0, ERR_NONE, cell1, ERR_NONE)
    out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    no_trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
    while _rules.begin_turn(state):
        p = state[S.ACTIVE]
        if p == 0:
            n = bot_turn(kind0, state, board, 0, mem0, rng0, out)
        else:
            n = bot_turn(kind1, state, board, 1, mem1, rng1, out)
        if recording:
            t = state[S.TURN] - 1
            log[t, :n] = out[:n]
            log_counts[t] = n
        _rules.play_line(state, board, out, n, no_trace)
    return state[S.TURN]


@kernel
def play_many(boards, kinds, game_seeds, results):
    """Play one game per row of ``boards``; results[i] = (winner, life0, life1, end, turns)."""
    state = _rules.new_state()
    log = np.zeros((0, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    log_counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    turns = 0
    for i in range(boards.shape[0]):
        play_game(boards[i], kinds, game_seeds[i], state, log, log_counts)
        results[i, 0] = state[S.WINNER]
        results[i, 1] = state[S.player_base(0) + S.LIFE]
        results[i, 2] = state[S.player_base(1) + S.LIFE]
        results[i, 3] = state[S.END]
        results[i, 4] = state[S.TURN]
        turns += state[S.TURN]
    return turns
