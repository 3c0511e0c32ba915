"""A program that floods cannot fill a worker's disk or memory (issue 32, item 8): of its stderr
only the tail is kept, in memory (the last line still makes the crash report), and an answer
line over ``MAX_LINE_BYTES`` is a disqualification saying so. With a real flooding program."""
import os
import sys
from pathlib import Path

import pytest

from ocean._process import MAX_LINE_BYTES, STDERR_TAIL_BYTES
from ocean.bots import PROGRAM, BotSpec, ProgramSpec
from ocean.game import Game
from ocean.players import open_player
from ocean.referee import referee_game
from ocean.timecontrol import TimeControl

PROGRAMS = Path(__file__).parent / "programs"
FLOODER = f"{sys.executable} {PROGRAMS / 'flooder.py'}"
WALKER = f"{sys.executable} {PROGRAMS / 'walker.py'} 1"
GENEROUS = TimeControl(turn_ms=50, first_turn_ms=1000, scale=20)


def _spec(command: str) -> BotSpec:
    return BotSpec(command, PROGRAM, {}, ProgramSpec(command))


def test_twenty_megabytes_of_stderr_keep_only_its_tail_in_memory_and_nothing_on_disk():
    player = open_player(_spec(f"{FLOODER} --stderr 20"), 3, time=GENEROUS)
    try:
        player.send(Game(3).init_lines(0))
        assert player.read_line(20000)  # 20 MB went through the pipe while it was awaited
        kept = player.stderr_text()
        assert 0 < len(kept.encode()) <= STDERR_TAIL_BYTES and kept.endswith("flood \n")
        on_disk = sum(os.path.getsize(os.path.join(player._scratch, f)) for f in os.listdir(player._scratch))
        assert on_disk < 4096, on_disk
    finally:
        player.close()


def test_a_flooding_program_that_crashes_still_says_its_last_words():
    verdict, _ = referee_game(3, (WALKER, f"{FLOODER} --stderr 20"), time=GENEROUS)
    assert verdict["winner"] == 0
    assert verdict["disqualified"][1] == "crashed, exit code 4; stderr: last words (official reason: Timeout!)"


@pytest.mark.parametrize("newline", [False, True])
def test_an_answer_line_over_the_limit_is_a_disqualification_saying_so(newline):
    command = f"{FLOODER} --line {4 * MAX_LINE_BYTES}" + (" --newline" if newline else "")
    verdict, _ = referee_game(3, (command, WALKER), time=GENEROUS)
    assert verdict["winner"] == 1 and verdict["scores"][0] == -1
    assert verdict["disqualified"][0] == (f"bot wrote an answer line over {MAX_LINE_BYTES:,} bytes: disqualified "
                                          "(official reason: Timeout!)")
