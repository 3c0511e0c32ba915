"""Time control as a setting: what a program is told ({turn_ms}, {first_turn_ms}, in its command,
its environment or its parameters file), what the referee enforces (those times x scale), and a
program's answer times as a game records them. Real programs (tests/ocean/programs/busy.py)."""
import json
import sys
from pathlib import Path

import pytest

from ocean.bots import PROGRAM, BotSpec, ProgramSpec, resolve_bot
from ocean.match import play_pairs
from ocean.timecontrol import DEFAULT_TIME, TimeControl

BUSY = Path(__file__).parent / "programs" / "busy.py"
PY = sys.executable


def _busy(args: str, **kw) -> BotSpec:
    return BotSpec("busy", PROGRAM, {}, ProgramSpec(f"{PY} {BUSY} {args}", **kw))


def _told(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_codingames_time_control_is_the_default_and_limits_are_the_times_told_times_the_scale():
    assert (DEFAULT_TIME.turn_ms, DEFAULT_TIME.first_turn_ms, DEFAULT_TIME.scale) == (50, 1000, 1.0)
    tc = TimeControl(turn_ms=5, first_turn_ms=200, scale=2.5)
    assert (tc.turn_limit_ms, tc.first_limit_ms) == (12, 500)  # 12.5 rounds to 12
    assert tc.values() == {"turn_ms": "5", "first_turn_ms": "200"}  # told unscaled
    assert tc.scaled(20) == TimeControl(5, 200, 50.0) and tc.scaled(1000).scale == 100.0
    assert TimeControl.from_json(tc.as_json()) == tc


@pytest.mark.parametrize("args, words", [
    ((0, 1000, 1.0), "turn_ms = 0"),
    ((50, 2.5, 1.0), "first_turn_ms = 2.5"),
    ((50, 1000, 0.0), "time scale = 0.0"),
    ((50, 1000, 101.0), "at most 100"),
    ((50, 1000, float("nan")), "time scale"),
])
def test_a_bad_time_control_is_one_line(args, words):
    with pytest.raises(ValueError) as err:
        TimeControl(*args)
    assert words in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ValueError, match="unknown key"):
        TimeControl.from_json({"turn": 5})


def test_the_placeholders_are_filled_in_per_game_and_are_not_parameters():
    p = ProgramSpec("./bot --t {turn_ms} --f {first_turn_ms} --x {x}", env=(("T", "{turn_ms}"),))
    assert p.parameter_names() == {"x"}
    argv, env = p.render({"x": 1}, 3, time=TimeControl(7, 300))
    assert argv == ["./bot", "--t", "7", "--f", "300", "--x", "1"] and env == {"T": "7"}
    assert p.display({"x": 1}) == "./bot --t {turn_ms} --f {first_turn_ms} --x 1"  # per game: kept


def test_a_program_is_told_its_time_in_its_command_environment_and_parameters_file(tmp_path, unsandboxed):
    log = tmp_path / "told.log"
    time = TimeControl(turn_ms=9, first_turn_ms=700, scale=10)
    opponent = resolve_bot("random")
    by_args = _busy(f"--turn-ms {{turn_ms}} --first-turn-ms {{first_turn_ms}} --share 0 --log {log}")
    by_env = _busy(f"--share 0 --log {log}", env=(("BUSY_TURN_MS", "{turn_ms}"),))
    by_file = BotSpec("busy", PROGRAM, {"skill": 0.5}, ProgramSpec(
        f"{PY} {BUSY} --params-file {{params_file}} --share 0 --log {log}", params_file="toml"))
    by_json = BotSpec("busy", PROGRAM, {"skill": 0.5}, ProgramSpec(
        f"{PY} {BUSY} --params-file {{params_file}} --share 0 --log {log}", params_file="json"))
    for bot in (by_args, by_env, by_file, by_json):
        assert play_pairs(bot, opponent, [3], time=time).errors == [(None, None)] * 2
    told = _told(log)
    assert [(t["turn_ms"], t["from"]) for t in told] == [(9, "argv")] * 2 + [(9, "env")] * 2 + [(9, "file")] * 4
    assert {t["first_turn_ms"] for t in told if t["from"] != "env"} == {700}


def test_the_referee_enforces_the_times_told_times_the_scale():
    opponent = resolve_bot("random")
    # thinks 64 ms a turn (wall clock), over the 40 ms it is told: late at scale 1 (40 ms), inside
    # the limit at scale 100 (4,000 ms). The test is about the scale, not the machine's speed: at
    # scale 10 (400 ms) one answer on a CI machine at load 7 came back too late.
    thinker = _busy("--turn-ms 80 --share 0.8")
    fine = play_pairs(thinker, opponent, [4], time=TimeControl(40, 1000, 100.0))
    assert fine.errors == [(None, None)] * 2
    late = play_pairs(thinker, opponent, [4], time=TimeControl(40, 1000, 1.0))
    assert [e[0] for e in late.errors] == ["Timeout!"] * 2


def test_a_refereed_game_records_each_programs_answer_times_next_to_its_other_numbers():
    result = play_pairs(_busy("--turn-ms {turn_ms} --share 0.5"), resolve_bot("random"), [5],
                        time=TimeControl(20, 1000, 100.0))
    rows = result.rows()
    for row in rows:
        # about 10 ms a turn (half of 20) on an idle machine; the limit (2,000 ms) is wide so that
        # a busy machine's stalls cannot turn this test about records into one about the clock
        assert 9.0 <= row["a_answer_mean_ms"] <= row["a_answer_max_ms"] < 2000
        assert row["b_answer_mean_ms"] is None and row["b_answer_max_ms"] is None  # in-process: not timed
        # its first answer (start-up) apart from the others, and how many answers it gave
        assert row["a_answer_first_ms"] > 0 and row["a_answers"] > 5
        assert row["b_answer_first_ms"] is None and row["b_answers"] is None
    times = result.answers(0, 0)
    assert times["answers"] > 5 and times["first"] < 5000
    compiled = play_pairs(resolve_bot("tunable"), resolve_bot("random"), [5]).rows()[0]
    assert compiled["a_answer_max_ms"] is None  # compiled games are not timed
