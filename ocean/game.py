"""``Game``: one game of Ocean of Code in Python terms, over the compiled rules.

The wrapper validates input, speaks in names and text; every rule runs in ``ocean._rules``.
Used by the referee for external programs, by tests and by replays.
"""
from __future__ import annotations

import numpy as np

from ocean import _rules
from ocean import _state as S
from ocean.board import WATER, build_board
from ocean.constants import (
    ACTION_FIELDS, CELLS, END_NONE, END_REASONS, ERR_NONE, ERR_START_CELL, ERR_TIMEOUT, ERROR_TEXT,
    MAX_LINE_ACTIONS, POWER_NAMES, WIDTH,
)
from ocean.maps import generate_map, map_rows, parse_rows
from ocean.protocol import init_lines, parse_line, parse_start, turn_input

__all__ = ["Game", "error_text", "state_snapshot"]

_NO_TRACE = np.zeros((0, S.STATE_SIZE + 4), dtype=np.int64)


def error_text(code: int) -> str | None:
    """The referee's wording for a disqualification code (None for 0)."""
    return None if code == ERR_NONE else ERROR_TEXT.get(int(code), f"error {code}")


def _bitboard_cells(state: np.ndarray, offset: int) -> list[list[int]]:
    cells = []
    for c in range(CELLS):
        if (int(state[offset + (c >> 6)]) >> (c & 63)) & 1:
            cells.append([c % WIDTH, c // WIDTH])
    return cells


def state_snapshot(state: np.ndarray) -> dict:
    """A JSON-ready view of a state array: per player cell, life, charges, visited cells,
    mines; plus the turn counter and actions executed."""
    players = []
    for p in range(2):
        base = S.player_base(p)
        cell = int(state[base + S.CELL])
        players.append({
            "x": cell % WIDTH if cell >= 0 else -1,
            "y": cell // WIDTH if cell >= 0 else -1,
            "life": int(state[base + S.LIFE]),
            "charges": {POWER_NAMES[k]: int(state[base + S.CHARGE + k]) for k in range(4)},
            "visited": _bitboard_cells(state, base + S.VISITED),
            "mines": _bitboard_cells(state, base + S.MINES_ACTIVE) + _bitboard_cells(state, base + S.MINES_FRESH),
        })
    return {"turn": int(state[S.TURN]), "actions": int(state[S.ACTIONS]), "players": players}


class Game:
    """A game on the referee's map for ``seed`` (or on hand-drawn ``rows``).

    Typical use: ``start(...)``, then while ``begin_turn()``: show ``turn_input()`` to
    ``active`` and feed its answer to ``play_text`` (or ``play_actions``).
    """

    def __init__(self, seed: int | None = None, *, rows: list[str] | None = None):
        if (seed is None) == (rows is None):
            raise ValueError("give exactly one of seed and rows")
        self.seed = seed
        self.island = generate_map(seed) if rows is None else parse_rows(rows)
        self.rows = map_rows(self.island)
        self.board = build_board(self.island)
        self.state = _rules.new_state()
        self.started = False

    # -- the start -------------------------------------------------------------------
    def init_lines(self, player: int) -> list[str]:
        """Lines sent to ``player`` before its start answer."""
        return init_lines(self.rows, player)

    def start(self, answer0: str, answer1: str) -> None:
        """Start from the two programs' raw start answers (``X Y``)."""
        cell0, err0 = parse_start(answer0, self.board)
        cell1, err1 = parse_start(answer1, self.board)
        self._start(cell0, err0, cell1, err1)

    def start_cells(self, cell0: int, cell1: int) -> None:
        """Start from two cells (y*15 + x) chosen by in-process bots."""
        errors = []
        for cell in (cell0, cell1):
            ok = 0 <= cell < CELLS and self.board[WATER + cell] == 1
            errors.append(ERR_NONE if ok else ERR_START_CELL)
        self._start(cell0, errors[0], cell1, errors[1])

    def start_with_errors(self, cell0: int, err0: int, cell1: int, err1: int) -> None:
        """Start where a player may already be disqualified (e.g. timed out on its answer)."""
        self._start(cell0, err0, cell1, err1)

    def _start(self, cell0, err0, cell1, err1):
        if self.started:
            raise RuntimeError("the game has already started")
        _rules.start_game(self.state, self.board, cell0, err0, cell1, err1)
        self.started = True

    # -- turns -------------------------------------------------------------------------
    def begin_turn(self) -> bool:
        """Move on to the next player's turn; False once the game is over."""
        if not self.started:
            raise RuntimeError("start the game first")
        return bool(_rules.begin_turn(self.state))

    def turn_input(self) -> list[str]:
        """The three input lines of the active player."""
        return turn_input(self.state, self.active)

    def play_text(self, line: str, trace: np.ndarray | None = None) -> int:
        """Play the active player's output line; returns the number of actions executed."""
        return self.play_actions(parse_line(line), trace)

    def play_actions(self, actions: np.ndarray, trace: np.ndarray | None = None) -> int:
        """Play encoded action rows (int64[n, 4]) for the active player."""
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(-1, ACTION_FIELDS)
        if len(actions) > MAX_LINE_ACTIONS:
            raise ValueError(f"at most {MAX_LINE_ACTIONS} actions per line, got {len(actions)}")
        return int(_rules.play_line(self.state, self.board, actions, len(actions),
                                    _NO_TRACE if trace is None else trace))

    def timeout(self, player: int) -> None:
        """Disqualify ``player`` for not answering in time."""
        _rules.disqualify(self.state, player, ERR_TIMEOUT)

    # -- views -------------------------------------------------------------------------
    @property
    def active(self) -> int:
        return int(self.state[S.ACTIVE])

    @property
    def over(self) -> bool:
        return int(self.state[S.END]) != END_NONE

    @property
    def reason(self) -> str:
        return END_REASONS[int(self.state[S.END])]

    @property
    def winner(self) -> int:
        return int(self.state[S.WINNER])

    @property
    def turns(self) -> int:
        return int(self.state[S.TURN])

    @property
    def lives(self) -> list[int]:
        return [int(self.state[S.player_base(p) + S.LIFE]) for p in range(2)]

    @property
    def scores(self) -> list[int]:
        """Final scores as the referee reports them: lives, -1 for a disqualified player.
        One quirk kept: a player disqualified in the same frame as a hit leaves the
        opponent's score at its life before that hit (the referee skips that update)."""
        scores = self.lives
        stale = int(self.state[S.STALE_SCORE])
        if stale:
            loser = 0 if scores[0] == -1 else 1
            scores[1 - loser] = stale - 1
        return scores

    @property
    def disqualified(self) -> list[str | None]:
        return [error_text(int(self.state[S.player_base(p) + S.ERROR])) for p in range(2)]

    def result(self) -> dict:
        """The referee's verdict as a JSON-ready dict."""
        return {"winner": self.winner, "scores": self.scores, "reason": self.reason,
                "turns": self.turns, "disqualified": self.disqualified}

