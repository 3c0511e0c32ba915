"""``ocean bot``: an in-process bot as a CodinGame program on stdin/stdout.

The program keeps a shadow of the game state: its own submarine exactly (it plays its
own lines through the rules), the opponent's life and orders as the input shows them.
The bot kernels read the shadow as they read the real state in compiled games, so the
same bot plays the same way through either door.

The kernels come from the policy's ahead-of-time module when ``ocean warmup`` built one
(``ocean._aot``: NumPy only, no Numba import, the first answer in well under 150 ms), else
through Numba (its import and the cached kernels: about 300 ms more). This module imports no
Numba itself.
"""
from __future__ import annotations

import sys
from typing import NamedTuple, TextIO

import numpy as np

from ocean import _layout as S
from ocean._text import format_line, parse_rows, parse_summary
from ocean.bots import BotSpec
from ocean.constants import ACTION_FIELDS, ERR_NONE, MAX_LINE_ACTIONS, POWER_COST, SONAR_NA, SONAR_NO, SONAR_YES, WIDTH

__all__ = ["run_program", "TextBot", "Kernels", "bot_kernels", "SEARCH_SHARE"]

SEARCH_SHARE = 0.5  # of the time per answer, what a clocked search may spend
_FAR = -1000  # the opponent's cell in the shadow: out of reach of every blast


class Kernels(NamedTuple):
    """What ``ocean bot`` calls: the policy's three slots, the rules' ``start_game`` and
    ``play_line``, ``build_board_kernel``, ``seed_rng``, and the words of a bot's memory."""

    seed_rng: object
    start: object
    reset: object
    turn: object
    start_game: object
    play_line: object
    build_board: object
    mem_size: int
    ahead_of_time: bool  # from the policy's compiled module (``ocean._aot``), not through Numba
    module: object = None  # that module (its clocked search's kernels too), or None


def bot_kernels(kind: int, aot: bool | None = None) -> Kernels:
    """The kernels of policy ``kind``: from its ahead-of-time module if there is one (``aot``
    None), only from it (True: ValueError if ``ocean warmup`` built none), or through Numba
    (False: compiled or loaded from the cache now)."""
    if aot is not False:
        from ocean import _aot

        module = _aot.load(kind)
        if module is not None:
            return Kernels(module.seed_rng, module.start, module.reset, module.turn, module.start_game,
                           module.play_line, module.build_board, int(module.mem_size()), True, module)
        if aot:
            raise ValueError(f"no ahead-of-time module for policy kind {kind}: run `ocean warmup` (--all for "
                             "the bots compiled on first use)")
    from ocean import _rules
    from ocean.board import build_board_kernel
    from ocean.bots._baselines import seed_rng
    from ocean.bots._slots import MEM_SIZE, load_slots

    start, reset, turn = load_slots(kind)  # compiled or loaded now
    return Kernels(seed_rng, start, reset, turn, _rules.start_game, _rules.play_line, build_board_kernel,
                   MEM_SIZE, False)


def _clock_of(kind: int, k: Kernels):
    """Policy ``kind``'s clocked turn (the registry's ``clock``), or None if it has none: over
    the module's exported kernels when ``k`` came from one (no Numba), else through Numba."""
    import importlib

    from ocean.bots.registry import policy_of_kind, resolve

    reference = policy_of_kind(kind).clock
    if reference is None:
        return None
    if not k.ahead_of_time:
        return resolve(reference)
    clock = importlib.import_module(reference.partition(":")[0])
    return clock.clocked({name: getattr(k.module, f"clock_{name}") for name in clock.KERNELS})


def _wrap_int64(value: int) -> np.int64:
    """``value`` as the compiled code computes it: int64 arithmetic wraps around."""
    return np.int64((value + 2**63) % 2**64 - 2**63)


def _begin(board, k: Kernels, seed, me, rng, mem, state) -> int:
    """Seed the bot, pick its start cell, reset its memory and the shadow state (the same
    kernels, in the same order, as a compiled game's start)."""
    k.seed_rng(rng, _wrap_int64(int(seed) * 2 + me))
    start = int(k.start(board, rng))
    k.reset(board, mem)
    k.start_game(state, board, start, ERR_NONE, start, ERR_NONE)
    opp = _player_base(1 - me)
    state[opp + S.CELL] = _FAR
    state[opp + S.VISITED:opp + S.VISITED + 4] = 0
    return start


def _turn(k: Kernels, state, board, me, mem, rng, out, coefs, no_trace, clock=None) -> int:
    """One decision on the shadow, then our line played on it as the referee will. ``clock``:
    (the policy's clocked turn, seconds its search may take), or None for the turn kernel."""
    if clock is None:
        n = int(k.turn(state, board, me, mem, rng, out, coefs))
    else:
        n = int(clock[0](state, board, me, mem, rng, out, coefs, clock[1]))
    state[S.END] = 0
    state[S.ACTIONS] = 0
    state[_player_base(1 - me) + S.CELL] = _FAR
    k.play_line(state, board, out, n, no_trace)
    return n


def _player_base(p: int) -> int:
    return S.GLOBALS + p * S.PLAYER_STRIDE


