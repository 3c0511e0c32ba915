"""A study file's ``storage`` is remembered for the commands that take only the study's name
(issue 36: ``tune status NAME`` / ``validate`` / ``export`` needed ``--storage`` again)."""
import pytest

from tests.tuning.cli.test_cli import TINY
from tests.tuning.processes import last_json, run_tune


@pytest.mark.drill
def test_commands_by_name_find_the_storage_the_study_file_named(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text('storage = "sqlite:///elsewhere/tiny.db"\n' + TINY)
    run_tune("launch", "tiny.toml", "--games", "4", "--ray-address", ray_cluster, cwd=tmp_path)
    assert (tmp_path / "elsewhere" / "tiny.db").exists() and not (tmp_path / "studies" / "tiny.db").exists()
    assert (tmp_path / "studies" / "tiny.storage").read_text().strip() == "sqlite:///elsewhere/tiny.db"
    status = last_json(run_tune("status", "tiny", "--json", cwd=tmp_path))
    assert status["storage"] == "sqlite:///elsewhere/tiny.db" and status["trials"]["complete"] == 2
    validated = run_tune("validate", "tiny", "--ray-address", ray_cluster, cwd=tmp_path)
    assert "tiny validation games: " in validated.stderr  # a log sees its progress, in plain lines
    exported = run_tune("export", "tiny", "--out", "best.toml", "--allow-no-gain", cwd=tmp_path)
    assert exported.returncode == 0 and (tmp_path / "best.toml").exists()
    # the next step is named (issue 49): play the file as a program, or against its defaults
    assert exported.stderr.strip().splitlines()[-1] == (
        "next: play it as a CodinGame program: ocean bot --params best.toml; or against its defaults: "
        "ocean arena --bots params:best.toml,tunable --games 100")  # the policy the file plays (v1)
    # --storage still wins over what was remembered
    other = run_tune("status", "tiny", "--storage", "sqlite:///nowhere/tiny.db", cwd=tmp_path, check=False)
    assert other.returncode == 2 and "no study database" in other.stderr
