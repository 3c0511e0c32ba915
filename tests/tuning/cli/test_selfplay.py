"""Studies that play the studied bot itself, end to end (real processes, SQLite, the session's
Ray): a panel naming ``self``, and head-to-head SPSA."""
import textwrap

import pytest

from tests.tuning.processes import last_json, run_tune

SELF_PANEL = textwrap.dedent("""
    name = "selfish"
    n_trials = 2
    trials_in_flight = 1
    panel = ["self", "random"]
    seed_bank = { start = 100, count = 3 }
    batch_pairs = 3

    [sampler]
    kind = "spsa"
    seed = 5

    [search]
    silence_cost = {}
    stealth_weight = { low = 0.01, log = true }

    [validation]
    seeds = { start = 9000, count = 8 }
    games = 8
    top_k = 1
    panel = ["self", "chaser"]
""")

HEAD_TO_HEAD = textwrap.dedent("""
    name = "duel"
    n_trials = 4
    trials_in_flight = 1
    panel = ["random", "chaser"]
    seed_bank = { start = 100, count = 40 }
    games_per_opponent = 6
    batch_pairs = 3

    [sampler]
    kind = "spsa"
    seed = 5
    scoring = "head-to-head"

    [search]
    silence_cost = {}
    stealth_weight = { low = 0.01, log = true }

    [validation]
    seeds = { start = 9000, count = 8 }
    games = 8
""")


@pytest.mark.drill
def test_a_study_whose_panel_names_its_own_bot_resumes_and_validates(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "selfish.toml").write_text(SELF_PANEL)
    ray = ["--ray-address", ray_cluster]
    run_tune("launch", "selfish.toml", *ray, cwd=tmp_path)
    run_tune("resume", "selfish", "--trials", "3", *ray, cwd=tmp_path)
    status = last_json(run_tune("status", "selfish", "--json", cwd=tmp_path))
    assert status["panel"] == ["self", "random"] and status["trials"]["complete"] == 3
    assert status["disqualifications"]["self"]["games"] == 3 * 2 * 3  # trials x maps x sides
    run_tune("validate", "selfish", *ray, cwd=tmp_path)
    best = last_json(run_tune("status", "selfish", "--json", cwd=tmp_path))["best"]
    assert best["validated"] and best["verdict"] in ("gain", "no gain shown")
    assert best["held_out"]["games"] == 8  # against chaser, held out (self trains and validates)
    assert set(best["elo_per_opponent"]) == {"self", "random", "chaser"}


@pytest.mark.drill
def test_head_to_head_spsa_end_to_end(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "duel.toml").write_text(HEAD_TO_HEAD)
    ray = ["--ray-address", ray_cluster]
    launched = run_tune("launch", "duel.toml", *ray, cwd=tmp_path)
    assert "next: tune validate duel" in launched.stdout
    assert "found: theta after 4 iterations (head-to-head SPSA), not validated yet" in launched.stdout
    status = last_json(run_tune("status", "duel", "--json", cwd=tmp_path))
    assert status["scoring"] == "head-to-head" and status["games"]["train"] == 4 * 6
    assert status["best"]["point"] == "theta after 4 iterations" and not status["best"]["validated"]
    assert "theta-" in status["disqualifications"] and "random" not in status["disqualifications"]
    validated = run_tune("validate", "duel", *ray, cwd=tmp_path)
    assert "best trial 4" in validated.stdout and "head to head" in validated.stdout
    best = last_json(run_tune("status", "duel", "--json", cwd=tmp_path))["best"]
    assert best["trial"] == 4 and best["validated"] and best["training_panel"]["rule"] == "not worse"
    exported = run_tune("export", "duel", "--trial", "4", "--allow-no-gain", cwd=tmp_path)
    assert "theta after 4 head-to-head SPSA iterations" in exported.stdout
