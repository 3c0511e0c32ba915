"""A whole game between in-process bots, inside compiled code: no strings, no Python
objects between the first turn and the verdict.

Plug-in bots (``bots._dispatch``) play through the function-pointer slots ``turn_a``,
``reset_a`` (bot A) and ``turn_b``, ``reset_b`` (bot B); the Python wrappers below fill them
from the bots' kinds and call the loop compiled for those pointer types, so the loop is
compiled and cached once whatever plug-ins exist.
"""
import numpy as np
from numba.core import types

from ocean._jit import copy_into, inline_kernel, kernel

from ocean import _rules
from ocean import _state as S
from ocean.bots._baselines import seed_rng
from ocean.bots._dispatch import FIRST_PLUGIN, MEM_SIZE, RESET_TYPE, TURN_TYPE, bot_reset, bot_start, bot_turn, plugin
from ocean.constants import ACTION_FIELDS, ERR_NONE, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS


@inline_kernel
def play_game_in(board, kinds, coefs, game_seed, state, log, log_counts, mem0, mem1, turn0, reset0, turn1, reset1):
    """Play bots ``kinds[0]`` vs ``kinds[1]`` (coefficient vectors ``coefs[0]``, ``coefs[1]``,
    read by the tunable bot; ``turn0``, ``reset0``, ``turn1``, ``reset1``: the plug-in slots
    of each) on ``board``; the game is a pure function of
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
    kind0 = kinds[0]
    kind1 = kinds[1]
    if kind0 >= FIRST_PLUGIN:
        reset0(board, mem0)
    else:
        bot_reset(kind0, board, mem0)
    if kind1 >= FIRST_PLUGIN:
        reset1(board, mem1)
    else:
        bot_reset(kind1, board, mem1)
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
        # One call site: bot_turn is inlined, and every copy of it is compiled again.
        if p == 0:
            kind, mem, rng, coefs_p, turn = kind0, mem0, rng0, coefs0, turn0
        else:
            kind, mem, rng, coefs_p, turn = kind1, mem1, rng1, coefs1, turn1
        if kind >= FIRST_PLUGIN:
            n = turn(state, board, p, mem, rng, out, coefs_p)
        else:
            n = bot_turn(kind, state, board, p, mem, rng, out, coefs_p)
        if recording:
            t = state[S.TURN] - 1
            for r in range(n):
                copy_into(log[t, r], out[r])
            log_counts[t] = n
        _rules.play_line(state, board, out, n, no_trace)
    return state[S.TURN]


# Columns of one row of ``play_games`` results: which side bot A played, the verdict,
# then both players' statistics (_state.STAT_NAMES order).
PAIR_A_SIDE, PAIR_WINNER, PAIR_LIFE0, PAIR_LIFE1, PAIR_END, PAIR_TURNS = range(6)
PAIR_STATS = 6
PAIR_COLUMNS = PAIR_STATS + 2 * S.STATS_COUNT


@kernel
def play_games(boards, kinds, coefs, game_seeds, both_sides, results, state, log, log_counts, turn_a, reset_a,
               turn_b, reset_b):
    """The one compiled loop over in-process games (every game of the lab goes through it,
    so the whole bot code is compiled into one entry point only). One game per row of
    ``boards`` with bot A (``kinds[0]``, ``coefs[0]``) as player 0, or, with ``both_sides``,
    two: A is player 0 in row 2i and player 1 in row 2i+1 (same map and game seed for both
    games of a pair: common random numbers); ``turn_a`` ... ``reset_b``: the bots' plug-in
    slots (``bots._dispatch``). ``results`` rows: PAIR_* columns. ``state``
    ends with the final state of the last game, ``log``/``log_counts`` (see
    ``play_game_in``) record it if ``log`` has rows. Returns the player-turns played."""
    swapped_kinds = np.empty(2, dtype=np.int64)
    swapped_kinds[0] = kinds[1]
    swapped_kinds[1] = kinds[0]
    swapped_coefs = np.empty_like(coefs)
    copy_into(swapped_coefs[0], coefs[1])
    copy_into(swapped_coefs[1], coefs[0])
    mem0 = np.empty(MEM_SIZE, dtype=np.int64)
    mem1 = np.empty(MEM_SIZE, dtype=np.int64)
    sides = 2 if both_sides else 1
    turns = 0
    for i in range(boards.shape[0]):
        for a_side in range(sides):
            # One call site: play_game_in is inlined, and every copy of it is compiled again.
            if a_side == 0:
                game_kinds, game_coefs, turn0, reset0, turn1, reset1 = kinds, coefs, turn_a, reset_a, turn_b, reset_b
            else:
                game_kinds, game_coefs = swapped_kinds, swapped_coefs
                turn0, reset0, turn1, reset1 = turn_b, reset_b, turn_a, reset_a
            play_game_in(boards[i], game_kinds, game_coefs, game_seeds[i], state, log, log_counts, mem0, mem1, turn0,
                         reset0, turn1, reset1)
            row = results[sides * i + a_side]
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


_NO_LOG = np.zeros((0, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
_I = types.int64
_GAMES_SIGNATURE = (types.Array(_I, 2, "C"), types.Array(_I, 1, "C"), types.Array(types.float64, 2, "C"),
                    types.Array(_I, 1, "C"), types.boolean, types.Array(_I, 2, "C"), types.Array(_I, 1, "C"),
                    types.Array(_I, 3, "C"), types.Array(_I, 1, "C"), TURN_TYPE, RESET_TYPE, TURN_TYPE, RESET_TYPE)


def _games(boards, kinds, coefs, game_seeds, both_sides, results, state, log, log_counts) -> int:
    """``play_games`` with the plug-in slots filled from ``kinds``, through the one compiled
    version whose slots are function pointers (passing a kernel as such an argument would
    otherwise compile, and never cache, a version per kernel)."""
    kinds = np.ascontiguousarray(kinds, dtype=np.int64)
    turn_a, reset_a = plugin(int(kinds[0]))
    turn_b, reset_b = plugin(int(kinds[1]))
    entry = play_games.compile(_GAMES_SIGNATURE)
    return entry(np.ascontiguousarray(boards, dtype=np.int64), kinds, np.ascontiguousarray(coefs, dtype=np.float64),
                 np.ascontiguousarray(game_seeds, dtype=np.int64), bool(both_sides), results, state, log, log_counts,
                 turn_a, reset_a, turn_b, reset_b)


def _no_log_counts() -> np.ndarray:
    return np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)


def play_game(board, kinds, coefs, game_seed, state, log, log_counts) -> int:
    """One game (see ``play_game_in``) on ``board``; fills ``state`` with the final state
    and ``log``/``log_counts`` with its lines if ``log`` has rows. Returns the turns played."""
    results = np.zeros((1, PAIR_COLUMNS), dtype=np.int64)
    boards = np.ascontiguousarray(board, dtype=np.int64)[None, :]
    seeds = np.array([game_seed], dtype=np.int64)
    return int(_games(boards, kinds, coefs, seeds, False, results, state, log, log_counts))


def play_many(boards, kinds, coefs, game_seeds, results) -> int:
    """Play one game per row of ``boards``; results[i] = (winner, life0, life1, end, turns).
    Returns the player-turns played."""
    table = np.empty((boards.shape[0], PAIR_COLUMNS), dtype=np.int64)
    turns = _games(boards, kinds, coefs, game_seeds, False, table, np.zeros(S.STATE_SIZE, dtype=np.int64), _NO_LOG,
                   _no_log_counts())
    results[:, :] = table[:, PAIR_WINNER:PAIR_TURNS + 1]
    return int(turns)


def play_pairs(boards, kinds, coefs, game_seeds, results) -> int:
    """Two games per row of ``boards``, sides swapped: bot A (``kinds[0]``, ``coefs[0]``) is
    player 0 in row 2i and player 1 in row 2i+1. Same map and game seed for both games of a
    pair (common random numbers). ``results`` rows: PAIR_* columns. Returns the player-turns
    played."""
    return int(_games(boards, kinds, coefs, game_seeds, True, results, np.zeros(S.STATE_SIZE, dtype=np.int64),
                      _NO_LOG, _no_log_counts()))
