"""One entry point for every in-process bot policy, so game loops stay policy-agnostic."""
from ocean._jit import inline_kernel, kernel

from ocean.bots._baselines import (
    BOT_CHASER, BOT_TUNABLE, BOT_TUNABLE_V1, BOT_TUNABLE_V2, MEM_SIZE as _BASELINE_MEM, chaser_reset, chaser_turn,
    random_start, random_turn,
)
from ocean.bots._tunable_v1 import TUNABLE_MEM, roomy_start, tunable_reset, tunable_turn
from ocean.bots.v2._observe import V2_MEM, v2_reset
from ocean.bots.v2._turn import v2_turn

MEM_SIZE = max(_BASELINE_MEM, TUNABLE_MEM, V2_MEM)


@kernel
def bot_start(kind, board, rng):
    """The start cell bot ``kind`` chooses on ``board``."""
    if kind == BOT_TUNABLE or kind == BOT_TUNABLE_V2:
        return roomy_start(board, rng)
    return random_start(board, rng)


@kernel
def bot_reset(kind, board, mem):
    """Prepare a bot's memory for a new game (only the part its policy uses)."""
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
    """Encoded line of bot ``kind`` for player p; returns the number of rows in ``out``.
    ``coefs`` is the coefficient vector (registry order) of policies that read one."""
    if kind == BOT_TUNABLE or kind == BOT_TUNABLE_V1:
        return tunable_turn(state, board, p, mem, rng, out, coefs)
    if kind == BOT_TUNABLE_V2:
        return v2_turn(state, board, p, mem, rng, out, coefs)
    if kind == BOT_CHASER:
        return chaser_turn(state, board, p, mem, rng, out)
    return random_turn(state, board, p, mem, rng, out)


def policy_turn(kind: int):
    """``bot_turn`` for callers outside compiled code (``ocean bot``): the policy kernel it
    dispatches ``kind`` to, as ``f(state, board, p, mem, rng, out, coefs) -> rows``. Calling
    the policy directly reuses the kernels the in-process games compiled, instead of
    compiling the dispatch over every policy into one more entry point. Keep in step with
    ``bot_turn`` (tests/ocean/test_doors.py plays both doors)."""
    if kind == BOT_TUNABLE or kind == BOT_TUNABLE_V1:
        return tunable_turn
    if kind == BOT_TUNABLE_V2:
        return v2_turn
    if kind == BOT_CHASER:
        return lambda state, board, p, mem, rng, out, coefs: chaser_turn(state, board, p, mem, rng, out)
    return lambda state, board, p, mem, rng, out, coefs: random_turn(state, board, p, mem, rng, out)
