"""Per-map lookup tables, built once per map in compiled code.

A board is one flat int64 array so that it can be passed to every kernel, shipped to
workers and cached without any Python object around it. Layout (offsets below):

- ``WATER[c]``: 1 if cell c is water, else 0
- ``SECTOR[c]``: sector 1..9 of cell c
- ``STEP[c*4 + d]``: the water cell one step from c in direction d, or -1 (map edge or island)
- ``REACH[c*4 + w]``: word w of the bitboard of water cells a torpedo fired from c can hit
  (shortest 4-neighbour path through water of length <= 4; visited cells do not block)
"""
import numpy as np

from ocean._jit import kernel

from ocean.constants import BOARD_WORDS, CELLS, DX, DY, HEIGHT, TORPEDO_RANGE, WIDTH

__all__ = ["build_board", "board_for_seed", "BOARD_SIZE", "WATER", "SECTOR", "STEP", "REACH"]

WATER = 0
SECTOR = WATER + CELLS
STEP = SECTOR + CELLS
REACH = STEP + CELLS * 4
BOARD_SIZE = REACH + CELLS * BOARD_WORDS

_DX = np.array(DX, dtype=np.int64)
_DY = np.array(DY, dtype=np.int64)


@kernel
def sector_of(x, y):
    """Sector 1..9 of (x, y): 5x5 blocks numbered row by row from the north-west."""
    return x // 5 + 1 + (y // 5) * 3


@kernel
def has_bit(words, offset, cell):
    """Whether ``cell`` is set in the 4-word bitboard stored at ``words[offset:offset+4]``."""
    return (words[offset + (cell >> 6)] >> (cell & 63)) & 1


@kernel
def _build_board(island, dx, dy):
    board = np.zeros(BOARD_SIZE, dtype=np.int64)
    for c in range(CELLS):
        x = c % WIDTH
        y = c // WIDTH
        board[WATER + c] = 1 - island[c]
        board[SECTOR + c] = sector_of(x, y)
    for c in range(CELLS):
        x = c % WIDTH
        y = c // WIDTH
        for d in range(4):
            nx = x + dx[d]
            ny = y + dy[d]
            target = -1
            if 0 <= nx < WIDTH and 0 <= ny < HEIGHT and island[ny * WIDTH + nx] == 0:
                target = ny * WIDTH + nx
            board[STEP + c * 4 + d] = target
    dist = np.empty(CELLS, dtype=np.int64)
    queue = np.empty(CELLS, dtype=np.int64)
    for src in range(CELLS):
        if island[src]:
            continue
        dist[:] = -1
        dist[src] = 0
        queue[0] = src
        head = 0
        tail = 1
        while head < tail:
            c = queue[head]
            head += 1
            board[REACH + src * BOARD_WORDS + (c >> 6)] |= np.int64(1) << (c & 63)
            if dist[c] == TORPEDO_RANGE:
                continue
            for d in range(4):
                n = board[STEP + c * 4 + d]
                if n >= 0 and dist[n] < 0:
                    dist[n] = dist[c] + 1
                    queue[tail] = n
                    tail += 1
    return board


@kernel
def build_board_kernel(island):
    """Board array (see module doc) from an island mask uint8[225]."""
    return _build_board(island, _DX, _DY)


def build_board(island: np.ndarray) -> np.ndarray:
    """Board array for an island mask (uint8[225], 1 = island)."""
    island = np.ascontiguousarray(island, dtype=np.uint8)
    if island.shape != (CELLS,):
        raise ValueError(f"an island mask has {CELLS} cells, got shape {island.shape}")
    return build_board_kernel(island)


def board_for_seed(seed: int) -> np.ndarray:
    """Board array of the referee's map for ``seed``."""
    from ocean.maps import generate_map

    return build_board(generate_map(seed))
