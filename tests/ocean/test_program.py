"""``ocean bot`` end to end: in-process bots as real CodinGame programs under
``ocean referee``, and user mistakes."""
import json
import subprocess
import sys

import pytest

from ocean.bots import coefficients as C


def _ocean(*args: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True, check=check, **kw)


def _bot(*args: str) -> str:
    return " ".join([sys.executable, "-m", "ocean", "bot", *args])


@pytest.fixture(scope="module", autouse=True)
def compiled_program():
    """Compile (or load) the program's kernels once, before any game with time limits."""
    from ocean.maps import generate_map, map_rows

    lines = "\n".join(["15 15 0"] + map_rows(generate_map(1))) + "\n"
    _ocean("bot", input=lines, timeout=900)


@pytest.mark.parametrize("seed, p0, p1", [
    (21, ("--name", "hunter"), ("--name", "stealth-v1")),
    (22, ("--name", "miner"), ("--name", "random", "--seed", "3")),
    (23, ("--name", "chaser"), ()),
])
def test_bots_play_whole_games_as_programs_and_are_tracked(tmp_path, seed, p0, p1):
    replay = tmp_path / "game.json"
    # A generous first answer: CI machines are slow; `ocean bench --bots` measures start-up.
    verdict = json.loads(_ocean("referee", "--seed", str(seed), "--p0", _bot(*p0), "--p1", _bot(*p1),
                                "--first-turn-ms", "10000", "--replay", str(replay), "--json").stdout.splitlines()[-1])
    assert verdict["disqualified"] == [None, None]
    assert verdict["reason"] in ("life", "maxturns")
    summary = json.loads(_ocean("track", "--replay", str(replay), "--json").stdout.splitlines()[-1])
    assert summary["truth_lost"]["safe"] == 0 and summary["turns_checked"] == verdict["turns"]


def test_exported_coefficients_play_through_the_program(tmp_path):
    params = C.defaults()
    params["stealth_weight"] = 0.9
    path = tmp_path / "best.toml"
    C.save_params(params, path, provenance={"study": "test"})
    verdict = json.loads(_ocean("referee", "--seed", "24", "--p0", _bot("--params", str(path)), "--p1", _bot("--name", "random"),
                                "--first-turn-ms", "10000", "--json").stdout.splitlines()[-1])
    assert verdict["disqualified"] == [None, None] and verdict["winner"] == 0


def test_the_program_answers_the_protocol_line_by_line():
    from ocean.maps import generate_map, map_rows

    lines = ["15 15 1"] + map_rows(generate_map(7)) + ["NA"]
    proc = subprocess.Popen([sys.executable, "-m", "ocean", "bot", "--name", "balanced"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    proc.stdin.write("\n".join(lines[:-1]) + "\n")
    proc.stdin.flush()
    x, y = (int(v) for v in proc.stdout.readline().split())
    proc.stdin.write(f"{x} {y} 6 6 3 4 6 3\nNA\nMOVE N|TORPEDO 3 3\n")
    proc.stdin.flush()
    answer = proc.stdout.readline().strip()
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert answer.split("|")[0].split(" ")[0] in ("MOVE", "SURFACE", "SILENCE", "TORPEDO")


@pytest.mark.parametrize("args, words", [
    (["--name", "nobody"], "unknown bot 'nobody'"),
    (["--params", "missing.toml"], "cannot read"),
    (["--params", "x.toml", "--name", "random"], "not both"),
])
def test_bad_bot_options_get_one_line_and_exit_code_2(args, words):
    result = _ocean("bot", *args, check=False, input="")
    assert result.returncode == 2
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_out_of_bounds_params_name_the_key_and_range(tmp_path):
    path = tmp_path / "bad.toml"
    C.save_params(C.defaults(), path)
    path.write_text(path.read_text().replace("discount = 0.95", "discount = 1.5"))
    result = _ocean("bot", "--params", str(path), check=False, input="")
    assert result.returncode == 2 and "discount = 1.5 is out of bounds" in result.stderr and "0.995" in result.stderr
