"""Map generation, bit-exact with the official referee for any signed 64-bit seed."""
import numpy as np

from ocean._jit import kernel

from ocean._jrandom import java_next_int, java_seed
from ocean._text import parse_rows
from ocean.constants import CELLS, HEIGHT, WIDTH

__all__ = ["generate_map", "map_rows", "parse_rows", "validate_seed"]

# The 13 accepted neighbourhoods (NW, N, NE, E, SE, S, SW, W; '.' = either), as
# (mask, value) over 8 bits with NW as the highest bit.
_PATTERNS = ("11.0.111", ".11111.0", ".0.0.111", "11.0.0.1", ".111.0.0", ".0.111.0",
             "1111.0.1", ".0.11111", "11111111", "11111101", "11110111", "11011111", "01111111")


def _pattern_masks():
    masks = np.zeros(len(_PATTERNS), dtype=np.int64)
    values = np.zeros(len(_PATTERNS), dtype=np.int64)
    for i, pattern in enumerate(_PATTERNS):
        for bit, ch in enumerate(pattern):
            if ch != ".":
                masks[i] |= 1 << (7 - bit)
                if ch == "1":
                    values[i] |= 1 << (7 - bit)
    return masks, values


_MASKS, _VALUES = _pattern_masks()
_NEIGHBOUR_DX = np.array([-1, 0, 1, 1, 1, 0, -1, -1], dtype=np.int64)
_NEIGHBOUR_DY = np.array([-1, -1, -1, 0, 1, 1, 1, 0], dtype=np.int64)


@kernel
def _first_unfit_island(island, masks, values, ndx, ndy):
    """Cell index of the first island (y-major scan) whose neighbourhood fits no pattern, or -1."""
    for y in range(HEIGHT):
        for x in range(WIDTH):
            if not island[y * WIDTH + x]:
                continue
            code = 0
            for k in range(8):
                nx = x + ndx[k]
                ny = y + ndy[k]
                solid = nx < 0 or nx >= WIDTH or ny < 0 or ny >= HEIGHT or island[ny * WIDTH + nx]
                code = (code << 1) | (1 if solid else 0)
            fits = False
            for i in range(masks.shape[0]):
                if code & masks[i] == values[i]:
                    fits = True
                    break
            if not fits:
                return y * WIDTH + x
    return -1


@kernel
def _generate_island(seed, masks, values, ndx, ndy):
    rng = java_seed(seed)
    seeded = np.zeros(CELLS, dtype=np.uint8)
    i = 0
    while True:
        # The loop bound is drawn again at every test, as in the referee.
        rng, bound = java_next_int(rng, 26)
        if i >= bound + 5:
            break
        rng, x = java_next_int(rng, WIDTH)
        rng, y = java_next_int(rng, HEIGHT)
        seeded[y * WIDTH + x] = 1
        i += 1
    island = seeded.copy()
    for y in range(HEIGHT):
        for x in range(WIDTH):
            if seeded[y * WIDTH + x]:
                if y >= 1:
                    island[(y - 1) * WIDTH + x] = 1
                if x + 1 < WIDTH:
                    island[y * WIDTH + x + 1] = 1
                    if y >= 1:
                        island[(y - 1) * WIDTH + x + 1] = 1
    while True:
        cell = _first_unfit_island(island, masks, values, ndx, ndy)
        if cell < 0:
            return island
        cx = cell % WIDTH
        cy = cell // WIDTH
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                x = min(max(cx + dx, 0), WIDTH - 1)
                y = min(max(cy + dy, 0), HEIGHT - 1)
                island[y * WIDTH + x] = 1


@kernel
def generate_island_kernel(seed):
    """uint8[225]: 1 where the referee's map for ``seed`` has an island."""
    return _generate_island(seed, _MASKS, _VALUES, _NEIGHBOUR_DX, _NEIGHBOUR_DY)


def validate_seed(seed) -> int:
    """Return ``seed`` as an int if it is a signed 64-bit integer, else raise ValueError."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 63):
        raise ValueError(f"seed {seed} is outside the signed 64-bit range [-2^63, 2^63-1]")
    return seed


def generate_map(seed: int) -> np.ndarray:
    """Island mask (uint8[225], cell = y*15 + x) of the referee's map for a signed 64-bit seed."""
    return generate_island_kernel(np.int64(validate_seed(seed)))


def map_rows(island: np.ndarray) -> list[str]:
    """The 15 map rows as the referee sends them: 'x' island, '.' water."""
    return ["".join("x" if island[y * WIDTH + x] else "." for x in range(WIDTH)) for y in range(HEIGHT)]
