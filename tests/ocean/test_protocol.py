"""The text door: lines read exactly as the referee reads them."""
import numpy as np
import pytest

from ocean.board import board_for_seed
from ocean.constants import (
    ACT_MOVE, ACT_SONAR, ACT_TORPEDO, ACT_UNKNOWN, ERR_DUPLICATE, ERR_MOVE_POWER, ERR_NONE,
    ERR_START, ERR_START_CELL, ERR_TORPEDO_ARGS, ERR_UNKNOWN, NO_POWER, SONAR, TORPEDO,
)
from ocean.game import Game
from ocean.protocol import format_line, java_parse_int, java_trim, parse_line, parse_start


@pytest.mark.parametrize("text, value", [
    ("0", 0), ("+7", 7), ("-0", 0), ("007", 7), ("2147483647", 2**31 - 1), ("-2147483648", -(2**31)),
    ("2147483648", None), ("", None), ("+", None), ("-", None), ("1_0", None), (" 1", None), ("1.0", None),
    ("\u0663", 3), ("\uff11\uff12", 12), ("\U0001d7ce", None),
])
def test_numbers_follow_java_integer_parse_int(text, value):
    assert java_parse_int(text) == value


def test_trim_strips_every_control_character_like_java():
    assert java_trim("\x00\t MOVE N\x1f \r") == "MOVE N"
    assert java_trim("\u00a0MOVE\u00a0") == "\u00a0MOVE\u00a0"  # not <= U+0020, kept


def test_pieces_words_and_msg():
    rows = parse_line(" MOVE N TORPEDO | MSG hi there |MSG again||TORPEDO +3 -0 ")
    assert rows.tolist() == [[ACT_MOVE, 0, TORPEDO, ERR_NONE], [ACT_TORPEDO, 3, 0, ERR_NONE]]


def test_the_power_word_of_move_is_trimmed_as_the_referee_does():
    assert parse_line("MOVE N \tSONAR").tolist() == [[ACT_MOVE, 0, SONAR, ERR_NONE]]
    assert parse_line("MOVE N LASER")[0, 3] == ERR_MOVE_POWER
    assert parse_line("MOVE N")[0, 2] == NO_POWER


def test_a_tab_does_not_split_the_action_word():
    assert parse_line("MOVE\tN").tolist() == [[ACT_UNKNOWN, 0, 0, ERR_UNKNOWN]]


def test_repeated_words_reject_the_whole_line_even_after_an_unknown_word():
    assert parse_line("FOO|MOVE N|MOVE S").tolist() == [[ACT_UNKNOWN, 0, 0, ERR_DUPLICATE]]
    assert parse_line("SURFACE|SURFACE").tolist() == [[ACT_UNKNOWN, 0, 0, ERR_DUPLICATE]]


def test_nothing_after_the_first_unknown_word_is_kept_since_it_can_never_run():
    rows = parse_line("SONAR 3|A|B|C|D|E|F|G|H|I|MOVE N")
    assert rows.tolist() == [[ACT_SONAR, 3, 0, ERR_NONE], [ACT_UNKNOWN, 0, 0, ERR_UNKNOWN]]
    game = Game(1)
    game.start("0 0", "5 5")
    game.begin_turn()
    game.play_text("A|B|C|D|E|F|G|H|I|J|K")
    assert game.disqualified[0] == "Unknown command"


def test_malformed_arguments_are_carried_to_the_rules_not_judged_here():
    assert parse_line("TORPEDO banana")[0].tolist() == [ACT_TORPEDO, 0, 0, ERR_TORPEDO_ARGS]


def test_start_answers_use_the_referee_regex_on_the_raw_line():
    board = board_for_seed(1)  # (0, 0) is water on this map
    assert parse_start("0 0", board) == (0, ERR_NONE)
    assert parse_start("00 00", board) == (0, ERR_NONE)
    for bad in ("0 0 ", " 0 0", "0  0", "000 0", "a b", "", "0", "-1 0"):
        assert parse_start(bad, board)[1] == ERR_START, bad
    assert parse_start("15 0", board)[1] == ERR_START_CELL
    assert parse_start("99 99", board)[1] == ERR_START_CELL


def test_format_line_round_trips_well_formed_rows():
    line = "MOVE E MINE|TORPEDO 3 4|SONAR 9|SILENCE W 0|MINE S|TRIGGER 1 2|SURFACE"
    assert format_line(parse_line(line)) == line
    with pytest.raises(ValueError):
        format_line(np.array([[ACT_TORPEDO, 0, 0, ERR_TORPEDO_ARGS]]))
