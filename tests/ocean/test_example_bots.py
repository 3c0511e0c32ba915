"""The example bots of studies/examples read their budget from {turn_ms}: mybot.c thinks on a timer
for a share of it (its games then vary) or for a fixed number of walks (its games reproduce, the
mode to tune in); mybot.py takes {turn_ms} too."""
import subprocess
import sys
from pathlib import Path

import pytest

from ocean.bots import PROGRAM, BotSpec, ProgramSpec, resolve_bot
from ocean.match import play_pairs
from ocean.timecontrol import TimeControl

EXAMPLES = Path(__file__).resolve().parents[2] / "studies" / "examples"


@pytest.fixture(scope="module")
def mybot(tmp_path_factory):
    binary = tmp_path_factory.mktemp("mybot") / "mybot"
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-o", str(binary), str(EXAMPLES / "mybot.c"), "-lm"], check=True)
    return str(binary)


def _bot(command: str) -> BotSpec:
    return BotSpec("mybot", PROGRAM, {}, ProgramSpec(command, cwd=str(EXAMPLES)))


def test_a_fixed_lookahead_reproduces_and_changes_the_play(mybot):
    opponent = resolve_bot("chaser")
    time = TimeControl(scale=20)
    fixed = [play_pairs(_bot(f"{mybot} --seed {{game_seed}} --turn-ms {{turn_ms}} --rollouts 16"), opponent, [7, 8],
                        time=time) for _ in range(2)]
    assert (fixed[0].table == fixed[1].table).all() and fixed[0].errors == [(None, None)] * 4
    plain = play_pairs(_bot(f"{mybot} --seed {{game_seed}} --turn-ms {{turn_ms}}"), opponent, [7, 8], time=time)
    assert not (plain.table == fixed[0].table).all()  # the lookahead plays other lines
    python = play_pairs(_bot(f"{sys.executable} mybot.py --seed {{game_seed}} --turn-ms {{turn_ms}}"), opponent,
                        [7], time=time)
    assert python.errors == [(None, None)] * 2


def test_on_a_timer_it_spends_its_share_of_the_budget_it_is_told(mybot):
    bot = _bot(f"{mybot} --seed {{game_seed}} --turn-ms {{turn_ms}} --think 0.5")
    result = play_pairs(bot, resolve_bot("chaser"), [9], time=TimeControl(turn_ms=20, scale=10))
    assert result.errors == [(None, None)] * 2
    for game in range(2):
        times = result.answers(game, 0)
        # half of the 20 ms it is told, from when it read its input: never less, never near 200 ms
        assert 10.0 <= times["mean"] < 100 and times["max"] < 200
