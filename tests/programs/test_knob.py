"""The knob test bots (knob.py, knob.c, Knob.java) built and played through ``ocean referee``.

The three are one bot: given the same arguments they print the same lines, so a game's
replay does not depend on which language plays which side."""
import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from ocean.referee import referee_game
from ocean.timecontrol import TimeControl
from tests.programs import build

FIRST_MS = 5000  # generous: the machine is loaded and the JVM starts slowly
TURN_MS = 1000
LANGS = ("py", "c", "java")


@pytest.fixture(scope="module")
def knobs(tmp_path_factory):
    dest = tmp_path_factory.mktemp("knob-build")
    return {"py": build.python_command(), "c": build.build_c(dest / "c"), "java": build.build_java(dest / "java")}


@pytest.fixture(autouse=True)
def _no_ambient_skill(monkeypatch):
    monkeypatch.delenv("KNOB_SKILL", raising=False)


def _cmd(base: str, *args, env: str | None = None) -> str:
    prefix = f"env KNOB_SKILL={shlex.quote(env)} " if env is not None else ""
    return prefix + " ".join([base, *(shlex.quote(str(a)) for a in args)])


def _play(seed, p0, p1):
    return referee_game(seed, (p0, p1), time=TimeControl(turn_ms=TURN_MS, first_turn_ms=FIRST_MS))


def _lines(data) -> str:
    """Everything the programs were sent and printed (not the command lines)."""
    return json.dumps([data["start_output"], [(t["player"], t["input"], t["output"]) for t in data["turns"]]])


# ------------------------------------------------------------------ building


def test_build_helpers_name_runnable_commands(knobs, tmp_path):
    assert os.path.isabs(knobs["c"]) and os.access(knobs["c"], os.X_OK)
    java = shlex.split(knobs["java"])
    assert java[:2] == ["java", "-cp"] and java[3] == "Knob" and os.path.isabs(java[2])
    assert (Path(java[2]) / "Knob.class").is_file()
    assert shlex.split(knobs["py"])[1] == str(Path(build.__file__).resolve().parent / "knob.py")


@pytest.mark.parametrize("source, helper", [("knob.c", "build_c"), ("Knob.java", "build_java")])
def test_a_compile_error_raises_with_the_compiler_message(tmp_path, monkeypatch, source, helper):
    broken = tmp_path / "src"
    broken.mkdir()
    (broken / source).write_text("int nope(void) { return nope_at_all; }\n")
    monkeypatch.setattr(build, "HERE", broken)
    with pytest.raises(RuntimeError, match="nope_at_all"):
        getattr(build, helper)(tmp_path / "out")


# ---------------------------------------------------------------- the games


def test_the_three_languages_play_the_same_legal_game(knobs):
    """At skill 1 nobody is disqualified, and every pairing (itself and the others) prints
    exactly the same lines."""
    games = []
    for a, b in [("c", "c"), ("py", "c"), ("c", "java"), ("java", "py")]:
        verdict, data = _play(21, _cmd(knobs[a], "--skill", "1.0", "--seed", 1),
                              _cmd(knobs[b], "--skill", "1.0", "--seed", -2))
        assert verdict["disqualified"] == [None, None], (a, b, verdict)
        assert verdict["reason"] != "disqualified" and verdict["turns"] > 40
        assert all(t["output"] and not any(x["fallback"] for x in t["actions"]) for t in data["turns"])
        games.append(_lines(data))
    assert len(set(games)) == 1


def test_same_seed_and_args_replay_identically_and_another_seed_changes_the_game(knobs):
    p0 = _cmd(knobs["py"], "--skill", "0.8", "--seed", 12345678901234)
    p1 = _cmd(knobs["c"], "--skill", "0.8", "--seed", 7)
    first = _play(8, p0, p1)
    second = _play(8, p0, p1)
    assert first[0] == second[0] and _lines(first[1]) == _lines(second[1])
    assert json.dumps(first[1]["turns"]) == json.dumps(second[1]["turns"])
    for other in (-1, 2**63 - 1, 3):
        _, data = _play(8, _cmd(knobs["py"], "--skill", "0.8", "--seed", other), p1)
        assert _lines(data) != _lines(first[1]), other


@pytest.mark.parametrize("seed", [2, 5, 13])
def test_skill_zero_loses_clearly_to_skill_one(knobs, seed):
    weak, strong = _cmd(knobs["c"], "--skill", "0", "--seed", seed), _cmd(knobs["py"], "--skill", "1", "--seed", seed)
    for side in (0, 1):
        verdict, data = _play(seed, *((weak, strong) if side == 0 else (strong, weak)))
        assert verdict["winner"] == 1 - side and verdict["reason"] == "life"
        assert verdict["scores"][side] == 0 and verdict["scores"][1 - side] >= 4
        weak_lines = [t["output"] for t in data["turns"] if t["player"] == side]
        assert weak_lines.count("SURFACE") >= 3 and not any("TORPEDO " in line for line in weak_lines)


# -------------------------------------------------------- parameter sources


