"""Tests of the pure-Python reference referee (tests/ocean/reference_rules.py).

Expected numbers below were either computed by hand from the rules or printed
by the real JDK 17 (java.util.Random, Integer.parseInt, String.trim/split and a
transcription of the referee's GridModel) with a throwaway Java program.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.ocean.reference_rules import (
    DIRECTIONS,
    ReferenceGame,
    java_parse_int,
    java_random_ints,
    java_split_space,
    java_trim,
    reference_map,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "java_random_vectors.json"


# ---------------------------------------------------------------------------
# java.util.Random
# ---------------------------------------------------------------------------

def test_java_random_known_values():
    # Printed by the JDK: new Random(seed) then nextInt(bound) fifty times.
    assert java_random_ints(0, [26] * 10) == [18, 18, 23, 21, 13, 9, 7, 15, 3, 16]
    assert java_random_ints(0, [15] * 10) == [0, 13, 4, 2, 5, 8, 11, 6, 9, 14]
    assert java_random_ints(0, [16] * 10) == [11, 13, 3, 9, 10, 4, 8, 1, 9, 12]
    assert java_random_ints(0, [1000000007] * 4) == [569741353, 785505941, 516548029, 302116440]


def test_java_random_vectors_file():
    cases = json.loads(DATA.read_text())["cases"]
    assert len(cases) == 80
    seeds = {c["seed"] for c in cases}
    assert {0, 1, -1, 2**63 - 1, -(2**63)} <= seeds and len(seeds) == 20
    for case in cases:
        assert java_random_ints(case["seed"], [case["bound"]] * 50) == case["values"], case["seed"]


def test_java_random_mixed_bounds_share_one_stream():
    seq = java_random_ints(12345, [26, 15, 15, 26, 15, 15])
    single = [java_random_ints(12345, [26, 15, 15, 26, 15, 15][: i + 1])[-1] for i in range(6)]
    assert seq == single


# ---------------------------------------------------------------------------
# Java string helpers (expectations printed by the JDK)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("0", 0), ("5", 5), ("+5", 5), ("-5", -5), ("007", 7), ("-0", 0), ("+", None), ("-", None),
        ("", None), (" 5", None), ("5 ", None), ("1_0", None), ("2147483647", 2147483647),
        ("2147483648", None), ("-2147483648", -2147483648), ("-2147483649", None),
        ("99999999999", None), ("\u0663", 3), ("\uff11\uff14", 14), ("-\u0967\u0966", -10),
        ("\u00b2", None), ("0x1", None), ("1e3", None), ("3.0", None), ("++3", None), ("+-3", None),
        ("\U0001D7CE", None), ("\U000104A3", None), ("\u0663\u200b", None), ("\u0e53", 3),
        ("1\u00a0", None),
    ],
)
def test_java_parse_int(text, expected):
    if expected is None:
        with pytest.raises(ValueError):
            java_parse_int(text)
    else:
        assert java_parse_int(text) == expected


@pytest.mark.parametrize(
    "raw, words",
    [
        ("MOVE N", ["MOVE", "N"]),
        ("  MOVE N TORPEDO \t", ["MOVE", "N", "TORPEDO"]),
        ("MOVE  N", ["MOVE", "", "N"]),
        ("MOVE N \tTORPEDO", ["MOVE", "N", "\tTORPEDO"]),
        ("\x00\x1fTORPEDO 3 5 \x7f", ["TORPEDO", "3", "5", "\x7f"]),
        ("SONAR\t3", ["SONAR\t3"]),
        ("MSG  hi  there ", ["MSG", "", "hi", "", "there"]),
        ("\u00a0MOVE N\u00a0", ["\u00a0MOVE", "N\u00a0"]),
        (" ", [""]),
        ("a b  ", ["a", "b"]),
    ],
)
def test_java_trim_and_split(raw, words):
    assert java_split_space(java_trim(raw)) == words


# ---------------------------------------------------------------------------
# Map generation (maps printed by a JDK transcription of GridModel)
# ---------------------------------------------------------------------------

MAP_0 = [
    "...............", "..xx...........", "..xx...........", ".............xx", ".......xx....xx",
    ".......xx......", "...............", ".....xxx.......", ".....xxx.......", ".....xxx.......",
    "...............", "...............", "...............", "...............", "...............",
]
MAP_42 = [
    "......xx.......", "..xxx..........", "..xxx......xx..", "..xxx..xxx.xx..", "......xxxx....x",
    "......xxxx....x", ".......xx......", "...............", "...............", "xx....xx.......",
    "xx....xx....xx.", "............xx.", "...............", "...............", "...............",
]
MAP_123456789 = [
    "........xx.....", "........xx.....", "...............", "xx.xx.....xx...", "xx.xx.....xx...",
    "...............", ".......xxx.....", "xx.....xxxx....", "xx.....xxxx....", "...............",
    "..........xxx..", "....xx....xxx..", "....xx....xxx..", ".......xx.xx...", ".......xx......",
]


def test_reference_map_literals():
    assert reference_map(0) == MAP_0
    assert reference_map(42) == MAP_42
    assert reference_map(123456789) == MAP_123456789
    # Only the low 48 bits of the seed matter.
    assert reference_map(-(2**63)) == MAP_0
    assert reference_map(-1) == reference_map(2**63 - 1)


def test_init_lines():
    game = ReferenceGame(0)
    assert game.init_lines(1) == ["15 15 1"] + MAP_0
    assert game.rows == MAP_0


# ---------------------------------------------------------------------------
# Start
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("answer", ["5 5 ", " 5 5", "5  5", "5,5", "+5 5", "100 5", "", "5 5\n", "\u0665 5"])
def test_start_format_disqualifies(answer):
    game = ReferenceGame(0)
    game.start(answer, "0 0")
    assert game.over and game.reason == "disqualified"
    assert game.disqualified[0] is not None and game.disqualified[1] is None
    assert game.scores == [-1, 6] and game.winner == 1


@pytest.mark.parametrize("answer", ["2 1", "15 3", "3 15", "99 99"])
def test_start_island_or_outside_disqualifies(answer):
    game = ReferenceGame(0)
    game.start("0 0", answer)
    assert game.over and game.scores == [6, -1] and game.winner == 0


def test_start_both_invalid_is_draw_and_same_cell_is_fine():
    game = ReferenceGame(0)
    game.start("x", "2 2")
    assert game.over and game.scores == [-1, -1] and game.winner == -1
    game = ReferenceGame(0)
    game.start("05 12", "5 12")
    assert not game.over and game.positions == [(5, 12), (5, 12)]
    assert game.active == 0 and game.turns == 1
    assert game.turn_input() == ["5 12 6 6 3 4 6 3", "NA", "NA"]


# ---------------------------------------------------------------------------
# Turn scenarios on seed 0 (rows y=10..14 are all water)
# ---------------------------------------------------------------------------

def new_game(p0="0 12", p1="6 12", seed=0) -> ReferenceGame:
    game = ReferenceGame(seed)
    game.start(p0, p1)
    assert not game.over
    return game


def play(game: ReferenceGame, *lines: str) -> None:
    """Play the given lines alternately, starting with the active player."""
    for line in lines:
        assert not game.over
        game.turn_input()
        game.play(line)


def test_chained_move_charge_then_torpedo():
    game = new_game()
    play(game, "MOVE E TORPEDO", "MOVE E", "MOVE E TORPEDO", "MOVE E")
    assert game.charges[0]["TORPEDO"] == 2 and game.positions == [(2, 12), (8, 12)]
    # The MOVE brings the torpedo to 3 charges before TORPEDO is checked; range
    # is measured from (3,12): (7,12) is 4 away; p1 at (8,12) is hit for 1.
    play(game, "MOVE E TORPEDO|TORPEDO 7 12")
    assert game.charges[0]["TORPEDO"] == 0 and game.lives == [6, 5]
    assert game.turn_input() == ["8 12 5 6 3 4 6 3", "NA", "MOVE E|TORPEDO 7 12"]


def test_torpedo_before_charging_move_is_dropped():
    game = new_game()
    play(game, "MOVE E TORPEDO", "MOVE E", "MOVE E TORPEDO", "MOVE E")
    play(game, "TORPEDO 7 12|MOVE E TORPEDO")
    assert game.charges[0]["TORPEDO"] == 3 and game.lives == [6, 6]
    assert game.turn_input()[2] == "MOVE E"
    # Out of range (5 steps) is dropped; nothing left -> SURFACE.
    play(game, "MOVE E", "TORPEDO 8 12")
    assert game.lives == [5, 6] and game.charges[0]["TORPEDO"] == 3
    assert game.turn_input()[2] == "SURFACE 7"


def test_dropped_versus_disqualified():
    game = new_game()
    play(game, "TORPEDO banana")  # no charges: dropped before its arguments -> SURFACE
    assert not game.over and game.lives == [5, 6]
    assert game.turn_input()[2] == "SURFACE 7"
    play(game, "SONAR 0|MINE|SILENCE Q 9|TRIGGER 3 3")  # all dropped (no charges / no mine)
    assert not game.over and game.lives == [5, 5]

    for line in ("TRIGGER", "TRIGGER 1", "TRIGGER 1 2 3", "TRIGGER a 2", "MOVE", "MOVE X", "MOVE N FOO",
                 "MOVE N TORPEDO x", "move N", "FOO", "MOVE W"):
        game = new_game()
        play(game, line)
        assert game.over and game.reason == "disqualified", line
        assert game.disqualified[0] and game.scores == [-1, 6] and game.winner == 1

    game = new_game()
    play(game, "MOVE E TORPEDO", "MOVE E", "MOVE E TORPEDO", "MOVE E", "MOVE E TORPEDO", "MOVE E")
    play(game, "TORPEDO banana")  # with 3 charges the arguments are checked
    assert game.over and game.disqualified[0]


def test_move_power_word_is_trimmed_like_java():
    game = new_game()
    play(game, "MOVE E \tMINE")
    assert not game.over and game.charges[0]["MINE"] == 1


def test_duplicate_activators_and_lazy_validation():
    game = new_game()
    play(game, "MOVE E|MOVE W")
    assert game.over and game.disqualified[0] == "Two equal commands executed."
    assert game.positions[0] == (0, 12) and game.actions_executed == 0

    game = new_game()
    play(game, "MSG a|MSG b| MOVE E |MSG c||")
    assert not game.over and game.positions[0] == (1, 12)

    game = new_game()
    play(game, "MOVE E|FOO")  # MOVE runs, then FOO disqualifies
    assert game.over and game.positions[0] == (1, 12)
    assert game.disqualified[0] == "Unknown command: FOO"

    game = new_game()
    play(game, "MOVE E|MOVE\tE")  # different activators; the second is unknown
    assert game.over and game.positions[0] == (1, 12)


def test_fallback_surface():
    game = new_game()
    play(game, "MOVE E", "")
    assert game.lives == [6, 5] and game.visited[1] == {(6, 12)}
    assert game.turn_input() == ["1 12 6 5 3 4 6 3", "NA", "SURFACE 8"]
    play(game, "MSG hello")
    assert game.lives == [5, 5] and game.visited[0] == {(1, 12)}


def test_mine_laid_this_turn_cannot_be_triggered():
    game = new_game()
    play(game, "MOVE E MINE", "MOVE W", "MOVE E MINE", "MOVE N", "MOVE E MINE", "MOVE W")
    assert game.charges[0]["MINE"] == 3 and game.positions == [(3, 12), (4, 11)]
    play(game, "MINE N|TRIGGER 3 11")
    assert game.charges[0]["MINE"] == 0 and len(game.mines[0]) == 1
    assert game.lives == [6, 6] and game.turn_input()[2] == "MINE"
    play(game, "MOVE N")  # p1 to (4,10), next to the mine
    play(game, "MOVE S|TRIGGER 3 11")
    assert game.positions == [(3, 13), (4, 10)] and game.lives == [6, 5]
    assert game.turn_input()[2] == "MOVE S|TRIGGER 3 11"
    play(game, "MOVE E", "TRIGGER 3 11")  # already blown: dropped -> SURFACE
    assert game.lives == [5, 5]


def test_sonar_answer_comes_next_turn():
    game = new_game()
    play(game, "MOVE E SONAR", "MOVE E", "MOVE E SONAR", "MOVE E", "MOVE E SONAR", "MOVE E",
         "MOVE E SONAR", "MOVE E")
    assert game.charges[0]["SONAR"] == 4 and game.positions[1] == (10, 12)
    play(game, "SONAR 9|MOVE N", "MOVE E")
    assert game.turn_input() == ["4 11 6 6 3 4 6 3", "Y", "MOVE E"]
    play(game, "MOVE N", "MOVE E")
    assert game.turn_input()[1] == "NA"


def test_game_ends_on_life_before_next_action():
    game = new_game()
    for i in range(5):
        play(game, "SURFACE", f"MOVE {'E' if i % 2 == 0 else 'N'}")
    assert game.lives == [1, 6]
    play(game, "SURFACE|MOVE E")
    assert game.over and game.reason == "life" and game.positions[0] == (0, 12)
    assert game.scores == [0, 6] and game.winner == 1

    game = new_game()
    for i in range(5):
        play(game, "SURFACE", f"MOVE {'E' if i % 2 == 0 else 'N'}")
    play(game, "SURFACE|FOO")  # trailing check still disqualifies
    assert game.over and game.reason == "disqualified" and game.scores == [-1, 6]


def test_self_torpedo_both_hit_draw():
    game = new_game("0 12", "1 12")
    play(game, "MOVE E TORPEDO", "MOVE E", "MOVE N TORPEDO", "MOVE E", "MOVE N TORPEDO", "MOVE E")
    assert game.positions == [(1, 10), (4, 12)]
    game.lives = [2, 1]  # white-box: make one explosion decisive for both
    game.positions[1] = (2, 10)
    play(game, "TORPEDO 1 10")
    assert game.over and game.lives == [0, 0] and game.winner == -1 and game.reason == "life"


def test_frame_cap():
    game = new_game()
    game.actions_executed = 997  # white-box: near the 999-action cap
    play(game, "MOVE E", "MOVE E")
    assert game.over and game.reason == "maxframes" and game.winner == -1

    game = new_game()
    game.actions_executed = 998
    play(game, "MOVE E|SURFACE")  # SURFACE never runs
    assert game.over and game.reason == "maxframes" and game.lives == [6, 6]


def test_max_turns_full_game():
    """A whole game of two greedy walkers on seed 0 reaches the turn limit."""
    game = ReferenceGame(0)
    game.start("0 0", "14 14")

    def walker(me: int) -> str:
        x, y = game.positions[me]
        seen = game.visited[me]
        options = []
        for d, (dx, dy) in DIRECTIONS.items():
            n = (x + dx, y + dy)
            if game.is_water(*n) and n not in seen:
                onward = sum(
                    1 for ex, ey in DIRECTIONS.values()
                    if game.is_water(n[0] + ex, n[1] + ey) and (n[0] + ex, n[1] + ey) not in seen
                )
                options.append((onward, d))
        return "MOVE " + min(options)[1] if options else "SURFACE"

    while not game.over:
        game.turn_input()
        game.play(walker(game.active))
    assert game.reason == "maxturns" and game.turns == 598 and game.actions_executed == 598
    assert game.scores == game.lives and min(game.lives) > 0


def test_random_lines_never_crash():
    rng = random.Random(1)
    words = ["MOVE", "SURFACE", "TORPEDO", "SONAR", "SILENCE", "MINE", "TRIGGER", "MSG", "N", "S", "E", "W",
             "TORPEDO", "MINE", "0", "3", "-1", "4", "12", " ", "|", "|", "\t"]
    for seed in range(30):
        game = ReferenceGame(seed)
        water = [(x, y) for y in range(15) for x in range(15) if game.rows[y][x] == "."]
        a, b = rng.choice(water), rng.choice(water)
        game.start(f"{a[0]} {a[1]}", f"{b[0]} {b[1]}")
        while not game.over:
            assert len(game.turn_input()) == 3
            game.play(" ".join(rng.choice(words) for _ in range(rng.randrange(0, 6))))
        assert game.reason in {"life", "maxturns", "maxframes", "disqualified"}
        assert game.winner in (0, 1, -1)


def test_disqualification_after_a_hit_keeps_stale_referee_score():
    game = new_game()
    play(game, "MOVE E TORPEDO", "MOVE E", "MOVE E TORPEDO", "MOVE E", "MOVE E TORPEDO", "MOVE E")
    play(game, "TORPEDO 6 12|FOO")  # p1 at (9,12) is not hit; then FOO disqualifies
    assert game.over and game.scores == [-1, 6]
    game = new_game()
    play(game, "MOVE E TORPEDO", "MOVE W", "MOVE E TORPEDO", "MOVE W", "MOVE E TORPEDO", "MOVE W")
    play(game, "TORPEDO 4 12|FOO")  # both subs sit at (3,12), next to the target
    assert game.positions == [(3, 12), (3, 12)]
    assert game.lives == [-1, 5] and game.scores == [-1, 5] and game.winner == 1
    # The Java referee skips updateScore in a frame that throws, so its board
    # still shows the opponent's life from the previous frame.
    assert game.referee_scores == [-1, 6]
