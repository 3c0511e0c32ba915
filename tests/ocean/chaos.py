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


def _visited_cell(game, base, cell) -> bool:
    from ocean import _state as S

    return bool((int(game.state[base + S.VISITED + (cell >> 6)]) >> (cell & 63)) & 1)


def calm_line(rng: random.Random, game) -> str:
    """A line for long games: a Warnsdorff-style move (towards the free cell with the fewest
    onward exits, so walks last), mines, triggers far from both subs, rare sonar and silence;
    torpedoes only at cells next to nobody. Chains often, so games can reach the frame cap."""
    from ocean import _state as S
    from ocean.board import STEP

    p = game.active
    base = S.player_base(p)
    cell = int(game.state[base + S.CELL])
    subs = [int(game.state[S.player_base(q) + S.CELL]) for q in range(2)]
    charges = [int(game.state[base + S.CHARGE + k]) for k in range(4)]
    pieces = []
    best, best_exits = None, 9
    for d in range(4):
        t = int(game.board[STEP + cell * 4 + d])
        if t < 0 or _visited_cell(game, base, t):
            continue
        exits = sum(1 for k in range(4) if (u := int(game.board[STEP + t * 4 + k])) >= 0
                    and u != cell and not _visited_cell(game, base, u))
        if exits < best_exits or (exits == best_exits and rng.random() < 0.5):
            best, best_exits = d, exits
    if best is None:
        pieces.append("SURFACE")
        best = next((d for d in range(4) if int(game.board[STEP + cell * 4 + d]) >= 0), None)
    if best is not None:
        power = rng.choice(["MINE", "MINE", "TORPEDO", "SONAR", "SILENCE"])
        pieces.append(f"MOVE {_DIRS[best]} {power}")
    if charges[3] >= 3 and rng.random() < 0.9:
        pieces.append(f"MINE {rng.choice(_DIRS)}")

    def far(t):
        return all(max(abs(t % 15 - s % 15), abs(t // 15 - s // 15)) >= 2 for s in subs)

    mines = [t for t in range(225) if (int(game.state[base + S.MINES_ACTIVE + (t >> 6)]) >> (t & 63)) & 1]
    far_mines = [t for t in mines if far(t)]
    if far_mines and rng.random() < 0.8:
        t = rng.choice(far_mines)
        pieces.append(f"TRIGGER {t % 15} {t // 15}")
    if charges[0] >= 3 and rng.random() < 0.5:
        t = rng.randrange(225)
        if far(t):
            pieces.append(f"TORPEDO {t % 15} {t // 15}")
    if charges[1] >= 4 and rng.random() < 0.5:
        pieces.append(f"SONAR {rng.randint(1, 9)}")
    if rng.random() < 0.1:
        pieces.append("MSG calm")
    rng.shuffle(pieces) if rng.random() < 0.05 else None
    return "|".join(pieces)
