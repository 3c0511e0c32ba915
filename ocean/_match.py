"""A whole game between in-process bots, inside compiled code: no strings, no Python
objects between the first turn and the verdict.

Every bot plays through three function-pointer slots (``bots._slots``: start, reset, turn;
``bots.registry`` says which kernels fill them), so the loop's compiled code holds no bot:
it is compiled and cached once whatever bots exist, and a bot's kernels compile on their
own, when a game first names it. The Python wrappers below fill the slots from the bots'
kinds and call the one version of the loop compiled for the pointer types.

One exception, for speed only: the random bot's turn (a few hundred nanoseconds) is also
compiled into the loop and called directly when a player is the ``random`` policy (flags
``random_a``, ``random_b``). Through its pointer, a random-vs-random game cost 5% more
(20,550 against 21,670 games per CPU-second, 2026-11-26): the engine's own benchmark plays
those. The text door calls the same kernel through the slot (``bots._adapters``), and
tests/ocean/test_doors.py checks that both give the same games.
"""
import numpy as np
from numba.core import types

from ocean._jit import copy_into, inline_kernel, kernel

from ocean import _rules
from ocean import _state as S
from ocean.bots._baselines import random_turn, seed_rng
from ocean.bots._slots import MEM_SIZE, RESET_TYPE, START_TYPE, TURN_TYPE, slot_kernels
from ocean.bots.registry import policy
from ocean.constants import ACTION_FIELDS, ERR_NONE, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS


@inline_kernel
def play_game_in(board, coefs, game_seed, state, log, log_counts, mem0, mem1, start0, reset0, turn0, start1, reset1,
                 turn1, random0, random1):
    """Play the bot of slots ``start0``, ``reset0``, ``turn0`` (coefficient vector ``coefs[0]``)
    against the bot of slots ``start1`` ... (``coefs[1]``) on ``board``; ``random0``,
    ``random1``: that player is the random bot, whose turn is called directly. The game is a
    pure function of (board, bots, coefs, game_seed). Fills ``state`` with the final state. If
    ``log`` has rows, turn t's encoded line goes to ``log[t]`` (count in ``log_counts[t]``)
    and the start cells to ``log_counts[MAX_PLAYER_TURNS + p]``. ``mem0``/``mem1`` (MEM_SIZE
    words each) hold the bots' memory: a tunable bot's trackers are megabytes, so loops over
    many games allocate them once. Returns the number of turns played."""
    # One variable per player, so the turn loop passes whole arrays, never row views.
    rng0 = np.empty(1, dtype=np.uint64)
    rng1 = np.empty(1, dtype=np.uint64)
    seed_rng(rng0, game_seed * 2)
    seed_rng(rng1, game_seed * 2 + 1)
    coefs0 = coefs[0].copy()
    coefs1 = coefs[1].copy()
    reset0(board, mem0)
    reset1(board, mem1)
    cell0 = start0(board, rng0)
    cell1 = start1(board, rng1)
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
            mem, rng, coefs_p, turn, random = mem0, rng0, coefs0, turn0, random0
        else:
            mem, rng, coefs_p, turn, random = mem1, rng1, coefs1, turn1, random1
        if random:  # the same lines as its turn slot (bots._adapters.random_turn), without the pointer
            n = random_turn(state, board, p, mem, rng, out)
        else:
            n = turn(state, board, p, mem, rng, out, coefs_p)
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
def play_games(boards, coefs, game_seeds, both_sides, results, state, log, log_counts, mem0, mem1, start_a, reset_a,
               turn_a, start_b, reset_b, turn_b, random_a, random_b):
    """The one compiled loop over in-process games (every game of the lab goes through it).
    One game per row of ``boards`` with bot A (slots ``start_a``, ``reset_a``, ``turn_a``,
    coefficients ``coefs[0]``) as player 0, or, with ``both_sides``, two: A is player 0 in
    row 2i and player 1 in row 2i+1 (same map and game seed for both games of a pair: common
    random numbers); bot B has the ``_b`` slots and ``coefs[1]``; ``random_a``, ``random_b``:
    that bot is the random policy (see the module doc). ``mem0``/``mem1``: the
    memory of players 0 and 1 (``MEM_SIZE`` words). ``results`` rows: PAIR_* columns.
    ``state`` ends with the final state of the last game, ``log``/``log_counts`` (see
    ``play_game_in``) record it if ``log`` has rows. Returns the player-turns played."""
    swapped_coefs = np.empty_like(coefs)
    copy_into(swapped_coefs[0], coefs[1])
    copy_into(swapped_coefs[1], coefs[0])
    sides = 2 if both_sides else 1
    turns = 0
    for i in range(boards.shape[0]):
        for a_side in range(sides):
            # One call site: play_game_in is inlined, and every copy of it is compiled again.
            if a_side == 0:
                game_coefs, start0, reset0, turn0, start1, reset1, turn1 = (coefs, start_a, reset_a, turn_a, start_b,
                                                                            reset_b, turn_b)
                random0, random1 = random_a, random_b
            else:
                game_coefs, start0, reset0, turn0, start1, reset1, turn1 = (swapped_coefs, start_b, reset_b, turn_b,
                                                                            start_a, reset_a, turn_a)
                random0, random1 = random_b, random_a
            play_game_in(boards[i], game_coefs, game_seeds[i], state, log, log_counts, mem0, mem1, start0, reset0,
                         turn0, start1, reset1, turn1, random0, random1)
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
_RANDOM = policy("random").kind  # its turn is compiled into the loop (see the module doc)
# play_games with function-pointer slots: the one version compiled (ocean warmup compiles it).
GAMES_SIGNATURE = (types.Array(_I, 2, "C"), types.Array(types.float64, 2, "C"), types.Array(_I, 1, "C"),
                   types.boolean, types.Array(_I, 2, "C"), types.Array(_I, 1, "C"), types.Array(_I, 3, "C"),
                   types.Array(_I, 1, "C"), types.Array(_I, 1, "C"), types.Array(_I, 1, "C"),
                   START_TYPE, RESET_TYPE, TURN_TYPE, START_TYPE, RESET_TYPE, TURN_TYPE, types.boolean, types.boolean)


def _games(boards, kinds, coefs, game_seeds, both_sides, results, state, log, log_counts) -> int:
    """``play_games`` with the slots filled from ``kinds`` (bot A's, bot B's), through the one
    compiled version whose slots are function pointers (passing a kernel as such an argument
    would otherwise compile, and never cache, a version per kernel)."""
    kinds = np.ascontiguousarray(kinds, dtype=np.int64)
    slots = slot_kernels(int(kinds[0])) + slot_kernels(int(kinds[1]))
    mem0 = np.empty(MEM_SIZE, dtype=np.int64)
    mem1 = np.empty(MEM_SIZE, dtype=np.int64)
    entry = play_games.compile(GAMES_SIGNATURE)
    return entry(np.ascontiguousarray(boards, dtype=np.int64), np.ascontiguousarray(coefs, dtype=np.float64),
                 np.ascontiguousarray(game_seeds, dtype=np.int64), bool(both_sides), results, state, log, log_counts,
                 mem0, mem1, *slots, int(kinds[0]) == _RANDOM, int(kinds[1]) == _RANDOM)


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
