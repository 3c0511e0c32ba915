"""Slot-signature kernels (``bots.registry``) for the bots written before the slots: the
baselines, v1 and v2. Their own modules are frozen and stay as they are; these only fit them
to the slots (a reset returns 0, a turn takes the coefficient vector) and do what the
hand-kept dispatch did before each of their games, in the same order, so that they play the
same lines."""
from ocean._jit import kernel

from ocean.bots import _baselines as B
from ocean.bots._tunable_v1 import tunable_reset
from ocean.bots.v2._observe import v2_reset as _v2_reset

__all__ = ["baseline_reset", "chaser_reset", "random_turn", "chaser_turn", "v1_reset", "v2_reset"]


@kernel
def baseline_reset(board, mem):
    """The random bot's memory for a new game (it reads none; zeroed as it always was)."""
    mem[:B.BASELINE_MEM] = 0
    return 0


@kernel
def chaser_reset(board, mem):
    """The chaser's memory for a new game: the opponent may be on any water cell. Only its
    own words: ``chaser_reset`` zeroes the whole array it is given, and every bot's array is
    as long as the largest bot's memory (megabytes of trackers) the chaser never reads."""
    B.chaser_reset(board, mem[:B.BASELINE_MEM])
    return 0


@kernel
def random_turn(state, board, p, mem, rng, out, coefs):
    """The random bot's line (it reads no coefficients)."""
    return B.random_turn(state, board, p, mem, rng, out)


@kernel
def chaser_turn(state, board, p, mem, rng, out, coefs):
    """The chaser's line (it reads no coefficients)."""
    return B.chaser_turn(state, board, p, mem, rng, out)


@kernel
def v1_reset(board, mem):
    """The v1 bot's memory for a new game (policies ``tunable`` and ``tunable-v1``)."""
    tunable_reset(board, mem)
    return 0


@kernel
def v2_reset(board, mem):
    """The v2 bot's memory for a new game."""
    _v2_reset(board, mem)
    return 0
