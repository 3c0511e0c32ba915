"""The text a bot program reads and prints, with no Numba: the map rows, the opponent's order
summary, our line. ``ocean bot`` answers its first turn with these and a start cell before any
kernel loads; ``ocean.protocol`` and ``ocean.maps`` hold them with the rest of the protocol."""
import numpy as np

from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER, DIRECTION_LETTERS,
    ERR_NONE, HEIGHT, NO_POWER, POWER_NAMES, WIDTH,
)

__all__ = ["parse_rows", "format_line", "parse_summary"]

_WORD_KIND = {"MOVE": ACT_MOVE, "SURFACE": ACT_SURFACE, "TORPEDO": ACT_TORPEDO, "SONAR": ACT_SONAR,
              "SILENCE": ACT_SILENCE, "MINE": ACT_MINE, "TRIGGER": ACT_TRIGGER}


def _direction(word: str) -> int:
    return DIRECTION_LETTERS.index(word) if len(word) == 1 and word in DIRECTION_LETTERS else -1


def parse_rows(rows: list[str]) -> np.ndarray:
    """Island mask from 15 rows of 15 'x'/'.' characters (for hand-drawn boards and replays)."""
    if len(rows) != HEIGHT or any(len(r) != WIDTH or set(r) - set("x.") for r in rows):
        raise ValueError("a map is 15 rows of 15 characters, each 'x' (island) or '.' (water)")
    return np.array([1 if ch == "x" else 0 for row in rows for ch in row], dtype=np.uint8)


def format_line(actions: np.ndarray, n: int | None = None) -> str:
    """The text a program would print for well-formed encoded rows (inverse of parse_line)."""
    parts = []
    for kind, a, b, error in actions[: len(actions) if n is None else n]:
        if error != ERR_NONE:
            raise ValueError(f"cannot print a malformed action (error code {error})")
        if kind == ACT_MOVE:
            parts.append(f"MOVE {DIRECTION_LETTERS[a]}" + (f" {POWER_NAMES[b]}" if b != NO_POWER else ""))
        elif kind == ACT_SURFACE:
            parts.append("SURFACE")
        elif kind == ACT_TORPEDO:
            parts.append(f"TORPEDO {a} {b}")
        elif kind == ACT_SONAR:
            parts.append(f"SONAR {a}")
        elif kind == ACT_SILENCE:
            parts.append(f"SILENCE {DIRECTION_LETTERS[a]} {b}")
        elif kind == ACT_MINE:
            parts.append(f"MINE {DIRECTION_LETTERS[a]}")
        elif kind == ACT_TRIGGER:
            parts.append(f"TRIGGER {a} {b}")
        else:
            raise ValueError(f"unknown action kind {kind}")
    return "|".join(parts)


def parse_summary(text: str) -> np.ndarray:
    """The opponent's orders as a program receives them (``summary_text``) back into
    (kind, a, b) rows; ValueError on anything the referee would not have written."""
    text = text.strip()
    rows = []
    if text != "NA":
        for piece in text.split("|"):
            words = piece.split(" ")
            kind = _WORD_KIND.get(words[0], -1)
            arity = {ACT_MOVE: 1, ACT_SURFACE: 1, ACT_TORPEDO: 2, ACT_TRIGGER: 2, ACT_SONAR: 1,
                     ACT_SILENCE: 0, ACT_MINE: 0}.get(kind, -1)
            if arity < 0 or len(words) != arity + 1:
                raise ValueError(f"not an order summary: {piece!r}")
            if kind == ACT_MOVE:
                d = _direction(words[1])
                if d < 0:
                    raise ValueError(f"not an order summary: {piece!r}")
                rows.append((kind, d, 0))
            else:
                try:
                    args = [int(w) for w in words[1:]]
                except ValueError:
                    raise ValueError(f"not an order summary: {piece!r}") from None
                rows.append((kind, *(args + [0, 0])[:2]))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)
