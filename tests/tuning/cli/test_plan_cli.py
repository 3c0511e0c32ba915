"""``tune plan`` end to end: a pilot of a study file on the session's real Ray, then the same
study's stored games, in real processes on a real SQLite database."""
from tests.tuning.cli.test_cli import TINY
from tests.tuning.processes import last_json, run_tune

FIELDS = {"games_per_s", "pair_sd", "detectable_gain", "games_for_gain"}


def test_plan_from_a_pilot_then_from_the_stored_study(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    ray = ["--ray-address", ray_cluster]
    piloted = run_tune("plan", "tiny.toml", "--pilot-pairs", "3", "--hours", "0.2", "--json", *ray, cwd=tmp_path)
    p = last_json(piloted)
    assert FIELDS <= set(p) and p["source"] == "pilot" and p["games_measured"] == 2 * 2 * 3
    assert p["games_per_s"] > 0 and p["pair_sd"] > 0 and set(p["games_for_gain"]) == {"0.02", "0.05", "0.1"}
    assert p["detectable_gain"]["validation"] > p["detectable_gain"]["per_trial"] > 0  # 4 maps validated, 6 a trial
    assert p["recommendation"]["n_trials"] >= 10
    assert "detects a gain of" in piloted.stdout and "to detect +0.05" in piloted.stdout
    assert not (tmp_path / "studies").exists()  # a pilot stores nothing

    run_tune("launch", "tiny.toml", "--games", "6", *ray, cwd=tmp_path)
    stored = last_json(run_tune("plan", "tiny", "--json", cwd=tmp_path))
    assert FIELDS <= set(stored) and stored["source"] == "stored" and stored["games_measured"] == 2 * 2 * 6  # trials x opponents x games

    for args, words in ((["plan", "tiny", "--hours", "-1"], "--hours must be above 0"),
                        (["plan", "ghost"], "no study database"),
                        (["plan", "missing.toml"], "cannot read the study file"),
                        (["plan", "tiny.toml", "--pilot-pairs", "1", *ray], "--pilot-pairs must be at least 2")):
        result = run_tune(*args, cwd=tmp_path, check=False)
        assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
