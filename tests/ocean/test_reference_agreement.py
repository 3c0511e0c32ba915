"""The engine against an independent, string-level implementation of the referee
(tests/ocean/reference_rules.py): same maps, same input lines, same verdicts."""
import json
import random
from pathlib import Path

import numpy as np
import pytest

from ocean._jrandom import java_next_int, java_seed
from ocean.game import Game
from ocean.maps import generate_map, map_rows
from tests.ocean.chaos import calm_line, chaos_line, chaos_start, free_directions
from tests.ocean.reference_rules import ReferenceGame, reference_map

DATA = Path(__file__).parent.parent / "data"


def test_java_random_matches_the_jdk():
    cases = json.loads((DATA / "java_random_vectors.json").read_text())["cases"]
    assert len(cases) >= 20
    for case in cases:
        state = java_seed(np.int64(case["seed"]))
        values = []
        for _ in case["values"]:
            state, value = java_next_int(state, case["bound"])
            values.append(int(value))
        assert values == case["values"], case["seed"]


def test_maps_match_the_reference_for_many_seeds():
    rng = random.Random(7)
    seeds = list(range(-300, 700)) + [rng.getrandbits(64) - 2**63 for _ in range(500)] + [2**63 - 1, -(2**63)]
    for seed in seeds:
        assert map_rows(generate_map(seed)) == reference_map(seed), seed


def _play_both(seed: int, rng: random.Random, malformed: float, invalid_start: float, calm: bool = False):
    game = Game(seed)
    ref = ReferenceGame(seed)
    assert game.init_lines(0) == ref.init_lines(0) and game.init_lines(1) == ref.init_lines(1)
    a0, a1 = chaos_start(rng, game.rows, invalid_start), chaos_start(rng, game.rows, invalid_start)
    game.start(a0, a1)
    ref.start(a0, a1)
    while game.begin_turn():
        assert not ref.over
        lines = game.turn_input()
        assert lines == ref.turn_input()
        x, y = (int(v) for v in lines[0].split()[:2])
        line = calm_line(rng, game) if calm else chaos_line(rng, x, y, malformed, free_directions(game))
        game.play_text(line)
        ref.play(line)
        assert game.lives == ref.lives, line
    assert ref.over
    return game, ref


@pytest.mark.parametrize("malformed", [0.0, 0.01, 0.05])
def test_chaotic_games_agree_with_the_reference(malformed):
    rng = random.Random(int(malformed * 1000) + 11)
    reasons = set()
    for seed in range(120):
        game, ref = _play_both(seed, rng, malformed, invalid_start=0.05)
        assert (game.winner, game.scores, game.reason, game.turns) == (ref.winner, ref.referee_scores, ref.reason, ref.turns), seed
        assert [d is None for d in game.disqualified] == [d is None for d in ref.disqualified]
        reasons.add(game.reason)
    assert "life" in reasons


def test_long_games_agree_with_the_reference_up_to_the_turn_and_frame_limits():
    rng = random.Random(5)
    reasons = {}
    for seed in range(40):
        game, ref = _play_both(seed, rng, 0.0, 0.0, calm=True)
        assert (game.winner, game.scores, game.reason, game.turns) == (ref.winner, ref.referee_scores, ref.reason, ref.turns), seed
        reasons[game.reason] = reasons.get(game.reason, 0) + 1
    assert reasons.get("maxturns", 0) + reasons.get("maxframes", 0) > 0, reasons
