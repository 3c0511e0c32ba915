"""Games with external programs through ``play_pairs``: the same table as compiled games,
the in-process bot behind the text door plays the lines it plays in compiled code, every way
of giving a program its parameters, and disqualifications stored with their reason."""
import sys

import numpy as np
import pytest

from ocean.bots import BotSpec, ProgramSpec, resolve_bot
from ocean.match import play_pairs
from ocean.timecontrol import TimeControl
from tests.programs.build import HERE, build_c

KNOB = str(HERE / "knob.py")
PY = sys.executable


def _program(command: str, params=None, **kw) -> BotSpec:
    return BotSpec("prog", "program", dict(params or {}), ProgramSpec(command, **kw))


def test_the_in_process_bot_plays_the_same_lines_through_the_text_door():
    # tunable (in-process, behind the door in the referee's process) against chaser as a real
    # program (`ocean bot`): the very table of the compiled game between the same two bots.
    chaser = _program(f"{PY} -m ocean bot --name chaser --seed {{game_seed}}")
    seeds = [3, 4]
    refereed = play_pairs(resolve_bot("tunable"), chaser, seeds, time=TimeControl(15000, 300000))  # a cold cache compiles
    compiled = play_pairs(resolve_bot("tunable"), resolve_bot("chaser"), seeds)
    assert refereed.errors == [(None, None)] * 4
    np.testing.assert_array_equal(refereed.table, compiled.table)
    assert refereed.rows()[0]["a_error"] is None and "a_error" in compiled.rows()[0]


@pytest.fixture(scope="module")
def knob_c(tmp_path_factory):
    return build_c(tmp_path_factory.mktemp("knob"))


def test_argument_environment_and_parameters_file_deliver_the_same_values(knob_c):
    seeds = [5, 6]
    opponent = resolve_bot("random")

    def table(bot):
        result = play_pairs(bot, opponent, seeds, time=TimeControl(scale=20))
        assert all(e == (None, None) for e in result.errors)
        return result.table

    by_args = table(_program(f"{knob_c} --skill {{skill}} --seed {{game_seed}}", {"skill": 0.93}))
    by_env = table(_program(f"{knob_c} --seed {{game_seed}}", {"skill": 0.93}, env=(("KNOB_SKILL", "{skill}"),)))
    by_toml = table(_program(f"{KNOB} --params-file {{params_file}} --seed {{game_seed}}", {"skill": 0.93},
                             params_file="toml"))
    by_json = table(_program(f"{PY} {KNOB} --params-file {{params_file}} --seed {{game_seed}}", {"skill": 0.93},
                             params_file="json"))
    other = table(_program(f"{knob_c} --skill {{skill}} --seed {{game_seed}}", {"skill": 0.5}))
    # knob.py and knob.c draw the same random numbers: one bot, whichever way the value came
    np.testing.assert_array_equal(by_args, by_env)
    np.testing.assert_array_equal(by_args, by_toml)
    np.testing.assert_array_equal(by_args, by_json)
    assert not np.array_equal(by_args, other)


def test_a_relative_program_path_starts_in_the_working_directory(knob_c, tmp_path):
    import shutil

    shutil.copy(knob_c, tmp_path / "mybot")
    bot = _program("./mybot --skill 1 --seed {game_seed}", cwd=str(tmp_path))
    result = play_pairs(bot, resolve_bot("random"), [7], time=TimeControl(scale=20))
    assert result.errors == [(None, None), (None, None)]


@pytest.mark.parametrize("flaw, reason", [
    ("crash", "crashed, exit code 3 (official reason: Timeout!)"),
    ("garbage", "Unknown command"),
    ("timeout", "Timeout!"),
])
def test_crashes_garbage_and_timeouts_are_disqualifications_stored_with_their_reason(flaw, reason):
    bot = _program(f"{PY} {KNOB} --skill {{skill}} --seed {{game_seed}} --flaw {flaw} --flaw-above 0.5",
                   {"skill": 0.9})
    result = play_pairs(bot, resolve_bot("random"), [8], time=TimeControl(scale=4))
    rows = result.rows()
    assert [r["winner"] for r in rows] == ["b", "b"]
    assert [r["a_lives"] for r in rows] == [-1, -1]
    assert all(r["a_error"].startswith(reason) and r["b_error"] is None for r in rows), rows[0]["a_error"]


def test_a_crash_names_the_programs_last_stderr_line(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.stdin.readline()\nraise SystemExit('no map for me')\n")
    result = play_pairs(_program(f"{PY} {script}"), resolve_bot("random"), [9], time=TimeControl(scale=4))
    assert "stderr: no map for me" in result.errors[0][0]


def test_a_missing_program_is_one_line_naming_it():
    with pytest.raises(FileNotFoundError) as err:
        play_pairs(_program("./no-such-bot --x 1"), resolve_bot("random"), [1])
    assert "no-such-bot" in str(err.value)


def test_a_game_whose_program_cannot_be_rendered_leaves_no_temp_folder(tmp_path, monkeypatch):
    import tempfile

    from ocean.players import open_player

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # {skill} has no value: the placeholder fails after the game's scratch folder was made
    bot = _program(f"{KNOB} --skill {{skill}} --params-file {{params_file}}", {}, params_file="toml")
    for _ in range(3):
        with pytest.raises(ValueError, match="no value for placeholder"):
            open_player(bot, 1)
    assert [p.name for p in tmp_path.iterdir()] == []  # (one ocean-game-* folder per game leaked before)
    with pytest.raises(FileNotFoundError):
        open_player(_program("./no-such-bot"), 1)
    assert [p.name for p in tmp_path.iterdir()] == []
