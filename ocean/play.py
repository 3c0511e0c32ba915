"""Games between in-process bots: whole games in compiled code, and the same game
replayed through the text protocol for replays (the two doors must agree)."""
from __future__ import annotations

import numpy as np

from ocean import _match
from ocean import _rules
from ocean.board import build_board
from ocean.bots import resolve_bot
from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS, WIDTH
from ocean.game import Game
from ocean.maps import generate_map, validate_seed
from ocean.protocol import format_line
from ocean.replay import ReplayRecorder

__all__ = ["play", "play_with_replay"]


def play(seed: int, bots: tuple[str, str], game_seed: int | None = None) -> dict:
    """Verdict of one game between two in-process bots on the map of ``seed``."""
    return play_with_replay(seed, bots, game_seed)[0]


def play_with_replay(seed: int, bots: tuple[str, str], game_seed: int | None = None) -> tuple[dict, dict]:
    """(verdict, replay data) of one in-process game. The game runs in compiled code, then
    its lines are replayed as text through the protocol; a mismatch is an engine bug."""
    seed = validate_seed(seed)
    game_seed = seed if game_seed is None else validate_seed(game_seed)
    specs = [resolve_bot(b) for b in bots]
    kinds = np.array([s.kind for s in specs], dtype=np.int64)
    coefs = np.stack([s.vector() for s in specs])
    board = build_board(generate_map(seed))
    state = _rules.new_state()
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    turns = _match.play_game(board, kinds, coefs, np.int64(game_seed), state, log, counts)

    game = Game(seed)
    recorder = ReplayRecorder(game, list(bots))
    starts = [f"{int(c) % WIDTH} {int(c) // WIDTH}" for c in counts[MAX_PLAYER_TURNS:]]
    recorder.start(starts[0], starts[1])
    t = 0
    while game.begin_turn():
        recorder.turn(game.turn_input(), format_line(log[t], int(counts[t])))
        t += 1
    data = recorder.finish()
    data["game_seed"] = game_seed
    if t != turns or not np.array_equal(game.state, state):
        raise RuntimeError(f"engine bug: the text door and the compiled game disagree (map seed {seed}, game seed {game_seed})")
    return game.result(), data
