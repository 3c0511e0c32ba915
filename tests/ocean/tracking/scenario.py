"""A game driven line by line with both players' trackers updated as a bot would."""
from __future__ import annotations

import numpy as np

from ocean import _state as S
from ocean.constants import CELLS, WIDTH
from ocean.game import Game
from ocean.tracking._driver import observe_from_state, truth_of
from ocean.tracking._kernel import reset_tracker
from ocean.tracking._layout import DEFAULT_CAP, H_COLLAPSES, H_COUNT, new_tracker
from ocean.tracking._query import cell_probabilities, mine_probabilities

OPEN_SEA = ["." * 15] * 15


class Scenario:
    """Play lines for alternating players; before each line the active player's trackers
    of the other are updated and checked against the truth."""

    def __init__(self, start0: tuple[int, int], start1: tuple[int, int], rows=OPEN_SEA, cap=DEFAULT_CAP):
        self.game = Game(rows=list(rows))
        self.game.start(f"{start0[0]} {start0[1]}", f"{start1[0]} {start1[1]}")
        self.trackers = [[new_tracker(cap, False), new_tracker(cap, True)] for _ in range(2)]
        for pair in self.trackers:
            for trk in pair:
                reset_tracker(trk, self.game.board)
        self.lost = 0

    def play(self, line) -> bool:
        """Play ``line`` (or ``line(game)`` if it is a function of the game) for the next
        player; False if the game was already over."""
        if not self.game.begin_turn():
            return False
        p = self.game.active
        observe_from_state(*self.trackers[p], self.game.board, self.game.state, p)
        if truth_of(self.game.state, self.game.board, self.trackers[p][0], 1 - p) < 0:
            self.lost += 1
        self.game.play_text(line(self.game) if callable(line) else line)
        return True

    def turn(self, line) -> None:
        """``play`` where the game must still be running."""
        assert self.play(line), "the game is over"

    def look(self, observer: int, kind: int = 0) -> set[tuple[int, int]]:
        """Cells observer's tracker (0 safe, 1 assumption) holds now, after updating it with
        whatever happened since its last turn (does not play a turn)."""
        probs = np.zeros(CELLS)
        cell_probabilities(self.trackers[observer][kind], probs)
        return {(c % WIDTH, c // WIDTH) for c in range(CELLS) if probs[c] > 0}

    def states(self, observer: int, kind: int = 0) -> int:
        return int(self.trackers[observer][kind][H_COUNT])

    def collapses(self, observer: int) -> int:
        return int(self.trackers[observer][0][H_COLLAPSES])

    def mines(self, observer: int) -> np.ndarray:
        out = np.zeros(CELLS)
        mine_probabilities(self.trackers[observer][0], self.game.board, out, np.zeros(CELLS))
        return out

    def truth_inside(self, observer: int, kind: int = 0) -> bool:
        return truth_of(self.game.state, self.game.board, self.trackers[observer][kind], 1 - observer) >= 0

    def life(self, player: int) -> int:
        return int(self.game.state[S.player_base(player) + S.LIFE])
