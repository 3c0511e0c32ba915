"""Layout of a tracker: one flat int64 array holding a header, the candidate states of the
tracked submarine, a second state buffer for SILENCE expansions, and a hash table.

A candidate state stands for every history of the tracked submarine that ends on ``cell``
with at least the cells of ``visited`` visited since its last surface, whose mines still
alive were laid from cells of ``origins`` (a mine lies on one of the 4 neighbours of its
origin), and whose damage taken since the last life reading is one of the totals in the
bit set ``pending`` (bit k: k lives; merged states keep every total any had). ``multi``
marks origins from which two mines or more may have been laid, so that a TRIGGER only
ever forgets an origin that surely held a single mine.
"""
import numpy as np

from ocean._jit import kernel

from ocean.constants import CELLS, START_LIFE

# Header fields.
H_COUNT = 0  # candidate states
H_CAP = 1  # above this many states they collapse to one per (cell, pending)
H_CAPACITY = 2  # rows of each state buffer (17 x cap: a SILENCE branches 1 + 4 x 4 ways)
H_ASSUME = 3  # 1: also prune by assumptions about how the opponent plays
H_LIFE = 4  # the tracked submarine's life at the last update
H_GEN = 5  # generation stamp of the hash table (entries of older ones are empty)
H_TABLE_BITS = 6  # log2 of the hash table size
H_COLLAPSES = 7  # times the cap was reached
H_FALLBACKS = 8  # assumption tracker: times it fell back to the safe set
H_RESETS = 9  # safe tracker: times it emptied (only possible if it was fed wrong input)
H_UPDATES = 10
HEADER = 16

# Fields of one candidate state.
F_CELL = 0
F_PENDING = 1
F_VISITED = 2  # 4 words
F_ORIGINS = 6  # 4 words
F_MULTI = 10  # 4 words
STATE_WORDS = 14

# SILENCE branches: staying put, or 1..4 steps in one of 4 directions.
BRANCHES = 17

DEFAULT_CAP = 600


def tracker_size(cap: int) -> int:
    """Length of the array ``new_tracker`` returns for ``cap``."""
    capacity = cap * BRANCHES
    bits = _table_bits(capacity)
    return HEADER + 2 * capacity * STATE_WORDS + (1 << bits)


def _table_bits(capacity: int) -> int:
    bits = 4
    while (1 << bits) < 2 * capacity:
        bits += 1
    return bits


@kernel
def _table_bits_kernel(capacity):
    bits = 4
    while (1 << bits) < 2 * capacity:
        bits += 1
    return bits


@kernel
def tracker_layout(trk, cap, assume):
    """Write the header of a tracker array of ``tracker_size(cap)`` words."""
    capacity = cap * BRANCHES
    trk[:HEADER] = 0
    trk[H_CAP] = cap
    trk[H_CAPACITY] = capacity
    trk[H_ASSUME] = assume
    trk[H_TABLE_BITS] = _table_bits_kernel(capacity)
    trk[H_LIFE] = START_LIFE
    # Hash entries carry a generation stamp; a reused array must not hold stamps that a
    # new game would take for its own (a game must not depend on the games before it).
    table_view(trk)[:] = 0


@kernel
def states_view(trk):
    """The live state buffer as a (capacity, STATE_WORDS) view."""
    capacity = trk[H_CAPACITY]
    return trk[HEADER:HEADER + capacity * STATE_WORDS].reshape((capacity, STATE_WORDS))


@kernel
def spare_view(trk):
    """The second state buffer, where SILENCE writes its branches."""
    capacity = trk[H_CAPACITY]
    start = HEADER + capacity * STATE_WORDS
    return trk[start:start + capacity * STATE_WORDS].reshape((capacity, STATE_WORDS))


@kernel
def table_view(trk):
    capacity = trk[H_CAPACITY]
    start = HEADER + 2 * capacity * STATE_WORDS
    return trk[start:start + (1 << trk[H_TABLE_BITS])]


def new_tracker(cap: int = DEFAULT_CAP, assume: bool = False) -> np.ndarray:
    """A tracker array for up to ``cap`` candidate states (at least one per cell); call
    ``reset_tracker`` before each game."""
    if cap < CELLS:
        raise ValueError(f"a tracker cap must be at least {CELLS} (one state per cell), got {cap}")
    trk = np.zeros(tracker_size(cap), dtype=np.int64)
    tracker_layout(trk, cap, 1 if assume else 0)
    return trk
