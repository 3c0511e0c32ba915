"""Layout of the game state (``ocean._layout``, re-exported here) and its kernels."""
from ocean._jit import kernel

from ocean._layout import *  # noqa: F401,F403  (the layout constants: S.CELL, S.PLAYER_STRIDE, ...)
from ocean._layout import GLOBALS, PLAYER_STRIDE


@kernel
def player_base(p):
    """Offset of player p's block in the state array."""
    return GLOBALS + p * PLAYER_STRIDE
