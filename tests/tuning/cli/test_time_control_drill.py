"""Issue 24's check, end to end in real processes on the session's real Ray: a program that
thinks min(turn_ms, 40) ms a turn (tests/programs/thinker.c around the knob's C build), tuned
twice briefly; at ``[time] turn_ms = 4`` the study plays at least 4 times the games per second
of the same study at 50, the program is told 4, and ``tune plan --json`` and ``tune status
--json`` give their fields; the short study is then validated at the contest's 50 ms."""
import re

import pytest

from tests.programs.build import build_c, build_thinker
from tests.programs.studies import timed_study
from tests.tuning.processes import last_json, run_tune

# Two brief studies of a program that spends its budget, and a validation at 50 ms (~2 min).
pytestmark = pytest.mark.drill

GUARD = 600  # seconds a command may take before it counts as hung (a guard, not a measurement)


def _study(name: str, turn_ms: int, thinker: str, knob: str, log) -> str:
    command = f"{thinker} --turn-ms {{turn_ms}} --log {log} -- {knob} --skill {{skill}} --seed {{game_seed}}"
    return timed_study(name, command, "skill = { low = 0.5, high = 1.0, default = 0.9 }", turn_ms=turn_ms,
                       sampler_seed=2, writable_folder=True)  # the log is in the study's folder


def _rate(launched) -> float:
    return float(re.search(r"\(([0-9.]+) games/s\)", launched.stdout).group(1))


def test_a_short_time_control_plays_four_times_the_games_and_the_program_is_told_it(tmp_path, ray_cluster):
    knob, thinker = build_c(tmp_path / "c"), build_thinker(tmp_path / "c")
    ray = ["--ray-address", ray_cluster]
    storage = ["--storage", f"sqlite:///{tmp_path}/studies.db"]
    rates, logs = {}, {}
    for turn_ms in (50, 4):
        logs[turn_ms] = tmp_path / f"told{turn_ms}.log"
        (tmp_path / f"t{turn_ms}.toml").write_text(_study(f"t{turn_ms}", turn_ms, thinker, knob, logs[turn_ms]))
        launched = run_tune("launch", f"t{turn_ms}.toml", *storage, *ray, cwd=tmp_path, timeout=GUARD)
        rates[turn_ms] = _rate(launched)
        status = last_json(run_tune("status", f"t{turn_ms}", "--json", *storage, cwd=tmp_path))
        assert status["games"]["train"] == 2 * 2 * 8 and status["time_control"]["turn_ms"] == turn_ms
        # A machine shared with other work may make a turn late now and then; a timed-out game ends
        # early, which only raises the 50 ms study's rate (the comparison below stays fair).
        late = sum(d["bot"] for d in status["disqualifications"].values())
        assert late <= 8, status["disqualifications"]
    print(f"training games/s by turn_ms: {rates}")  # shown with pytest -s (docs/benchmarks.md)
    assert rates[4] >= 4 * rates[50], rates
    told = logs[4].read_text().split()
    assert told and set(told) == {"4"}  # every game of the short study, and the launch's check
    assert set(logs[50].read_text().split()) == {"50"}

    plan = last_json(run_tune("plan", "t4", "--json", *storage, cwd=tmp_path))
    assert {"games_per_s", "pair_sd", "detectable_gain", "games_for_gain"} <= set(plan)
    assert plan["games_per_s"] > 0 and plan["detectable_gain"]["per_trial"] > 0

    run_tune("validate", "t4", "--turn-ms", "50", *storage, *ray, cwd=tmp_path, timeout=GUARD)
    assert set(logs[4].read_text().split()) == {"4", "50"}  # the validation told it the contest's 50 ms
    best = last_json(run_tune("status", "t4", "--json", *storage, cwd=tmp_path))["best"]
    assert best["validated"] and best["time_control"]["turn_ms"] == 50
    assert best["verdict"] in ("gain", "no gain shown") and "diff_vs_defaults" in best
    assert (best["verdict"] == "gain") == (best["diff_low"] is not None and best["diff_low"] > 0)
