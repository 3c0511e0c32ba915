"""A chaotic bot that uses every power as often as the rules let it: SILENCE of 0..4
steps, MINE, TRIGGER of old mines, SONAR, TORPEDO (sometimes at itself), SURFACE, in
random orders, plus a few actions the referee drops. It reads its own state from the
game, as a real program knows it."""
from __future__ import annotations

import random

from ocean import _state as S
from ocean.board import REACH, STEP
from ocean.constants import CELLS, WIDTH

_DIRS = "NSEW"
_POWERS = ("TORPEDO", "SONAR", "SILENCE", "MINE")


def _bit(words, offset, cell) -> bool:
    return bool((int(words[offset + (cell >> 6)]) >> (cell & 63)) & 1)


def heavy_line(game, rng: random.Random) -> str:
    state, board = game.state, game.board
    base = S.player_base(game.active)
    cell = int(state[base + S.CELL])
    charge = [int(state[base + S.CHARGE + k]) for k in range(4)]
    visited = {c for c in range(CELLS) if _bit(state, base + S.VISITED, c)}

    def free(c):
        return [d for d in range(4) if (t := int(board[STEP + c * 4 + d])) >= 0 and t not in visited]

    pieces = []
    if charge[2] >= 6 and rng.random() < 0.7:
        d = rng.randrange(4)
        steps, c = 0, cell
        limit = rng.choice([0, 0, 1, 2, 3, 4])
        while steps < limit:
            t = int(board[STEP + c * 4 + d])
            if t < 0 or t in visited:
                break
            visited.add(t)
            c, steps = t, steps + 1
        pieces.append(f"SILENCE {_DIRS[d]} {steps}")
        cell = c
    options = free(cell)
    if not options or rng.random() < 0.04:
        pieces.append("SURFACE")
        visited = {cell}
        options = free(cell)
    if options:
        d = rng.choice(options)
        pieces.append(f"MOVE {_DIRS[d]} {rng.choice(_POWERS)}")
        cell = int(board[STEP + cell * 4 + d])
    extras = []
    if charge[0] >= 3 and rng.random() < 0.6:
        targets = [t for t in range(CELLS) if _bit(board, REACH + cell * 4, t)]
        t = rng.choice(targets)
        extras.append(f"TORPEDO {t % WIDTH} {t // WIDTH}")
    if charge[3] >= 3:
        extras.append(f"MINE {rng.choice(_DIRS)}")
    mines = [m for m in range(CELLS) if _bit(state, base + S.MINES_ACTIVE, m)]
    if mines and rng.random() < 0.35:
        m = rng.choice(mines)
        extras.append(f"TRIGGER {m % WIDTH} {m // WIDTH}")
    if charge[1] >= 4 and rng.random() < 0.7:
        extras.append(f"SONAR {rng.randint(1, 9)}")
    if rng.random() < 0.03:
        extras.append(rng.choice(["TORPEDO 99 99", "TRIGGER 0 0", "MINE N", "SONAR 3", "MSG hi"]))
    for piece in extras:
        # Before or after the move: the order is part of what the opponent sees.
        pieces.insert(rng.randrange(len(pieces) + 1) if rng.random() < 0.3 else len(pieces), piece)
    seen, line = set(), []
    for piece in pieces:
        word = piece.split(" ")[0]
        if word not in seen:
            seen.add(word)
            line.append(piece)
    return "|".join(line)
