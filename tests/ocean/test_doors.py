"""The two doors into the rules give identical games: whole games played in compiled code
with encoded actions, replayed line by line as text through the protocol."""
import numpy as np
import pytest

from ocean import _match, _rules
from ocean.board import build_board
from ocean.bots.coefficients import vector
from ocean.constants import ACTION_FIELDS, MAX_LINE_ACTIONS, MAX_PLAYER_TURNS, WIDTH
from ocean.game import Game
from ocean.maps import generate_map
from ocean.play import play_with_replay
from ocean.protocol import format_line


def _text_replay_matches(seed: int, kinds: tuple[int, int], game_seed: int) -> str:
    board = build_board(generate_map(seed))
    state = _rules.new_state()
    log = np.zeros((MAX_PLAYER_TURNS, MAX_LINE_ACTIONS, ACTION_FIELDS), dtype=np.int64)
    counts = np.zeros(MAX_PLAYER_TURNS + 2, dtype=np.int64)
    coefs = np.stack([vector(), vector()])
    turns = _match.play_game(board, np.array(kinds, dtype=np.int64), coefs, np.int64(game_seed), state, log, counts)
    game = Game(seed)
    game.start(*(f"{int(c) % WIDTH} {int(c) // WIDTH}" for c in counts[MAX_PLAYER_TURNS:]))
    t = 0
    while game.begin_turn():
        game.play_text(format_line(log[t], int(counts[t])))
        t += 1
    assert t == turns
    assert np.array_equal(game.state, state), (seed, kinds, game_seed)
    return game.reason


@pytest.mark.parametrize("kinds", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_compiled_games_equal_their_text_replays(kinds):
    reasons = set()
    for i in range(500):
        reasons.add(_text_replay_matches(seed=i * 7919 - 1000, kinds=kinds, game_seed=i))
    assert "life" in reasons


def test_play_is_deterministic_and_replays_through_the_protocol():
    first = play_with_replay(42, ("random", "chaser"), game_seed=3)
    again = play_with_replay(42, ("random", "chaser"), game_seed=3)
    assert first == again
    verdict, data = first
    assert data["result"] == verdict
    assert len(data["turns"]) == verdict["turns"]
    assert data["turns"][0]["input"][2] == "NA"  # nothing to summarise before player 0's first turn
    assert all(turn["actions"] for turn in data["turns"])  # every turn runs at least one action


@pytest.mark.parametrize("bots", [("tunable", "chaser"), ("random", "tunable-v1")])
def test_the_program_plays_the_lines_of_the_compiled_game(bots):
    """``ocean bot`` (the bot kernels called one turn at a time on a shadow of the state
    built from the text input) answers exactly what the same bot played in compiled code."""
    import io

    from ocean.bots import resolve_bot
    from ocean.maps import map_rows
    from ocean.program import run_program

    for seed in (5, 77):
        _, data = play_with_replay(seed, bots)
        rows = map_rows(generate_map(seed))
        for p in range(2):
            lines = [f"15 15 {p}"] + rows
            for turn in data["turns"]:
                if turn["player"] == p:
                    lines += turn["input"]
            out = io.StringIO()
            run_program(resolve_bot(bots[p]), seed, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out)
            answers = out.getvalue().splitlines()
            assert answers[0] == data["start_output"][p]
            assert answers[1:] == [turn["output"] for turn in data["turns"] if turn["player"] == p], (bots, seed, p)
