"""The CodinGame text protocol, both ways: a program's output line into encoded action
rows exactly as the referee reads it, and the referee's input lines out of the state.

Only this module (and the referee around it) handles text; the rules never see a string.
"""
import re
import unicodedata

import numpy as np

from ocean import _state as S
from ocean._text import _WORD_KIND, _direction, format_line, parse_summary
from ocean.board import WATER
from ocean.constants import (
    ACT_MINE, ACT_MOVE, ACT_SILENCE, ACT_SONAR, ACT_SURFACE, ACT_TORPEDO, ACT_TRIGGER,
    ACT_UNKNOWN, ACTION_FIELDS, DIRECTION_LETTERS, ERR_DUPLICATE, ERR_MINE_ARGS,
    ERR_MINE_DIRECTION, ERR_MOVE_ARGS, ERR_MOVE_DIRECTION, ERR_MOVE_POWER, ERR_NONE,
    ERR_SILENCE_ARGS, ERR_SILENCE_DIRECTION, ERR_SILENCE_DISTANCE, ERR_SONAR_ARGS, ERR_START,
    ERR_START_CELL, ERR_TORPEDO_ARGS, ERR_TRIGGER_ARGS, ERR_UNKNOWN, HEIGHT,
    NO_POWER, POWER_COST, POWER_NAMES, SONAR_NO, SONAR_YES, WIDTH,
)

__all__ = ["parse_line", "parse_start", "format_line", "init_lines", "turn_input", "summary_text",
           "parse_summary", "java_trim", "java_parse_int"]

_JAVA_BLANKS = "".join(chr(i) for i in range(0x21))  # String.trim strips every char <= U+0020
_START_ANSWER = re.compile(r"[0-9]{1,2} [0-9]{1,2}")
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


def java_trim(text: str) -> str:
    """``String.trim()``: strip every character <= U+0020 at both ends."""
    return text.strip(_JAVA_BLANKS)


def java_parse_int(text: str) -> int | None:
    """``Integer.parseInt(text)``, or None where Java throws NumberFormatException."""
    if not text:
        return None
    sign = 1
    digits = text
    if text[0] in "+-":
        sign = -1 if text[0] == "-" else 1
        digits = text[1:]
        if not digits:
            return None
    value = 0
    for ch in digits:
        # Java accepts any Unicode decimal digit of the BMP (Character.digit); a
        # supplementary character is two UTF-16 units there, neither a digit.
        digit = unicodedata.decimal(ch, None) if ord(ch) < 0x10000 else None
        if digit is None:
            return None
        value = value * 10 + digit
    value *= sign
    return value if _INT_MIN <= value <= _INT_MAX else None


def _encode_piece(kind: int, words: list[str]) -> tuple[int, int, int, int]:
    """(kind, a, b, error) for one trimmed action; errors disqualify only when reached."""
    n = len(words)
    if kind == ACT_MOVE:
        if n > 3:
            return kind, 0, NO_POWER, ERR_MOVE_ARGS
        d = _direction(words[1]) if n >= 2 else -1
        if d < 0:
            return kind, 0, NO_POWER, ERR_MOVE_DIRECTION
        power = NO_POWER
        if n == 3:
            name = java_trim(words[2])
            if name not in POWER_NAMES:
                return kind, d, NO_POWER, ERR_MOVE_POWER
            power = POWER_NAMES.index(name)
        return kind, d, power, ERR_NONE
    if kind == ACT_SURFACE:
        return kind, 0, 0, ERR_NONE
    if kind in (ACT_TORPEDO, ACT_TRIGGER):
        error = ERR_TORPEDO_ARGS if kind == ACT_TORPEDO else ERR_TRIGGER_ARGS
        if n != 3:  # TORPEDO checks the count, TRIGGER fails on > 3 or on a missing word
            return kind, 0, 0, error
        x, y = java_parse_int(words[1]), java_parse_int(words[2])
        if x is None or y is None:
            return kind, 0, 0, error
        return kind, x, y, ERR_NONE
    if kind == ACT_SONAR:
        sector = java_parse_int(words[1]) if n == 2 else None
        if sector is None or not 1 <= sector <= 9:
            return kind, 0, 0, ERR_SONAR_ARGS
        return kind, sector, 0, ERR_NONE
    if kind == ACT_SILENCE:
        if n != 3:
            return kind, 0, 0, ERR_SILENCE_ARGS
        d = _direction(words[1])
        if d < 0:
            return kind, 0, 0, ERR_SILENCE_DIRECTION
        steps = java_parse_int(words[2])
        if steps is None or not 0 <= steps <= 4:
            return kind, d, 0, ERR_SILENCE_DISTANCE
        return kind, d, steps, ERR_NONE
    if kind == ACT_MINE:
        if n > 2:
            return kind, 0, 0, ERR_MINE_ARGS
        d = _direction(words[1]) if n == 2 else -1
        if d < 0:
            return kind, 0, 0, ERR_MINE_DIRECTION
        return kind, d, 0, ERR_NONE
    raise AssertionError(kind)


