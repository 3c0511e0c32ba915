"""The v3 bot's memory and observe stage: v2's three trackers (v2's layout, reused as it is:
``ocean/bots/v2`` never changes), what v3 counts beside them in v2's spare header words (the
opponent's MOVEs since its last SILENCE, so its escape is known to be charged or not), and
the map's answer tables after v2's memory."""
from ocean._jit import kernel

from ocean import _state as S
from ocean.bots.v2._observe import M_HEADER, M_OPP_CHARGE, V2_MEM, observe_turn, v2_reset
from ocean.bots.v3._answer import TABLES_SIZE, build_answer_tables
from ocean.constants import ACT_MOVE, ACT_SILENCE

M_OPP_SILENCE_CHARGE = 27  # MOVEs the opponent made since its last SILENCE (v2 leaves word 27 unused)
M_TABLES = V2_MEM  # _answer's tables for this game's map
V3_MEM = M_TABLES + TABLES_SIZE
assert M_OPP_SILENCE_CHARGE < M_HEADER

__all__ = ["V3_MEM", "M_OPP_CHARGE", "M_OPP_SILENCE_CHARGE", "M_TABLES", "v3_reset", "v3_observe"]


@kernel
def v3_reset(board, mem):
    """Fresh memory for a game (v2's reset zeroes the whole header, v3's words too) and the
    map's answer tables. Returns 0 (the reset slot's signature, ``bots._slots``)."""
    v2_reset(board, mem)
    build_answer_tables(board, mem[M_TABLES:M_TABLES + TABLES_SIZE])
    return 0


@kernel
def v3_observe(state, board, p, mem):
    """Stage 1, observe: v2's trackers, then the opponent's SILENCE charge count."""
    observe_turn(state, board, p, mem)
    opp = S.player_base(1 - p)
    for i in range(state[opp + S.SUMMARY_COUNT]):
        kind = state[opp + S.SUMMARY + 3 * i]
        if kind == ACT_MOVE:
            mem[M_OPP_SILENCE_CHARGE] += 1
        elif kind == ACT_SILENCE:
            mem[M_OPP_SILENCE_CHARGE] = 0
