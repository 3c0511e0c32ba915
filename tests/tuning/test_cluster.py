"""Joining Ray as the README's first command does: no address, a local Ray started by ``tune``
itself in a fresh process, with nothing about Ray in the environment."""
import os
import textwrap

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


def test_launch_starts_its_own_local_ray_quietly(tmp_path, monkeypatch):
    for key in [k for k in os.environ if k.startswith("RAY_")] + ["OCEAN_STORAGE"]:
        monkeypatch.delenv(key, raising=False)
    (tmp_path / "local.toml").write_text(LOCAL)
    launched = run_tune("launch", "local.toml", cwd=tmp_path)
    assert f"{os.cpu_count()} Ray CPUs" in launched.stdout + launched.stderr
    assert "Token authentication" not in launched.stderr
    status = last_json(run_tune("status", "local", "--json", cwd=tmp_path))
    assert status["trials"]["complete"] == 2 and status["games"]["train"] == 2 * 2 * 2  # trials x maps x sides
