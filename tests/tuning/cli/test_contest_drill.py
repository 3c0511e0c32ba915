"""Issue 24 item 8, end to end in real processes: the example C bot on its own timer
(studies/examples/mybot.c, ``--think 0.8 --turn-ms {turn_ms}``) tuned at a short time control
(``[time] turn_ms = 5``) against a mixed panel (the in-process ``random`` and a frozen program,
the knob's C build), its driver killed with games in flight and resumed, then validated at the
contest's 50 ms, with the verdict stated."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.chaos import DriverProcess, duplicate_rows, read_digest
from tests.programs.build import build_c
from tests.programs.studies import timed_study
from tests.tuning.processes import last_json, run_tune

# A program study killed and resumed, then validated at 50 ms a turn (~3 min on 2 loaded cores).
pytestmark = pytest.mark.drill

GUARD = 600  # seconds a command may take before it counts as hung (a guard, not a measurement)
EXAMPLE = Path(__file__).resolve().parents[3] / "studies" / "examples" / "mybot.c"


def _study(mybot: str) -> str:
    command = f"{mybot} --fire_probability {{fire_probability}} --turn-ms {{turn_ms}} --think 0.8 --seed {{game_seed}}"
    return timed_study("contest", command, "fire_probability = { low = 0.3, high = 1.0, default = 0.9 }",
                       turn_ms=5, panel=("random", "knobc-v1"), n_trials=3, first_map=30, batch_pairs=1,
                       sampler_seed=3, validation_games=8)  # tune short


def test_a_timed_c_bot_tuned_short_killed_resumed_and_validated_at_the_contests_time(tmp_path, ray_cluster,
                                                                                      user_panels):
    mybot = tmp_path / "mybot"
    subprocess.run(["cc", "-O2", "-o", str(mybot), str(EXAMPLE), "-lm"], check=True)
    knob = build_c(tmp_path / "c")
    frozen = subprocess.run([sys.executable, "-m", "ocean", "panel", "add", "knobc-v1", "--time-scale", "20",
                             "--command", f"{knob} --skill 0.95 --seed {{game_seed}}"],
                            capture_output=True, text=True, env={**os.environ}, timeout=GUARD)
    assert frozen.returncode == 0, frozen.stderr
    (tmp_path / "contest.toml").write_text(_study(str(mybot)))
    url = f"sqlite:///{tmp_path}/contest.db"
    env = {**os.environ, "OCEAN_STORAGE": url, "PYTHONUNBUFFERED": "1"}
    ray = ["--ray-address", ray_cluster]

    driver = DriverProcess(["launch", "contest.toml", *ray], cwd=tmp_path, env=env, index=0)
    deadline = time.monotonic() + GUARD
    while len(read_digest(url, "contest").rows) < 6:  # some batches stored, others in flight
        assert driver.poll() is None, driver.stderr()[-2000:]
        assert time.monotonic() < deadline, "no games stored"
        time.sleep(0.05)
    os.killpg(driver.pid, signal.SIGKILL)  # the driver and the programs it started
    driver.proc.wait()
    stored = read_digest(url, "contest").rows
    run_tune("resume", "contest", "--storage", url, *ray, cwd=tmp_path, timeout=GUARD)
    after = read_digest(url, "contest")
    assert all(after.rows[key] == content for key, content in stored.items())  # nothing finished is lost
    assert duplicate_rows(url, "contest") == 0
    status = last_json(run_tune("status", "contest", "--json", "--storage", url, cwd=tmp_path))
    assert status["trials"]["complete"] == 3 and status["games"]["train"] == 3 * 2 * 8
    assert status["time_control"]["turn_ms"] == 5

    validated = run_tune("validate", "contest", "--turn-ms", "50", "--storage", url, *ray, cwd=tmp_path,
                         timeout=GUARD)
    assert "at 50 ms a turn, 1000 ms the first (limits x20: 1000 and 20000 ms): best trial" in validated.stdout
    status = last_json(run_tune("status", "contest", "--json", "--storage", url, cwd=tmp_path))
    best = status["best"]
    assert best["validated"] and best["time_control"] == {"turn_ms": 50, "first_turn_ms": 1000, "scale": 20.0}
    assert best["verdict"] == ("gain" if best["diff_low"] is not None and best["diff_low"] > 0 else "no gain shown")
    # the race and the judged half: the chosen set and the defaults, 2 opponents, 8 games each; then
    # head to head, the SPRT's one round over the 2 held-out maps it may use, both sides
    assert status["games"]["validate"] == 2 * 2 * 8 + 2 * 2
    exported = run_tune("export", "contest", "--format", "toml", "--storage", url, cwd=tmp_path, check=False)
    if best["verdict"] == "gain":
        assert exported.returncode == 0 and "validated_turn_ms = 50" in exported.stdout
        assert "tuned_turn_ms = 5" in exported.stdout
    else:
        assert exported.returncode == 2 and "no gain over the defaults shown" in exported.stderr