def _read_turn(state: np.ndarray, me: int, lines: list[str]) -> None:
    """Take the three turn lines into the shadow: our cell, lives, charges and sonar
    answer; the opponent's life and orders."""
    fields = [int(v) for v in lines[0].split()]
    x, y, my_life, opp_life = fields[:4]
    mine, theirs = _player_base(me), _player_base(1 - me)
    cell = y * WIDTH + x
    if state[mine + S.CELL] != cell:
        state[mine + S.CELL] = cell  # only if a line of ours was not played as sent
        state[mine + S.VISITED + (cell >> 6)] |= np.int64(1) << (cell & 63)
    state[mine + S.LIFE] = my_life
    for k in range(4):
        state[mine + S.CHARGE + k] = POWER_COST[k] - fields[4 + k]
    sonar = lines[1].strip()
    state[mine + S.SONAR_RESULT] = SONAR_YES if sonar == "Y" else SONAR_NO if sonar == "N" else SONAR_NA
    state[theirs + S.LIFE] = opp_life
    rows = parse_summary(lines[2])
    state[theirs + S.SUMMARY_COUNT] = len(rows)
    state[theirs + S.SUMMARY:theirs + S.SUMMARY + 3 * len(rows)] = rows.reshape(-1)
    state[S.ACTIVE] = me
    state[S.TURN] += 1


def _read_line(stdin: TextIO) -> str:
    line = stdin.readline()
    if not line:
        raise EOFError
    return line


class TextBot:
    """An in-process bot behind the text door: it reads the lines a CodinGame program reads
    and answers the line it would print. Seeded by the game seed as in compiled games, so it
    plays the same lines through either door. ``aot``: where its kernels come from
    (``bot_kernels``)."""

    def __init__(self, spec: BotSpec, seed: int = 0, turn_ms: int | None = None, *, aot: bool | None = None) -> None:
        self.spec = spec
        self.seed = int(seed)
        self.kind = spec.kind
        self.kernels = bot_kernels(self.kind, aot)  # the kernels the games loop calls, ready now
        self.coefs = spec.vector()
        self.mem = np.empty(self.kernels.mem_size, dtype=np.int64)
        self.state = np.zeros(S.STATE_SIZE, dtype=np.int64)
        self.rng = np.empty(1, dtype=np.uint64)
        self.out = np.zeros((MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
        self.no_trace = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)
        self.board = None
        self.me = 0
        # A policy with a clocked search (the registry's ``clock``) told its time per answer
        # searches for SEARCH_SHARE of it: the rest is reading, writing and the process's jitter.
        self.clock = None
        if turn_ms is not None and self.kind is not None:
            clock = _clock_of(self.kind, self.kernels)
            if clock is not None:
                self.clock = (clock, max(0.0, turn_ms * SEARCH_SHARE) / 1000.0)

    def start(self, init_lines: list[str], *, warm: bool = False) -> str:
        """The start cell ("x y") for the init lines ("15 15 id" and the map rows). With
        ``warm``, one throwaway decision first loads every compiled kernel of a turn (Numba's
        kernels load on first call; an ahead-of-time module is loaded whole already)."""
        _, height, self.me = (int(v) for v in init_lines[0].split())
        rows = [line.rstrip("\r\n") for line in init_lines[1:1 + height]]
        self.board = self.kernels.build_board(parse_rows(rows))
        if warm and not self.kernels.ahead_of_time:
            start = _begin(self.board, self.kernels, np.int64(self.seed), self.me, self.rng, self.mem, self.state)
            _read_turn(self.state, self.me, [f"{start % WIDTH} {start // WIDTH} 6 6 3 4 6 3", "NA", "NA"])
            # A clocked search's own kernels load here too, not in the first 50 ms turn (a
            # module's, the clock's included, are loaded whole already).
            _turn(self.kernels, self.state, self.board, self.me, self.mem, self.rng, self.out, self.coefs,
                  self.no_trace, self.clock)
        start = _begin(self.board, self.kernels, np.int64(self.seed), self.me, self.rng, self.mem, self.state)
        return f"{start % WIDTH} {start // WIDTH}"

    def turn(self, lines: list[str]) -> str:
        """The answer to one turn's three input lines."""
        _read_turn(self.state, self.me, lines)
        n = _turn(self.kernels, self.state, self.board, self.me, self.mem, self.rng, self.out, self.coefs,
                  self.no_trace, self.clock)
        return format_line(self.out, n)


def run_program(spec: BotSpec, seed: int = 0, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
                turn_ms: int | None = None, *, aot: bool | None = None, bot: TextBot | None = None) -> int:
    """Play one game as a CodinGame program; returns the number of turns answered. ``turn_ms``:
    the time per answer, for a policy whose search stops on the clock (``tunable-v4``); ``aot``:
    where the kernels come from (``bot_kernels``); ``bot``: ``TextBot(spec, seed, turn_ms)`` made already."""
    bot = bot if bot is not None else TextBot(spec, seed, turn_ms, aot=aot)
    try:
        first = _read_line(stdin)
        height = int(first.split()[1])
        init = [first] + [_read_line(stdin) for _ in range(height)]
    except EOFError:
        return 0
    # Load every compiled kernel of a turn now, inside the first answer's 1000 ms, so that no
    # later answer pays for it.
    stdout.write(bot.start(init, warm=True) + "\n")
    stdout.flush()
    turns = 0
    while True:
        try:
            lines = [_read_line(stdin) for _ in range(3)]
        except EOFError:
            return turns
        stdout.write(bot.turn(lines) + "\n")
        stdout.flush()
        turns += 1