@pytest.mark.parametrize("lang", LANGS)
def test_env_then_params_file_then_argument(knobs, tmp_path, lang):
    toml = tmp_path / "params.toml"
    toml.write_text("# knob parameters\n\n[knob]\nother = 3  # ignored\nskill = 0.0   # the one\nname = 'x'\n")
    toml_without = tmp_path / "other.toml"
    toml_without.write_text("other = 1.0\n")
    js = tmp_path / "params.json"
    js.write_text('  {"other": [1, {"a": "b"}], "skill": 1.0, "flag": true}\n')
    opponent = _cmd(knobs["c"], "--seed", 99)

    def game(*args, env=None):
        return _lines(_play(4, _cmd(knobs[lang], "--seed", 3, *args, env=env), opponent)[1])

    weak, strong = game("--skill", "0.0"), game("--skill", "1")
    default = game()
    assert len({weak, strong, default}) == 3
    assert game("--skill", "0.5") == default
    assert game(env="0") == weak  # environment
    assert game("--params-file", toml_without, env="0") == weak  # a file without skill keeps it
    assert game("--params-file", toml, env="1") == weak  # file over environment (name = value)
    assert game("--params-file", js, env="0") == strong  # file over environment (JSON)
    assert game("--params-file", toml, "--skill", "1", env="1") == strong  # argument over both
    assert game("--skill=7", "--params-file", js) == strong  # clamped into [0, 1]


@pytest.mark.parametrize("lang", LANGS)
def test_bad_arguments_exit_2_with_one_line(knobs, tmp_path, lang):
    for args in (["--bogus"], ["--skill", "high"], ["--seed", "1.5"], ["--seed", str(2**63)],
                 ["--params-file", str(tmp_path / "missing.toml")], ["--skill"]):
        result = subprocess.run(shlex.split(_cmd(knobs[lang], *args)), input="", capture_output=True,
                                text=True, timeout=30)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stdout == "" and result.stderr.count("\n") == 1 and "knob" in result.stderr, args


@pytest.mark.parametrize("lang", LANGS)
def test_exits_cleanly_when_its_input_closes(knobs, lang):
    _, data = _play(6, _cmd(knobs["c"]), _cmd(knobs["c"]))
    init = "\n".join(data["init_input"][0]) + "\n"
    turn = "\n".join(data["turns"][0]["input"]) + "\n"
    for text, lines in ((init, 1), (init + turn, 2), ("", 0)):
        result = subprocess.run(shlex.split(knobs[lang]), input=text, capture_output=True, text=True, timeout=30)
        assert result.returncode == 0 and result.stderr == ""
        assert result.stdout.splitlines() == ([data["start_output"][0]] + [data["turns"][0]["output"]])[:lines]


# --------------------------------------------------- knob.py's failure modes


@pytest.fixture(scope="module")
def flawless(knobs):
    return _play(10, _cmd(knobs["py"], "--skill", "0.5"), _cmd(knobs["c"], "--seed", 1))


@pytest.mark.parametrize("mode, reason", [
    ("crash", "crashed, exit code 3"),
    ("garbage", "Unknown command"),
    ("timeout", "Timeout!"),
])
def test_a_flaw_disqualifies_on_the_third_turn_only_above_its_threshold(knobs, flawless, mode, reason):
    opponent = _cmd(knobs["c"], "--seed", 1)
    verdict, data = _play(10, _cmd(knobs["py"], "--skill", "0.6", "--flaw", mode, "--flaw-above", "0.5"), opponent)
    assert verdict["reason"] == "disqualified" and verdict["winner"] == 1 and verdict["scores"][0] == -1
    assert verdict["disqualified"][1] is None
    why = verdict["disqualified"][0]
    assert why == reason if mode != "crash" else why.startswith(reason), why
    mine = [t["output"] for t in data["turns"] if t["player"] == 0]
    assert len(mine) == 3 and all(mine[:2])
    assert mine[2] == ("HELLO WORLD" if mode == "garbage" else None)

    # At the threshold (not above it) the flaw stays silent: the very game of no flaw.
    verdict, data = _play(10, _cmd(knobs["py"], "--skill", "0.5", "--flaw", mode, "--flaw-above", "0.5"), opponent)
    assert verdict == flawless[0] and _lines(data) == _lines(flawless[1])
    assert verdict["disqualified"] == [None, None] and verdict["turns"] > 5


def test_start_delay(knobs, flawless):
    late = _cmd(knobs["py"], "--skill", "0.5", "--start-delay-ms", 1500)
    verdict, _ = referee_game(10, (late, _cmd(knobs["c"], "--seed", 1)), time=TimeControl(turn_ms=TURN_MS))
    assert verdict["disqualified"] == ["Timeout!", None] and verdict["turns"] == 0
    verdict, data = _play(10, _cmd(knobs["py"], "--skill", "0.5", "--start-delay-ms", 200), _cmd(knobs["c"], "--seed", 1))
    assert _lines(data) == _lines(flawless[1])
