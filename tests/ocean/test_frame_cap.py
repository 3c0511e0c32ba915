"""The 1000-frame cap: a scripted game that chains as many executed actions as the rules
allow (a mine every third turn, each triggered later, surfaces chained with moves) must end
on the cap exactly when the 999th action has run, as the reference does."""
from ocean import _state as S
from ocean.game import Game
from tests.ocean.reference_rules import ReferenceGame

OPEN = ["." * 15] * 15
_STEP = {"N": (0, -1), "S": (0, 1), "E": (1, 0), "W": (-1, 0)}
_BACK = {"N": "S", "S": "N", "E": "W", "W": "E"}


def _lawnmower(rows: range) -> list[tuple[int, int]]:
    path = []
    for i, y in enumerate(rows):
        xs = range(15) if i % 2 == 0 else range(14, -1, -1)
        path.extend((x, y) for x in xs)
    return path


class _Miner:
    """Walks a lawnmower path over its half of the map, charging MINE on every move; lays a
    mine behind itself when charged, triggers older mines once both subs are 2+ cells away,
    and chains SURFACE with its move while it has lives to spare."""

    def __init__(self, rows: range):
        self.path = _lawnmower(rows)
        self.at = 0
        self.mines: list[tuple[int, int]] = []
        self.surfaces = 0

    def line(self, game: Game, me: int) -> str:
        base = S.player_base(me)
        pieces = []
        if self.at + 1 >= len(self.path) or (self.surfaces < 3 and self.at % 40 == 39):
            pieces.append("SURFACE")
            self.surfaces += 1
            if self.at + 1 >= len(self.path):
                self.path.reverse()
                self.at = 0
        here, there = self.path[self.at], self.path[self.at + 1]
        direction = next(d for d, (dx, dy) in _STEP.items() if (here[0] + dx, here[1] + dy) == there)
        pieces.append(f"MOVE {direction} MINE")
        self.at += 1
        subs = [(int(game.state[S.player_base(q) + S.CELL]) % 15, int(game.state[S.player_base(q) + S.CELL]) // 15)
                for q in range(2)]
        subs[me] = there
        for mine in list(self.mines):
            if all(max(abs(mine[0] - s[0]), abs(mine[1] - s[1])) >= 2 for s in subs):
                pieces.append(f"TRIGGER {mine[0]} {mine[1]}")
                self.mines.remove(mine)
                break
        if int(game.state[base + S.CHARGE + 3]) >= 2:  # this move brings it to 3
            pieces.append(f"MINE {_BACK[direction]}")
            self.mines.append(here)
        return "|".join(pieces)


def test_the_frame_cap_ends_the_game_after_the_999th_action_as_in_the_reference():
    game = Game(rows=OPEN)
    ref = ReferenceGame(0)
    ref.rows = list(OPEN)  # the reference reads its map from ``rows``
    miners = [_Miner(range(0, 7)), _Miner(range(14, 7, -1))]
    starts = [f"{m.path[0][0]} {m.path[0][1]}" for m in miners]
    game.start(*starts)
    ref.start(*starts)
    while game.begin_turn():
        assert game.turn_input() == ref.turn_input()
        text = miners[game.active].line(game, game.active)
        game.play_text(text)
        ref.play(text)
    assert game.reason == "maxframes", (game.result(), int(game.state[S.ACTIONS]))
    assert int(game.state[S.ACTIONS]) == 999
    assert game.turns < 598 and game.disqualified == [None, None]
    assert ref.over and (ref.reason, ref.turns, ref.scores, ref.winner) == (game.reason, game.turns, game.scores, game.winner)
