"""One end-to-end test per ``ocean`` command (the referee's live in test_referee.py)."""
import json
import subprocess
import sys

import pytest

from tests.ocean.reference_rules import reference_map


def _ocean(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ocean", *args], capture_output=True, text=True, check=check)


def test_map_prints_the_referee_rows():
    out = _ocean("map", "--seed", "-5").stdout.splitlines()
    assert out == reference_map(-5)


def test_map_count_prints_one_line_per_seed_including_the_64_bit_edge():
    top = 2**63 - 1
    lines = _ocean("map", "--seed", str(top - 2), "--count", "3").stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == [str(top - 2), str(top - 1), str(top)]
    for line in lines:
        seed, cells = line.split(" ")
        assert cells == "".join(reference_map(int(seed)))


@pytest.mark.parametrize("args, words", [
    (["map", "--seed", str(2**63)], "64-bit"),
    (["map", "--seed", "1", "--count", "0"], "--count"),
    (["map", "--seed", str(2**63 - 1), "--count", "2"], "64-bit"),
    (["play", "--seed", "1", "--p0", "nobody"], "random"),
    (["bench", "--bots", "--tracking"], "one of"),
    (["bench", "--games", "3"], "--games"),
    (["bench", "--bots", "--program", "./x"], "one of"),
    (["bench", "--program", "./no-such-bot", "--games", "10"], "no-such-bot"),
])
def test_bad_input_gets_one_line_and_exit_code_2(args, words):
    result = _ocean(*args, check=False)
    assert result.returncode == 2
    assert words in result.stderr and "Traceback" not in result.stderr


def test_play_writes_a_replay_and_prints_the_verdict(tmp_path):
    replay = tmp_path / "r.json"
    result = _ocean("play", "--seed", "3", "--p0", "chaser", "--p1", "random", "--json", "--replay", str(replay))
    verdict = json.loads(result.stdout.splitlines()[-1])
    data = json.loads(replay.read_text())
    assert data["result"] == verdict and data["players"] == ["chaser", "random"]
    assert verdict["winner"] in (0, 1, -1) and verdict["turns"] == len(data["turns"])


def test_bench_json_reports_the_figures():
    result = _ocean("bench", "--json", "--games", "200", "--skip-startup")
    figures = json.loads(result.stdout.splitlines()[-1])
    assert figures["games"] == 200
    assert figures["player_turns_per_s"] > 0 and figures["games_per_s"] > 0
    assert figures["player_turns"] >= 200


def test_bench_tracking_reports_candidate_cells_and_update_cost():
    figures = json.loads(_ocean("bench", "--tracking", "--games", "12", "--json").stdout.splitlines()[-1])
    for matchup in ("random_vs_random", "chaser_vs_random"):
        assert figures[matchup]["truth_lost_safe"] == 0
        assert figures[matchup]["median_candidate_cells"]["turn_10"] > 0
        assert 0 < figures[matchup]["update_us"]["p50"] <= figures[matchup]["update_us"]["p99"]
    assert figures["silence_every_turn"]["truth_lost_safe"] == 0
    assert figures["updates_at_cap"]["count"] > 0  # the stress walk does reach the cap


def test_bench_bots_reports_decision_times_and_game_rates():
    figures = json.loads(_ocean("bench", "--bots", "--games", "10", "--json").stdout.splitlines()[-1])
    assert set(figures["decision_time"]) >= {"tunable", "tunable-v2", "random-v1", "chaser-v1", "hunter-v1", "stealth-v1",
                                             "miner-v1", "balanced-v1"}
    assert all(v["mean_us"] > 0 and v["p99_us"] >= v["mean_us"] * 0.5 for v in figures["decision_time"].values())
    for bot in ("tunable", "tunable_v2"):  # the v1 and v2 bots in the same run
        assert figures[f"{bot}_vs_panel_games_per_s_overall"] > 0
        assert figures[f"{bot}_vs_panel_games_per_cpu_s"] > 0
    assert figures["bot_program_startup_s"] > 0


def test_bench_program_reports_the_referee_cost_and_game_rates(tmp_path):
    from tests.programs.build import build_c

    knob = build_c(tmp_path)
    figures = json.loads(_ocean("bench", "--program", f"{knob} --skill 1 --seed {{game_seed}}", "--games", "10",
                                "--json").stdout.splitlines()[-1])
    assert figures["games"] == 10
    assert 0 < figures["referee_turn_us"] and 0 < figures["pipe_floor_us"] <= figures["pipe_roundtrip_us"] * 1.5
    assert figures["referee_cost_per_turn_us"] == round(figures["referee_turn_us"] + figures["pipe_roundtrip_us"], 1)
    for label in ("in_process_vs_program", "program_vs_program"):
        assert figures[label]["games_per_s"] > 0 and figures[label]["disqualified_games"] == 0


def test_help_is_available_on_every_command():
    for command in ("map", "referee", "play", "bench", "track", "bot", "arena", "replay"):
        assert "Usage" in _ocean(command, "--help").stdout


def test_warmup_loads_every_kernel_family_and_the_bot_then_starts_without_the_hint():
    out = _ocean("warmup")
    from ocean.warmup import AOT_STEP

    families = ["bot program (ocean bot)", "in-process games (arena, studies)", "replays and tracking", AOT_STEP]
    # each step said before it runs (a newcomer sees what it is doing), then its time; indented
    # lines: the kernels compiled and each ahead-of-time module built (none once built)
    said = [line for line in out.stderr.splitlines() if not line.startswith(("  ", "compiling the kernels"))]
    lines = [line.split(":")[0] for line in said]
    expected = [f for f in families for _ in range(2)]
    assert lines in (expected, ["parallel compile (2 processes)"] + expected), out.stderr  # the latter: empty cache
    assert [line.endswith("...") for line in said[-8:]] == [True, False] * 4
    assert out.stdout.startswith("compiled kernels ready in ")
    quiet = subprocess.run([sys.executable, "-m", "ocean", "bot"], input="", capture_output=True, text=True)
    assert quiet.returncode == 0 and quiet.stderr == ""


@pytest.mark.drill
def test_warmup_all_also_loads_the_bots_compiled_on_first_use():
    out = _ocean("warmup", "--all")
    from ocean.bots import registry, resolve_bot

    assert f"bots compiled on first use ({', '.join(registry.FIRST_USE_POLICIES)})" in out.stderr
    assert "tunable-v3" in registry.FIRST_USE_POLICIES
    from ocean.warmup import program_is_compiled

    assert program_is_compiled(resolve_bot("tunable-v3").kind)


def test_an_ocean_bot_command_is_checked_for_the_bot_it_plays(tmp_path):
    from ocean.bots import resolve_bot
    from ocean.cli import _ocean_bot_kind, _warmup_command

    v3 = resolve_bot("tunable-v3").kind
    params = tmp_path / "v3.toml"
    from ocean.bots import coefficients as C

    C.save_params(C.defaults(C.V3), params, policy=C.V3)
    assert _ocean_bot_kind("ocean bot --name tunable-v3") == v3
    assert _ocean_bot_kind(f"ocean bot --params={params}") == v3
    assert _ocean_bot_kind("ocean bot") == resolve_bot("tunable").kind
    assert _ocean_bot_kind("ocean bot --name nobody") is None
    assert _warmup_command(v3) == "ocean warmup --all"
    assert _warmup_command(resolve_bot("hunter-v2").kind) == "ocean warmup"


@pytest.mark.drill
def test_bot_says_on_stderr_when_it_must_compile_first(tmp_path):
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache: nothing compiled yet
    cold = subprocess.run([sys.executable, "-m", "ocean", "bot"], input="", capture_output=True, text=True, env=env)
    assert cold.returncode == 0 and cold.stdout == ""
    assert "run `ocean warmup` after installing" in cold.stderr
    # the v3 bot is compiled by `ocean warmup --all` only: the hint says so
    v3 = subprocess.run([sys.executable, "-m", "ocean", "bot", "--name", "tunable-v3"], input="", capture_output=True,
                        text=True, env=env)
    assert v3.returncode == 0 and "run `ocean warmup --all` after installing" in v3.stderr


def test_referee_refuses_an_uncompiled_ocean_bot_before_the_game_instead_of_losing_it(tmp_path):
    # An empty kernel cache: `ocean bot` would compile inside CodinGame's 1000 ms and be
    # disqualified at turn 0 for a timeout the user did not cause.
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache")}
    for command in ("ocean bot", f"{sys.executable} -m ocean bot --name hunter"):
        result = subprocess.run([sys.executable, "-m", "ocean", "referee", "--seed", "3", "--p0", command,
                                 "--p1", "ocean bot --name chaser"], capture_output=True, text=True, env=env,
                                timeout=120)
        assert result.returncode == 2, result.stdout
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "--p0 runs `ocean bot`" in lines[0] and "ocean warmup" in lines[0]
    assert not (tmp_path / "empty-cache").exists() or not any((tmp_path / "empty-cache").rglob("*.nbi"))
