"""The v2 bot's memory and its observe stage: three trackers fed with everything shown since
our last turn (the opponent, safe and assuming; ourselves as the opponent can track us)."""
import numpy as np

from ocean._jit import copy_into, kernel

from ocean import _state as S
from ocean.board import SECTOR
from ocean.constants import ACT_MOVE, ACT_SONAR, ACT_TORPEDO, ACT_TRIGGER, SONAR_NA, SONAR_NO, SONAR_YES
from ocean.tracking._driver import observe_from_state
from ocean.tracking._kernel import blast_damage, observe, reset_tracker
from ocean.tracking._layout import DEFAULT_CAP, tracker_layout, tracker_size

M_OPP_PREV = 0  # 8 triples: the opponent's summary shown at our previous turn
M_OPP_PREV_COUNT = 24
M_CELL_PREV = 25  # our cell during that opponent turn (its SONAR looked there)
M_OPP_CHARGE = 26  # MOVEs the opponent made since its last TORPEDO
M_HEADER = 32
TRACKER = tracker_size(DEFAULT_CAP)
M_OPP_SAFE = M_HEADER
M_OPP_ASSUME = M_OPP_SAFE + TRACKER
M_SELF = M_OPP_ASSUME + TRACKER
V2_MEM = M_SELF + TRACKER


@kernel
def v2_reset(board, mem):
    """Fresh memory for a game: trackers on every water cell, nothing seen yet."""
    mem[:M_HEADER] = 0
    for offset, assume in ((M_OPP_SAFE, 0), (M_OPP_ASSUME, 1), (M_SELF, 0)):
        trk = mem[offset:offset + TRACKER]
        tracker_layout(trk, DEFAULT_CAP, assume)
        reset_tracker(trk, board)


@kernel
def _sonar_answer(board, line, n, cell):
    """The answer the opponent got to a SONAR in its line, given where we were."""
    for i in range(n):
        if line[3 * i] == ACT_SONAR:
            return SONAR_YES if board[SECTOR + cell] == line[3 * i + 1] else SONAR_NO
    return SONAR_NA


@kernel
def observe_turn(state, board, p, mem):
    """Stage 1, observe: feed the three trackers with everything shown since our last turn."""
    me = S.player_base(p)
    opp = S.player_base(1 - p)
    cell = state[me + S.CELL]
    observe_from_state(mem[M_OPP_SAFE:M_OPP_SAFE + TRACKER], mem[M_OPP_ASSUME:M_OPP_ASSUME + TRACKER],
                       board, state, p)
    n_opp = state[opp + S.SUMMARY_COUNT]
    opp_line = state[opp + S.SUMMARY:opp + S.SUMMARY + 24]
    n_own = state[me + S.SUMMARY_COUNT]
    if n_own > 0:
        # The opponent's view of us, as it stood at the start of its last turn: its own
        # previous line (and our answer to its sonar), our line, our life after our line.
        life_after = max(state[me + S.LIFE], 0)
        for i in range(n_opp):
            kind = opp_line[3 * i]
            if kind == ACT_TORPEDO or kind == ACT_TRIGGER:
                life_after += blast_damage(cell, opp_line[3 * i + 1], opp_line[3 * i + 2])
        prev_n = mem[M_OPP_PREV_COUNT]
        prev = mem[M_OPP_PREV:M_OPP_PREV + 24]
        answer = _sonar_answer(board, prev, prev_n, mem[M_CELL_PREV])
        no_mines = np.zeros(4, dtype=np.int64)
        observe(mem[M_SELF:M_SELF + TRACKER], board, prev, prev_n, answer,
                state[me + S.SUMMARY:me + S.SUMMARY + 24], n_own, life_after, no_mines)
    copy_into(mem[M_OPP_PREV:M_OPP_PREV + 24], opp_line)
    mem[M_OPP_PREV_COUNT] = n_opp
    mem[M_CELL_PREV] = cell
    for i in range(n_opp):
        kind = opp_line[3 * i]
        if kind == ACT_MOVE:
            mem[M_OPP_CHARGE] += 1
        elif kind == ACT_TORPEDO:
            mem[M_OPP_CHARGE] = 0
