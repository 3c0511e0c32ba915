"""Joining Ray as the README's first command does: no address, a local Ray started by ``tune``
itself in a fresh process, with nothing about Ray in the environment."""
import os
import shlex
import subprocess
import sys
import textwrap

import pytest

from tests.tuning.processes import last_json, run_tune

LOCAL = textwrap.dedent("""
    name = "local"
    n_trials = 2
    panel = ["random"]
    seed_bank = { start = 700, count = 2 }
    batch_pairs = 1

    [search]
    silence_cost = {}
""")


@pytest.mark.drill
def test_launch_starts_its_own_local_ray_quietly(tmp_path, monkeypatch):
    for key in [k for k in os.environ if k.startswith("RAY_")] + ["OCEAN_STORAGE"]:
        monkeypatch.delenv(key, raising=False)
    (tmp_path / "local.toml").write_text(LOCAL)
    launched = run_tune("launch", "local.toml", cwd=tmp_path)
    assert f"{os.cpu_count()} Ray CPUs" in launched.stdout + launched.stderr
    assert "Token authentication" not in launched.stderr
    status = last_json(run_tune("status", "local", "--json", cwd=tmp_path))
    assert status["trials"]["complete"] == 2 and status["games"]["train"] == 2 * 2 * 2  # trials x maps x sides


PRUNED = textwrap.dedent("""
    name = "pruned"
    n_trials = 8
    trials_in_flight = 2
    panel = ["balanced"]
    seed_bank = { start = 3000, count = 60 }
    batch_pairs = 5

    [sampler]
    kind = "random"
    seed = 4

    [search]
    torpedo_hit_threshold = {}
    torpedo_hit_threshold_before = {}
    silence_cost = {}

    [pruning]
    alpha = 0.2
    min_pairs = 10
""")


@pytest.mark.drill
def test_launch_from_a_script_in_the_background_cancels_quietly(tmp_path):
    """``tune launch ... &`` in a bash script (SIGINT ignored, inherited by Ray): pruned trials'
    batches are cancelled without an error line in the log."""
    (tmp_path / "pruned.toml").write_text(PRUNED)
    script = f"{shlex.quote(sys.executable)} -m tuning launch pruned.toml > launch.log 2>&1 & wait $!"
    run = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    log = (tmp_path / "launch.log").read_text()
    assert run.returncode == 0, log[-3000:]
    status = last_json(run_tune("status", "pruned", "--json", cwd=tmp_path))
    assert status["trials"]["pruned"] >= 1, status["trials"]
    for noise in ("ERROR", "Unhandled error", "Traceback", "not callable"):
        assert noise not in log, log[-3000:]
