"""``ocean arena`` end to end, and the interval it reports."""
import json
import subprocess
import sys

import numpy as np
import pytest

from ocean.arena import pair_interval


def _ocean(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ocean", "arena", *args], capture_output=True, text=True, check=check)


def test_arena_prints_the_matrix_and_statistics_as_json(tmp_path):
    from ocean.bots import coefficients as C

    path = tmp_path / "mine.toml"
    C.save_params(C.defaults(), path)
    out = _ocean("--bots", f"tunable,random,hunter-v1,params:{path}", "--games", "6", "--workers", "2", "--json").stdout
    report = json.loads(out.splitlines()[-1])
    assert report["bots"] == ["tunable", "random", "hunter-v1", "mine"]
    assert report["games_per_matchup"] == 6
    m = report["matrix"]
    for a in report["bots"]:
        for b in report["bots"]:
            if a != b:
                cell = m[a][b]
                assert cell["wins"] + cell["draws"] + cell["losses"] == 6
                assert cell["wins"] == m[b][a]["losses"]
                assert cell["ci95"][0] <= cell["score"] <= cell["ci95"][1]
    # The defaults under two names play identically: every pair is one win each.
    assert m["tunable"]["mine"]["score"] == 0.5
    stats = report["statistics"]["random"]
    assert stats["games"] == 18 and {"surfaces", "torpedo_hit_rate", "mine_damage_taken", "silences", "game_turns"} <= stats.keys()


def test_arena_table_for_people():
    out = _ocean("--bots", "chaser,random", "--games", "2").stdout
    assert "chaser" in out and "torpedo_hit_rate" in out


@pytest.mark.parametrize("args, words", [
    (["--bots", "tunable"], "at least two bots"),
    (["--bots", "tunable,nobody"], "unknown bot 'nobody'"),
    (["--bots", "tunable,random", "--games", "1"], "--games"),
    (["--bots", "tunable,tunable"], "once"),
    (["--bots", "tunable,params:nope.toml"], "cannot read"),
])
def test_bad_arena_input_gets_one_line_and_exit_code_2(args, words):
    result = _ocean(*args, check=False)
    assert result.returncode == 2
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_pair_interval_uses_pairs_as_the_unit():
    scores = np.array([1, 0] * 50, dtype=float)  # every pair split: the bots are even
    mean, low, high = pair_interval(scores)
    assert mean == 0.5 and low == high == 0.5
    scores = np.array([1, 1, 0, 0] * 25, dtype=float)
    mean, low, high = pair_interval(scores)
    assert mean == 0.5 and low < 0.4 and high > 0.6
