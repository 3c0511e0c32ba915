"""``ocean arena`` end to end, and the interval it reports."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ocean.arena import pair_interval
from ocean.duel import DUEL_NAMES


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
    # The duel, for both sides of every matchup and per bot over all its games.
    for name, bot in report["statistics"].items():
        assert set(DUEL_NAMES) <= bot.keys(), name
        assert bot["damage_dealt"] == pytest.approx(bot["torpedo_damage_dealt"] + bot["mine_damage_dealt"], abs=0.002)
    for a in report["bots"]:
        for b in report["bots"]:
            if a != b:
                duel, other = m[a][b]["duel"], m[b][a]["duel"]
                assert list(duel) == list(DUEL_NAMES)
                assert duel["first_damage"] + other["first_damage"] <= 1.0
                assert duel["mine_damage_dealt"] == other["mine_damage_taken"]
    assert m["tunable"]["mine"]["duel"] == m["mine"]["tunable"]["duel"]  # one bot under two names: mirrored pairs
    assert m["tunable"]["random"]["duel"]["first_damage"] > m["random"]["tunable"]["duel"]["first_damage"]


def test_arena_table_for_people():
    out = _ocean("--bots", "chaser,random", "--games", "2").stdout
    assert "chaser" in out and "torpedo_hit_rate" in out
    duel = out.split("duel: chaser vs random", 1)[1].splitlines()
    assert duel[0].split() == ["chaser", "random"]
    assert [line.split()[0] for line in duel[1:]] == list(DUEL_NAMES)


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
    scores = np.array([1, 0] * 50, dtype=float)  # every pair split: the bots are even, no spread
    mean, low, high = pair_interval(scores)
    assert mean == 0.5 and low < 0.5 < high  # Wilson stands in: never a zero-width interval
    scores = np.array([1, 1, 0, 0] * 25, dtype=float)
    mean, low, high = pair_interval(scores)
    assert mean == 0.5 and low < 0.4 and high > 0.6


def test_a_sweep_is_printed_with_a_real_interval_and_an_elo_bound():
    out = _ocean("--bots", "chaser,random", "--games", "20").stdout
    row = next(line for line in out.splitlines() if line.startswith("chaser "))
    assert "1.000 [1.00,1.00]" not in row and "[0.7" in row  # was a zero-width 1.000 [1.00, 1.00]
    assert "chaser vs random: +" in out and " or more (every game won)" in out


@pytest.mark.parametrize("args, words", [
    (["--turn-ms", "0"], "--turn-ms is a whole number of milliseconds"),
    (["--first-turn-ms", "-5"], "--first-turn-ms"),
    (["--time-scale", "0"], "--time-scale must be above 0"),
    (["--time-scale", "500"], "at most 100"),
    (["--cwd", "/no/such/folder"], "--cwd"),
])
def test_bad_time_control_input_gets_one_line(args, words):
    result = _ocean("--bots", "random,chaser", "--games", "2", *args, check=False)
    assert result.returncode == 2
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


BUSY = Path(__file__).parent / "programs" / "busy.py"


@pytest.mark.drill
def test_any_command_line_plays_in_the_arena_through_the_referee(tmp_path, unsandboxed):
    # a command line beside a panel name and params:, with a comma inside its quotes; its time
    # control is the arena's, and its answer times and disqualifications come back with its games
    log = tmp_path / "told.log"
    cmd = f'cmd:"{sys.executable} {BUSY} --turn-ms {{turn_ms}} --share 0.5 --log {log} --seed {{game_seed}} --x 1,2"'
    result = _ocean("--bots", f"{cmd},random", "--games", "4", "--workers", "2", "--turn-ms", "12",
                    "--time-scale", "20", "--json")  # generous limits: the machine may be loaded
    report = json.loads(result.stdout.splitlines()[-1])
    name = f"{sys.executable} {BUSY} --turn-ms {{turn_ms}} --share 0.5 --log {log} --seed {{game_seed}} --x 1,2"
    assert report["bots"] == [name, "random"] and report["time"] == {"turn_ms": 12, "first_turn_ms": 1000, "scale": 20.0}
    stats = report["statistics"][name]
    assert stats["games"] == 4 and stats["disqualified"] == 0, stats["first_error"]
    assert 5.5 <= stats["answer_mean_ms"] <= stats["answer_max_ms"] < 240  # half of 12 ms, limit 240
    assert report["statistics"]["random"]["answer_max_ms"] is None  # in-process: not timed
    told = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(told) == 4 and {t["turn_ms"] for t in told} == {12}
    assert all(len(t["cpus"]) == 1 for t in told) and len({t["cpus"][0] for t in told}) >= 1  # each on one CPU
    for mode in ("slot", "none"):  # a CPU held but the games run anywhere; no CPU held
        free = _ocean("--bots", f"{cmd},random", "--games", "2", "--affinity", mode, "--json")
        assert json.loads(free.stdout.splitlines()[-1])["affinity"] == mode
    told = [json.loads(line) for line in log.read_text().splitlines()][4:]
    assert len(told) == 4 and (all(len(t["cpus"]) > 1 for t in told) or len(os.sched_getaffinity(0)) == 1)
    bad = _ocean("--bots", f"{cmd},random", "--games", "2", "--affinity", "all", check=False)
    assert bad.returncode == 2 and "choose one of pin, slot, none" in bad.stderr


def test_a_command_bot_runs_in_its_folder_and_takes_no_parameters(tmp_path):
    import shutil

    shutil.copy(BUSY, tmp_path / "mine.py")
    ok = _ocean("--bots", f"cmd:{sys.executable} mine.py --share 0,random", "--games", "2", "--cwd", str(tmp_path),
                "--json")
    assert json.loads(ok.stdout.splitlines()[-1])["statistics"][f"{sys.executable} mine.py --share 0"]["games"] == 2
    bad = _ocean("--bots", "cmd:./mine.py --depth {depth},random", "--games", "2", check=False)
    assert bad.returncode == 2 and "takes no parameters" in bad.stderr and "{depth}" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    missing = _ocean("--bots", "cmd:./nobody --x,random", "--games", "2", check=False)
    assert missing.returncode == 2 and "nobody" in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    unbalanced = _ocean("--bots", 'cmd:"./x,random', "--games", "2", check=False)
    assert unbalanced.returncode == 2 and "unbalanced" in unbalanced.stderr


def test_bot_names_split_on_commas_outside_quotes():
    from ocean.bots import split_bot_names

    assert split_bot_names('hunter, cmd:"./b --w 1,2" ,params:x.toml') == ["hunter", 'cmd:"./b --w 1,2"', "params:x.toml"]
    assert split_bot_names("cmd:./b --name 'a,b',random") == ["cmd:./b --name 'a,b'", "random"]


def test_both_bots_of_a_matchup_are_scored_by_one_rule_when_they_fail():
    # Two copies of one program that crashes in the games its (seed, side) hash picks: neither is
    # the studied bot, so a game either crashes is its loss, never played again nor set aside.
    # The copies meet each failing (seed, side) equally often, so they come out exactly equal.
    flaky = Path(__file__).parents[1] / "programs" / "flaky.py"
    one = f'cmd:"{sys.executable} {flaky} --share 40 --fail crash --seed {{game_seed}}"'
    two = f'cmd:"{sys.executable} {flaky} --fail crash --share 40 --seed {{game_seed}}"'
    report = json.loads(_ocean("--bots", f"{one},{two}", "--games", "12", "--workers", "2", "--first-turn-ms",
                               "20000", "--time-scale", "20", "--json").stdout.splitlines()[-1])
    a, b = report["bots"]
    cell = report["matrix"][a][b]
    assert cell["wins"] + cell["draws"] + cell["losses"] == 12 and cell["score"] == 0.5, cell
    failed = [report["statistics"][bot]["disqualified"] for bot in (a, b)]
    assert failed[0] == failed[1] > 0, failed
