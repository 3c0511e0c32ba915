"""One entry point for every in-process bot policy, so game loops stay policy-agnostic.

Two kinds of policy. The built-in ones (the baselines, v1, v2) are compiled into the one
loop over games (``_match.play_games``) and into ``ocean warmup``. A plug-in policy (from
``FIRST_PLUGIN`` on: v3) reaches the loop through function pointers of fixed signature
(``TURN_TYPE``, ``RESET_TYPE``), so its kernels are compiled only when a game names it and
the loop's own compiled code, cached on disk, never depends on them: a third bot costs
nothing to users who do not play it.
"""
from numba.core import types

from ocean._jit import inline_kernel, kernel

from ocean.bots._baselines import (
    BOT_CHASER, BOT_TUNABLE, BOT_TUNABLE_V1, BOT_TUNABLE_V2, BOT_TUNABLE_V3, MEM_SIZE as _BASELINE_MEM,
    chaser_reset, chaser_turn, random_start, random_turn,
)
from ocean.bots._tunable_v1 import TUNABLE_MEM, roomy_start, tunable_reset, tunable_turn
from ocean.bots.v2._observe import V2_MEM, v2_reset
from ocean.bots.v2._turn import v2_turn
from ocean.bots.v3._observe import V3_MEM

__all__ = ["MEM_SIZE", "FIRST_PLUGIN", "TURN_TYPE", "RESET_TYPE", "bot_start", "bot_reset", "bot_turn",
           "no_turn", "no_reset", "plugin", "policy_turn", "policy_reset"]

MEM_SIZE = max(_BASELINE_MEM, TUNABLE_MEM, V2_MEM, V3_MEM)
FIRST_PLUGIN = BOT_TUNABLE_V3  # kinds from here on are plug-ins

_i64 = types.int64
_ints = types.Array(types.int64, 1, "C")
# A plug-in's turn: f(state, board, p, mem, rng, out, coefs) -> rows written to out.
TURN_TYPE = types.FunctionType(_i64(_ints, _ints, _i64, _ints, types.Array(types.uint64, 1, "C"),
                                    types.Array(types.int64, 2, "C"), types.Array(types.float64, 1, "C")))
# A plug-in's reset: f(board, mem) -> 0, before every game.
RESET_TYPE = types.FunctionType(_i64(_ints, _ints))


@kernel
def bot_start(kind, board, rng):
    """The start cell bot ``kind`` chooses on ``board``."""
    if kind == BOT_TUNABLE or kind >= BOT_TUNABLE_V2:
        return roomy_start(board, rng)
    return random_start(board, rng)


@kernel
def bot_reset(kind, board, mem):
    """Prepare a built-in bot's memory for a new game (only the part its policy uses); a
    plug-in resets its own (``RESET_TYPE``)."""
    if kind == BOT_TUNABLE or kind == BOT_TUNABLE_V1:
        tunable_reset(board, mem)
        return
    if kind == BOT_TUNABLE_V2:
        v2_reset(board, mem)
        return
    mem[:_BASELINE_MEM] = 0
    if kind == BOT_CHASER:
        chaser_reset(board, mem)


@inline_kernel
def bot_turn(kind, state, board, p, mem, rng, out, coefs):
    """Encoded line of built-in bot ``kind`` for player p; returns the number of rows in
    ``out``. ``coefs`` is the coefficient vector (registry order) of policies that read one."""
    if kind == BOT_TUNABLE or kind == BOT_TUNABLE_V1:
        return tunable_turn(state, board, p, mem, rng, out, coefs)
    if kind == BOT_TUNABLE_V2:
        return v2_turn(state, board, p, mem, rng, out, coefs)
    if kind == BOT_CHASER:
        return chaser_turn(state, board, p, mem, rng, out)
    return random_turn(state, board, p, mem, rng, out)


@kernel
def no_turn(state, board, p, mem, rng, out, coefs):
    """The plug-in slot of a built-in bot: never called."""
    return 0


@kernel
def no_reset(board, mem):
    """The plug-in slot of a built-in bot: never called."""
    return 0


def plugin(kind: int):
    """(turn, reset) kernels of plug-in ``kind`` for the loop's function-pointer slots;
    ``no_turn``, ``no_reset`` for a built-in bot. Importing a plug-in compiles nothing: its
    kernels compile (or load from the cache) when a game first passes them."""
    if kind == BOT_TUNABLE_V3:
        from ocean.bots.v3._observe import v3_reset
        from ocean.bots.v3._turn import v3_turn

        return v3_turn, v3_reset
    return no_turn, no_reset


def policy_turn(kind: int):
    """``bot_turn`` for callers outside compiled code (``ocean bot``): the policy kernel it
    dispatches ``kind`` to, as ``f(state, board, p, mem, rng, out, coefs) -> rows``. Calling
    the policy directly reuses the kernels the in-process games compiled, instead of
    compiling the dispatch over every policy into one more entry point. Keep in step with
    ``bot_turn`` (tests/ocean/test_doors.py plays both doors)."""
    if kind >= FIRST_PLUGIN:
        return plugin(kind)[0]
    if kind == BOT_TUNABLE or kind == BOT_TUNABLE_V1:
        return tunable_turn
    if kind == BOT_TUNABLE_V2:
        return v2_turn
    if kind == BOT_CHASER:
        return lambda state, board, p, mem, rng, out, coefs: chaser_turn(state, board, p, mem, rng, out)
    return lambda state, board, p, mem, rng, out, coefs: random_turn(state, board, p, mem, rng, out)


def policy_reset(kind: int):
    """``bot_reset`` for callers outside compiled code, plug-ins included: ``f(board, mem)``."""
    if kind >= FIRST_PLUGIN:
        return plugin(kind)[1]
    return lambda board, mem: bot_reset(kind, board, mem)
