"""Random output lines for tests: mostly sensible, often chained, sometimes malformed in
every way the referee distinguishes (dropped, disqualifying, garbage)."""
from __future__ import annotations

import random

_DIRS = "NSEW"
_POWERS = ["TORPEDO", "SONAR", "SILENCE", "MINE"]


def _piece(rng: random.Random, x: int, y: int, malformed: float, free: str) -> str:
    r = rng.random()
    legal = free and rng.random() < 0.97
    if rng.random() < malformed:
        return rng.choice([
            "FOO", "move N", "MOVE", "MOVE X", "MOVE N TORPEDO EXTRA", "MOVE N LASER", "MOVE  N",
            "TORPEDO", "TORPEDO 1", "TORPEDO a b", "TORPEDO 1 2 3", "TORPEDO 99999999999 1",
            "SONAR", "SONAR 0", "SONAR 10", "SONAR x", "SONAR 1 2", "SILENCE N", "SILENCE N 5",
            "SILENCE N -1", "SILENCE Q 1", "SILENCE N 1 2", "MINE", "MINE N S", "MINE Z",
            "TRIGGER", "TRIGGER 1", "TRIGGER a 1", "TRIGGER 1 2 3", "SURFACE extra words",
            "MSG hello", "MSG", "MSGX", "TORPEDO +3 -0", "TORPEDO \u0663 4", "\tMOVE N\t",
            "TRIGGER 2147483648 0", "SILENCE E +2", "MOVE N \tSONAR",
        ])
    if r < 0.45:
        d = rng.choice(free if legal else _DIRS)
        return f"MOVE {d} {rng.choice(_POWERS)}" if rng.random() < 0.8 else f"MOVE {d}"
    if r < 0.55:
        return f"TORPEDO {x + rng.randint(-4, 4)} {y + rng.randint(-4, 4)}"
    if r < 0.62:
        if legal:
            return f"SILENCE {rng.choice(free)} {rng.choice([0, 1, 1, 1, 2])}"
        return f"SILENCE {rng.choice(_DIRS)} {rng.randint(0, 4)}"
    if r < 0.70:
        return f"MINE {rng.choice(_DIRS)}"
    if r < 0.78:
        return f"TRIGGER {x + rng.randint(-3, 3)} {y + rng.randint(-3, 3)}"
    if r < 0.84:
        return f"SONAR {rng.randint(1, 9)}"
    if r < 0.90:
        return "SURFACE"
    return f"MSG {rng.randint(0, 99)}"


def chaos_line(rng: random.Random, x: int, y: int, malformed: float = 0.02, free: str = "") -> str:
    """A random line for a submarine at (x, y); ``malformed`` is the share of bad pieces;
    ``free`` lists the directions it can move to now (moves mostly use them)."""
    pieces, words = [], set()
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
        piece = _piece(rng, x, y, malformed, free)
        word = piece.strip().split(" ")[0]
        if word not in words or word == "MSG":
            words.add(word)
            pieces.append(piece)
    if rng.random() < 0.01:
        pieces.append(pieces[0])  # a repeated word
    sep = rng.choice(["|", "|", "|", " | ", "||"])
    return sep.join(pieces)


def chaos_start(rng: random.Random, rows: list[str], invalid: float = 0.0) -> str:
    """A start answer: a random water cell, or (rarely) something invalid."""
    if rng.random() < invalid:
        return rng.choice(["", "7", "7 7 7", " 7 7", "a b", "99 99", "-1 3", "07 007"])
    while True:
        x, y = rng.randrange(15), rng.randrange(15)
        if rows[y][x] == ".":
            return f"{x} {y}"


def free_directions(game) -> str:
    """Letters of the directions the active submarine of ``game`` can move to."""
    from ocean import _state as S
    from ocean.board import STEP

    base = S.player_base(game.active)
    cell = int(game.state[base + S.CELL])
    free = ""
    for d, letter in enumerate(_DIRS):
        t = int(game.board[STEP + cell * 4 + d])
        if t >= 0 and not (int(game.state[base + S.VISITED + (t >> 6)]) >> (t & 63)) & 1:
            free += letter
    return free
