"""A whole game between in-process bots, inside compiled code: no strings, no Python
objects between the first turn and the verdict."""
import numpy as np

from ocean._jit import kernel

from ocean import _rules
from ocean import _state as S
from ocean.bots._baselines import seed_rng
from ocean.bots._dispatch import MEM_SIZE, bot_reset, bot_start, bot_turn
from ocean.constants import ACTION_FIELDS, ERR_NONE, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS


@kernel
def play_game(board, kinds, coefs, game_seed, state, log, log_counts):
    """One game (see ``play_game_in``), with bot memory of its own."""
    mem0 = np.empty(MEM_SIZE, dtype=np.int64)
    mem1 = np.empty(MEM_SIZE, dtype=np.int64)
    return play_game_in(board, kinds, coefs, game_seed, state, log, log_counts, mem0, mem1)


@kernel
def play_game_in(board, kinds, coefs, game_seed, state, log, log_counts, mem0, mem1):
    """Play bots ``kinds[0]`` vs ``kinds[1]`` (coefficient vectors ``coefs[0]``, ``coefs[1]``,
    read by the tunable bot) on ``board``; the game is a pure function of
    (board, kinds, coefs, game_seed). Fills ``state`` with the final state. If ``log`` has rows,
    turn t's encoded line goes to ``log[t]`` (count in ``log_counts[t]``) and the start
    cells to ``log_counts[MAX_PLAYER_TURNS + p]``. ``mem0``/``mem1`` (MEM_SIZE words each)
    hold the bots' memory: the tunable bot's trackers are megabytes, so loops over many
    games allocate them once. Returns the number of turns played."""
    # One variable per player, so the turn loop passes whole arrays, never row views.
    rng0 = np.empty(1, dtype=np.uint64)
    rng1 = np.empty(1, dtype=np.uint64)
    seed_rng(rng0, game_seed * 2)
    seed_rng(rng1, game_seed * 2 + 1)
    coefs0 = coefs[0].copy()
    coefs1 = coefs[1].copy()
    bot_reset(kinds[0], board, mem0)
    bot_reset(kinds[1], board, mem1)
    kind0 = kinds[0]
    kind1 = kinds[1]
    cell0 = bot_start(kind0, board, rng0)
    cell1 = bot_start(kind1, board, rng1)
    recording = log.shape[0] > 0
    if recording:
        log_counts[MAX_PLAYER_TURNS] = cell0
        log_counts[MAX_PLAYER_TURNS + 1] = cell1
    _rules.start_game(state, board, cell0, ERR_NONE, cell1, ERR_NONE)
    out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    no_trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
    while _rules.begin_turn(state):
        p = state[S.ACTIVE]
        # p, never the constants 0 and 1: Numba compiles a callee once per literal argument,
        # and the whole tunable bot twice costs half a minute of cold compile.
        if p == 0:
            n = bot_turn(kind0, state, board, p, mem0, rng0, out, coefs0)
        else:
            n = bot_turn(kind1, state, board, p, mem1, rng1, out, coefs1)
        if recording:
            t = state[S.TURN] - 1
            log[t, :n] = out[:n]
            log_counts[t] = n
        _rules.play_line(state, board, out, n, no_trace)
    return state[S.TURN]


@kernel
def play_many(boards, kinds, coefs, game_seeds, results):
    """Play one game per row of ``boards``; results[i] = (winner, life0, life1, end, turns)."""
    state = _rules.new_state()
    log = np.zeros((0, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    log_counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    mem0 = np.empty(MEM_SIZE, dtype=np.int64)
    mem1 = np.empty(MEM_SIZE, dtype=np.int64)
    turns = 0
    for i in range(boards.shape[0]):
        play_game_in(boards[i], kinds, coefs, game_seeds[i], state, log, log_counts, mem0, mem1)
        results[i, 0] = state[S.WINNER]
        results[i, 1] = state[S.player_base(0) + S.LIFE]
        results[i, 2] = state[S.player_base(1) + S.LIFE]
        results[i, 3] = state[S.END]
        results[i, 4] = state[S.TURN]
        turns += state[S.TURN]
    return turns


# Columns of one row of ``play_pairs`` results: which side bot A played, the verdict,
# then both players' statistics (_state.STAT_NAMES order).
PAIR_A_SIDE, PAIR_WINNER, PAIR_LIFE0, PAIR_LIFE1, PAIR_END, PAIR_TURNS = range(6)
PAIR_STATS = 6
PAIR_COLUMNS = PAIR_STATS + 2 * S.STATS_COUNT


@kernel
def play_pairs(boards, kinds, coefs, game_seeds, results):
    """Two games per row of ``boards``, sides swapped: bot A (``kinds[0]``, ``coefs[0]``) is
    player 0 in row 2i and player 1 in row 2i+1. Same map and game seed for both games of a
    pair (common random numbers). Returns the player-turns played."""
    state = _rules.new_state()
    log = np.zeros((0, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    log_counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    swapped_kinds = np.empty(2, dtype=np.int64)
    swapped_kinds[0] = kinds[1]
    swapped_kinds[1] = kinds[0]
    swapped_coefs = np.empty_like(coefs)
    swapped_coefs[0] = coefs[1]
    swapped_coefs[1] = coefs[0]
    mem0 = np.empty(MEM_SIZE, dtype=np.int64)
    mem1 = np.empty(MEM_SIZE, dtype=np.int64)
    turns = 0
    for i in range(boards.shape[0]):
        for a_side in range(2):
            if a_side == 0:
                play_game_in(boards[i], kinds, coefs, game_seeds[i], state, log, log_counts, mem0, mem1)
            else:
                play_game_in(boards[i], swapped_kinds, swapped_coefs, game_seeds[i], state, log, log_counts, mem0, mem1)
            row = results[2 * i + a_side]
            row[PAIR_A_SIDE] = a_side
            row[PAIR_WINNER] = state[S.WINNER]
            row[PAIR_LIFE0] = state[S.player_base(0) + S.LIFE]
            row[PAIR_LIFE1] = state[S.player_base(1) + S.LIFE]
            row[PAIR_END] = state[S.END]
            row[PAIR_TURNS] = state[S.TURN]
            for p in range(2):
                for k in range(S.STATS_COUNT):
                    row[PAIR_STATS + p * S.STATS_COUNT + k] = state[S.player_base(p) + S.STATS + k]
            turns += state[S.TURN]
    return turns