def parse_line(line: str) -> np.ndarray:
    """Encoded action rows (int64[n, 4]: kind, a, b, error) of one output line, read as the
    referee reads it. MSG pieces are removed (they never change the game); a repeated
    action word becomes a single disqualifying row, since the referee rejects the line
    before running any of it."""
    rows = []
    seen = set()
    unknown_at = None  # rows after the first unknown word can never run: reaching it disqualifies
    for piece in line.split("|"):
        piece = java_trim(piece)
        if not piece:
            continue
        word = piece.split(" ", 1)[0]
        if word in seen and word != "MSG":
            return np.array([[ACT_UNKNOWN, 0, 0, ERR_DUPLICATE]], dtype=np.int64)
        seen.add(word)
        if word == "MSG":
            continue
        kind = _WORD_KIND.get(word)
        if kind is None:
            rows.append((ACT_UNKNOWN, 0, 0, ERR_UNKNOWN))
            unknown_at = len(rows) if unknown_at is None else unknown_at
        else:
            rows.append(_encode_piece(kind, piece.split(" ")))
    rows = rows[:unknown_at]
    out = np.zeros((max(len(rows), 1), ACTION_FIELDS), dtype=np.int64)
    if rows:
        out[: len(rows)] = rows
    return out[: len(rows)]


def parse_start(answer: str, board: np.ndarray) -> tuple[int, int]:
    """(cell, error) of a start answer ``X Y``: error is non-zero if it disqualifies."""
    if not _START_ANSWER.fullmatch(answer):
        return -1, ERR_START
    x, y = (int(v) for v in answer.split(" "))
    if x >= WIDTH or y >= HEIGHT or board[WATER + y * WIDTH + x] == 0:
        return -1, ERR_START_CELL
    return y * WIDTH + x, ERR_NONE


def init_lines(rows: list[str], player: int) -> list[str]:
    """The lines a program receives before its start answer."""
    return [f"{WIDTH} {HEIGHT} {player}"] + list(rows)


def summary_text(state: np.ndarray, player: int) -> str:
    """What the other player is shown of ``player``'s last turn, or ``NA``."""
    base = S.player_base(player)
    parts = []
    for i in range(int(state[base + S.SUMMARY_COUNT])):
        kind, a, b = (int(v) for v in state[base + S.SUMMARY + 3 * i: base + S.SUMMARY + 3 * i + 3])
        if kind == ACT_MOVE:
            parts.append(f"MOVE {DIRECTION_LETTERS[a]}")
        elif kind == ACT_SURFACE:
            parts.append(f"SURFACE {a}")
        elif kind in (ACT_TORPEDO, ACT_TRIGGER):
            parts.append(f"{'TORPEDO' if kind == ACT_TORPEDO else 'TRIGGER'} {a} {b}")
        elif kind == ACT_SONAR:
            parts.append(f"SONAR {a}")
        elif kind == ACT_SILENCE:
            parts.append("SILENCE")
        elif kind == ACT_MINE:
            parts.append("MINE")
    return "|".join(parts) if parts else "NA"


def turn_input(state: np.ndarray, player: int) -> list[str]:
    """The three lines ``player`` receives at the start of its turn."""
    me = S.player_base(player)
    opponent = S.player_base(1 - player)
    cell = int(state[me + S.CELL])
    cooldowns = " ".join(str(POWER_COST[k] - int(state[me + S.CHARGE + k])) for k in range(4))
    first = (f"{cell % WIDTH} {cell // WIDTH} {max(int(state[me + S.LIFE]), 0)} "
             f"{max(int(state[opponent + S.LIFE]), 0)} {cooldowns}")
    sonar = int(state[me + S.SONAR_RESULT])
    second = "Y" if sonar == SONAR_YES else "N" if sonar == SONAR_NO else "NA"
    return [first, second, summary_text(state, 1 - player)]

