"""Paired games with a program opponent that loses games to its clock or a crash: such a game
is played again, then set aside, never scored as the other bot's win (real subprocesses)."""
import sys
from pathlib import Path

import pytest

from ocean.bots import PROGRAM, BotSpec, ProgramSpec, resolve_bot
from ocean.match import play_pairs
from ocean.timecontrol import TimeControl

FLAKY = Path(__file__).resolve().parents[1] / "programs" / "flaky.py"
TIME = TimeControl(turn_ms=200, first_turn_ms=2000)  # generous: only the flaw fails


def _flaky(*args: str) -> BotSpec:
    command = f"{sys.executable} {FLAKY} --seed {{game_seed}} " + " ".join(args)
    return BotSpec("flaky", PROGRAM, {}, ProgramSpec(command))


def _outcome(result):
    return [(r["winner"], r["turns"], r["a_lives"], r["b_lives"]) for r in result.rows()]


@pytest.mark.parametrize("fail", ["timeout", "crash"])
def test_a_game_the_opponent_fails_once_is_played_again_and_counts_as_a_clean_one(tmp_path, fail, unsandboxed):
    bot = resolve_bot("chaser")
    clean = play_pairs(bot, _flaky(), [7], time=TIME)
    flaky = play_pairs(bot, _flaky("--share", "100", "--fail", fail, "--once", str(tmp_path)), [7], time=TIME)
    assert [r["replays"] for r in flaky.rows()] == [1, 1]
    assert not any(r["set_aside"] for r in flaky.rows())
    assert _outcome(flaky) == _outcome(clean)  # the replay is the game a clean opponent plays
    assert all(r["b_error"] is None for r in flaky.rows())


def test_a_game_the_opponent_always_fails_is_set_aside_after_the_replays():
    result = play_pairs(resolve_bot("chaser"), _flaky("--share", "100", "--fail", "crash"), [7], time=TIME,
                        replays=2)
    rows = result.rows()
    assert [r["replays"] for r in rows] == [2, 2] and all(r["set_aside"] for r in rows)
    assert all("crashed, exit code 3" in r["b_error"] for r in rows)


def test_without_replays_the_failure_stands_and_the_studied_bots_own_failures_always_do():
    stands = play_pairs(resolve_bot("chaser"), _flaky("--share", "100", "--fail", "crash"), [7], time=TIME,
                        replays=0)
    assert [r["winner"] for r in stands.rows()] == ["a", "a"]
    assert not any(r["replays"] or r["set_aside"] for r in stands.rows())
    own = play_pairs(_flaky("--share", "100", "--fail", "crash"), resolve_bot("chaser"), [7], time=TIME)
    assert [r["winner"] for r in own.rows()] == ["b", "b"]  # A, the bot under study: a loss, not replayed
    assert not any(r["replays"] for r in own.rows())


def test_the_studied_bots_own_failure_counts_when_the_opponent_failed_in_the_same_game():
    # issue 45: both dead at the start; B's failure was replayed 3 times and the pair set aside,
    # so A's own failure scored nothing
    from tuning.driver.evaluation import pair_scores_of_rows

    dead = BotSpec("dead", PROGRAM, {}, ProgramSpec(f'{sys.executable} -c "raise SystemExit(4)"'))
    rows = play_pairs(dead, dead, [7], time=TIME).rows()
    assert all("crashed, exit code 4" in r["a_error"] and "crashed, exit code 4" in r["b_error"] for r in rows)
    assert not any(r["replays"] or r["set_aside"] for r in rows)
    assert [r["winner"] for r in rows] == ["b", "b"]  # A's loss: B's failure forgiven, A's own not
    assert pair_scores_of_rows("dead", rows) == {("dead", 7): 0.0}
    # where neither is forgiven (head to head, a test), the rules' draw stands: one rule for both
    assert [r["winner"] for r in play_pairs(dead, dead, [7], time=TIME, replays=0).rows()] == ["draw", "draw"]
