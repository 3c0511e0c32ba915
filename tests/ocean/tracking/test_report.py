"""``ocean track`` end to end: replays of real programs through ``ocean referee``, and of
in-process games through ``ocean play``; bad replays get one line and exit code 2."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ocean.replay import load_replay
from ocean.tracking import replay_beliefs, track_replay

PROGRAMS = Path(__file__).parents[1] / "programs"


def _ocean(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True, check=check)


def _program(name: str, seed: int) -> str:
    return f"{sys.executable} {PROGRAMS / name} {seed}"


@pytest.mark.parametrize("seed, p0, p1", [
    (11, "stormy.py", "stormy.py"), (12, "stormy.py", "walker.py"), (13, "walker.py", "stormy.py"),
    (-7, "stormy.py", "stormy.py"),
])
def test_track_follows_real_programs_and_never_loses_them(tmp_path, seed, p0, p1):
    replay = tmp_path / "game.json"
    _ocean("referee", "--seed", str(seed), "--p0", _program(p0, seed), "--p1", _program(p1, seed + 1),
           "--replay", str(replay))
    lines = _ocean("track", "--replay", str(replay), "--json").stdout.splitlines()
    summary = json.loads(lines[-1])
    rows = [json.loads(line) for line in lines[:-1]]
    turns = len(load_replay(replay)["turns"])
    assert summary["turns_checked"] == turns == len(rows)
    assert summary["truth_lost"]["safe"] == 0
    assert all(r["safe"]["truth_inside"] for r in rows)
    assert {"median_candidate_cells", "update_us_p50", "update_us_p99"} <= summary.keys()
    assert 0 < summary["update_us_p50"] <= summary["update_us_p99"]
    assert all(0.0 < r["safe"]["p_true_cell"] <= 1.0 for r in rows)


def test_track_prints_a_table_for_people(tmp_path):
    replay = tmp_path / "game.json"
    _ocean("play", "--seed", "4", "--p0", "random", "--p1", "chaser", "--replay", str(replay))
    out = _ocean("track", "--replay", str(replay)).stdout
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["turn", "obs"]
    assert any(line.strip().startswith("truth_lost: {'safe': 0") for line in lines)


def test_beliefs_give_each_turn_the_movers_view(tmp_path):
    replay = tmp_path / "game.json"
    _ocean("play", "--seed", "6", "--replay", str(replay))
    data = load_replay(replay)
    beliefs = replay_beliefs(data)
    assert len(beliefs) == len(data["turns"])
    for entry, views in zip(data["turns"], beliefs):
        mine = views[entry["player"]]
        assert views[1 - entry["player"]] is None
        assert len(mine) == 225 and abs(sum(mine) - 1.0) < 1e-3


def test_edited_or_foreign_files_are_refused_with_one_line(tmp_path):
    replay = tmp_path / "game.json"
    _ocean("play", "--seed", "8", "--replay", str(replay))
    data = json.loads(replay.read_text())
    data["turns"][5]["output"] = "SURFACE"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2")
    for path, words in ((edited, "turn"), (junk, "replay"), (tmp_path / "missing.json", "missing.json")):
        result = _ocean("track", "--replay", str(path), check=False)
        assert result.returncode == 2, path
        assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    with pytest.raises(ValueError):
        track_replay(data)
    result = _ocean("track", "--replay", str(replay), "--cap", "10", check=False)
    assert result.returncode == 2 and "--cap" in result.stderr
