"""``ocean referee`` end to end with real programs, checked against the reference
implementation fed the very lines the programs printed."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ocean.referee import referee_game
from ocean.timecontrol import TimeControl
from tests.ocean.reference_rules import ReferenceGame

PROGRAMS = Path(__file__).parent / "programs"
PY = sys.executable


def _cmd(name: str, *args: str) -> str:
    return " ".join([PY, str(PROGRAMS / name), *args])


def _replay_through_reference(data: dict) -> ReferenceGame:
    """Feed the recorded lines to the reference and check it sent the same inputs."""
    ref = ReferenceGame(data["seed"])
    assert data["init_input"] == [ref.init_lines(0), ref.init_lines(1)]
    ref.start(*data["start_output"])
    for turn in data["turns"]:
        assert not ref.over
        assert ref.active == turn["player"]
        assert ref.turn_input() == turn["input"]
        ref.play(turn["output"])
    assert ref.over
    return ref


@pytest.mark.parametrize("seed", [1, -7, 123456789012345])
def test_walkers_play_a_full_game_exactly_as_the_reference(seed):
    verdict, data = referee_game(seed, (_cmd("walker.py", "1"), _cmd("walker.py", "2")), time=TimeControl(turn_ms=1000))
    ref = _replay_through_reference(data)
    answers = data["answer_ms"]
    assert verdict == {"winner": ref.winner, "scores": ref.referee_scores, "reason": ref.reason,
                       "turns": ref.turns, "disqualified": [None, None]}
    for p, times in enumerate(answers):  # each program's answer times: how close to its limit it runs
        assert times["answers"] == 1 + sum(t["player"] == p for t in data["turns"])
        assert 0 <= times["mean"] <= times["max"] < 1000 and times["first"] >= 0
    assert verdict["turns"] > 20


def test_a_late_program_is_disqualified_for_timeout():
    verdict, _ = referee_game(3, (_cmd("sleeper.py"), _cmd("walker.py")), time=TimeControl(turn_ms=200))
    assert verdict["winner"] == 1 and verdict["scores"][0] == -1
    assert verdict["reason"] == "disqualified" and verdict["disqualified"][0] == "Timeout!"
    assert verdict["turns"] == 1


def test_a_crashing_program_is_disqualified_at_once():
    verdict, data = referee_game(3, (_cmd("walker.py"), _cmd("crasher.py")), time=TimeControl(turn_ms=5000))
    assert verdict["winner"] == 0 and verdict["scores"] == [6, -1]
    assert verdict["disqualified"][1] == "crashed, exit code 3 (official reason: Timeout!)"
    assert verdict["turns"] == 2
    assert data["failed"][0] is None and data["failed"][1]["answer"] == 2 and data["failed"][1]["after_ms"] < 5000


def test_a_lost_first_answer_says_how_long_the_referee_waited(tmp_path):
    # issue 36: a disqualified first answer showed no time at all
    late = "sh -c 'sleep 1.5; echo 7 7'"
    out = subprocess.run([PY, "-m", "ocean", "referee", "--seed", "3", "--p0", late, "--p1", _cmd("walker.py")],
                         capture_output=True, text=True, timeout=60)
    line = next(x for x in out.stdout.splitlines() if x.startswith("player 0 disqualified"))
    waited = float(line.split("after ")[1].split(" ms")[0])
    assert line.startswith("player 0 disqualified: Timeout! (answer 1, after ") and 1000 <= waited < 1400, line


def test_a_program_dying_just_after_its_first_deadline_is_reported_as_its_crash(tmp_path):
    # Issue 49 item 6: a program that cannot start (a missing file) exits after its first deadline
    # on a busy machine; the referee reports its exit code and its last words, not "Timeout!".
    script = tmp_path / "late_crash.sh"
    script.write_text("sleep 0.05\necho 'error: nofile.toml: cannot read' >&2\nexit 2\n")
    verdict, _ = referee_game(3, (f"sh {script}", _cmd("walker.py")),
                              time=TimeControl(turn_ms=50, first_turn_ms=5))
    assert verdict["disqualified"][0] == ("crashed, exit code 2; stderr: error: nofile.toml: cannot read "
                                          "(official reason: Timeout!)")


def test_a_program_answering_just_after_its_deadline_and_ending_well_was_late_not_crashed(tmp_path):
    script = tmp_path / "late.sh"
    script.write_text("sleep 0.05\necho 7 7\n")  # its answer, late, then exit code 0
    verdict, _ = referee_game(3, (f"sh {script}", _cmd("walker.py")),
                              time=TimeControl(turn_ms=50, first_turn_ms=5))
    assert verdict["disqualified"][0] == "Timeout!"


def test_garbage_output_disqualifies_as_an_unknown_command():
    verdict, data = referee_game(4, (_cmd("garbage.py"), _cmd("walker.py")), time=TimeControl(turn_ms=1000))
    assert verdict["scores"][0] == -1 and verdict["disqualified"][0] == "Unknown command"
    assert data["turns"][0]["output"] == "HELLO WORLD"


def test_extra_lines_are_read_as_later_answers():
    verdict, data = referee_game(5, (_cmd("spammer.py"), _cmd("walker.py")), time=TimeControl(turn_ms=1000))
    outputs = [t["output"] for t in data["turns"] if t["player"] == 0]
    assert outputs[:2] == ["SURFACE|MSG first 1", "SURFACE|MSG second 1"]
    _replay_through_reference(data)
    assert verdict["winner"] == 1


def test_surfacing_every_turn_loses_on_lives():
    verdict, data = referee_game(6, (_cmd("echo_start.py"), _cmd("echo_start.py")), time=TimeControl(turn_ms=1000))
    assert [t["answers"] for t in data["answer_ms"]] == [7, 6]  # the start, then 6 and 5 turns
    assert verdict == {"winner": 1, "scores": [0, 1], "reason": "life", "turns": 11, "disqualified": [None, None]}


def test_cli_referee_json_and_replay(tmp_path):
    replay = tmp_path / "game.json"
    result = subprocess.run(
        [sys.executable, "-m", "ocean", "referee", "--seed", "9", "--p0", _cmd("walker.py", "3"),
         "--p1", _cmd("walker.py", "4"), "--json", "--replay", str(replay), "--time-scale", "20"],
        capture_output=True, text=True, check=True)
    verdict = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(verdict) == {"winner", "scores", "reason", "turns", "disqualified", "answer_ms", "failed"}
    data = json.loads(replay.read_text())
    assert data["answer_ms"] == verdict.pop("answer_ms") and data["answer_ms"][0]["answers"] > 10
    assert data["failed"] == verdict.pop("failed") == [None, None]  # no answer lost
    assert data["result"] == verdict and data["seed"] == 9
    assert data["turns"][0]["actions"][0]["state"]["players"][0]["life"] == 6
    ref = _replay_through_reference(data)
    assert verdict["winner"] == ref.winner


def test_cli_referee_rejects_a_missing_program_in_one_line():
    result = subprocess.run([sys.executable, "-m", "ocean", "referee", "--seed", "1", "--p0", "/no/such/bot",
                             "--p1", _cmd("walker.py")], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "/no/such/bot" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--turn-ms", "0"], "--turn-ms is a whole number of milliseconds"),
    (["--time-scale", "-1"], "--time-scale must be above 0"),
    (["--p0", "./bot --depth {depth}"], "--p0: no value for {depth}"),
    (["--p0", "./bot --x {"], "--p0:"),
])
def test_cli_referee_bad_time_control_or_placeholder_is_one_line(args, words):
    base = {"--p0": _cmd("walker.py"), "--p1": _cmd("walker.py")}
    extra = []
    for flag, value in zip(args[::2], args[1::2]):
        if flag in base:
            base[flag] = value
        else:
            extra += [flag, value]
    result = subprocess.run([sys.executable, "-m", "ocean", "referee", "--seed", "1", "--p0", base["--p0"],
                             "--p1", base["--p1"], *extra], capture_output=True, text=True)
    assert result.returncode == 2 and words in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_program_killed_by_a_signal_is_told_from_a_late_one(tmp_path):
    script = tmp_path / "segv.py"
    script.write_text("import os, signal, sys\nsys.stdin.readline()\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    verdict, _ = referee_game(3, (f"{PY} {script}", _cmd("walker.py")), time=TimeControl(scale=5))
    assert verdict["disqualified"][0] == "crashed, killed by signal 11 (SIGSEGV) (official reason: Timeout!)"


def test_the_referee_fills_in_the_time_control_and_the_seed(tmp_path, unsandboxed):
    log = tmp_path / "told.log"
    busy = PROGRAMS / "busy.py"
    verdict, _ = referee_game(-7, (f"{PY} {busy} --turn-ms {{turn_ms}} --first-turn-ms {{first_turn_ms}} --share 0 "
                                   f"--seed {{game_seed}} --log {log}", _cmd("walker.py")),
                              time=TimeControl(turn_ms=33, first_turn_ms=444, scale=3))
    assert verdict["disqualified"] == [None, None]
    told = json.loads(log.read_text())
    assert (told["turn_ms"], told["first_turn_ms"]) == (33, 444)


def test_the_old_timeout_options_still_work_with_a_warning_and_the_same_limits(tmp_path, unsandboxed):
    # --timeout/--first-timeout were limits (issue 32, item 10): each is played as the time told
    # with --time-scale 1, so the limit is the one the old script asked for; a line of warning each
    log = tmp_path / "told.log"
    busy = f"{PY} {PROGRAMS / 'busy.py'} --turn-ms {{turn_ms}} --first-turn-ms {{first_turn_ms}} --share 0 --log {log}"
    run = subprocess.run([sys.executable, "-m", "ocean", "referee", "--seed", "3", "--p0", busy, "--p1",
                          _cmd("sleeper.py"), "--timeout", "3000", "--first-timeout", "4000", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    warnings = run.stderr.strip().splitlines()
    assert len(warnings) == 2, run.stderr
    for old, new in (("--timeout", "--turn-ms"), ("--first-timeout", "--first-turn-ms")):
        line = next(w for w in warnings if w.startswith(f"warning: {old} is deprecated"))
        assert f"{new} is now what the program is told" in line and "--time-scale" in line and "limit" in line
    assert json.loads(log.read_text()) == {"turn_ms": 3000, "first_turn_ms": 4000, "from": "argv",
                                           "cpus": json.loads(log.read_text())["cpus"]}
    assert json.loads(run.stdout.splitlines()[-1])["disqualified"] == [None, None]  # 2 s sleep within 3000 ms
    mixed = subprocess.run([sys.executable, "-m", "ocean", "referee", "--seed", "3", "--p0", _cmd("walker.py"), "--p1",
                            _cmd("walker.py"), "--timeout", "500", "--turn-ms", "50"], capture_output=True, text=True)
    assert mixed.returncode == 2 and len(mixed.stderr.strip().splitlines()) == 1
    assert "cannot be mixed with --turn-ms" in mixed.stderr
    help_text = subprocess.run([sys.executable, "-m", "ocean", "referee", "--help"], capture_output=True, text=True)
    assert "--turn-ms" in help_text.stdout and "--timeout" not in help_text.stdout  # hidden


def test_each_disqualification_reason_has_one_kind_for_the_counts_people_read():
    # tune test shows each bot's failures by kind (issue 45): the reasons as this referee writes them
    from ocean.constants import ERR_MOVE_VISITED, ERR_UNKNOWN, ERROR_TEXT
    from ocean.referee import TIMEOUT, _closed_reason, failure_kind, failure_kinds

    reasons = {
        TIMEOUT: "timeout",
        _closed_reason(3, "last words"): "crash",
        _closed_reason(-11, ""): "crash",
        _closed_reason(None, ""): "crash",
        _closed_reason(0, ""): "crash",
        _closed_reason(1, "MemoryError"): "memory",
        "bot wrote an answer line over 4,096 bytes: disqualified (official reason: Timeout!)": "output",
        ERROR_TEXT[ERR_MOVE_VISITED]: "illegal",
        ERROR_TEXT[ERR_UNKNOWN]: "illegal",
    }
    assert {reason: failure_kind(reason) for reason in reasons} == reasons
    assert failure_kinds({ERROR_TEXT[ERR_UNKNOWN]: 2, TIMEOUT: 5, _closed_reason(3, "x"): 1,
                          _closed_reason(4, "y"): 2}) == {"timeout": 5, "crash": 3, "illegal": 2}


def test_a_timeout_is_said_after_the_wait_its_deadline_counted_never_less_than_its_limit():
    # The clock starts when the pipe takes the input; a referee that reaches its read later (a
    # busy machine) must still say the wait the deadline counted, not its own shorter one.
    import time as clock

    from ocean._process import BotProcess
    from ocean.referee import TIMEOUT, _answer
    from tests.ocean.test_process import INIT, TURN

    with BotProcess(_cmd("sleeper.py")) as proc:
        proc.send(INIT)
        assert proc.read_line(3000) == "2 1"
        proc.send(TURN)
        clock.sleep(0.06)
        assert _answer(proc, 100) == (None, TIMEOUT)
        assert proc.failed["answer"] == 2 and proc.failed["after_ms"] >= 100
