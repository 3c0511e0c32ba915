"""What a study refuses to mix, end to end: ``tune resume`` and ``tune validate`` under other code
(one line naming both digests, or with ``--allow-code-change`` a study shown spanning two
versions), and ``tune launch`` against a frozen panel bot edited afterwards (real processes,
real local Ray, SQLite)."""
import pytest

from tests.tuning.cli.test_cli import TINY
from tests.tuning.processes import last_json, run_tune, said
from tuning.storage.handle import open_study
from tuning.storage.provenance import ATTR_CODE, code_digest, short

OTHER = "e" * 64


@pytest.mark.drill
def test_resume_and_validate_under_other_code_refuse_unless_allowed(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    ray = ["--ray-address", ray_cluster]
    run_tune("launch", "tiny.toml", "--games", "4", *ray, cwd=tmp_path)
    handle = open_study("tiny", f"sqlite:///{tmp_path}/studies/tiny.db")
    try:  # as if the games so far had been played by another version of the code
        (record,) = handle.code
        handle.study.set_user_attr(ATTR_CODE, [{**record, "digest": OTHER}])
    finally:
        handle.close()
    for command in (["resume", "tiny", "--trials", "3"], ["validate", "tiny", "--games", "4"]):
        refused = run_tune(*command, *ray, cwd=tmp_path, check=False)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        line = refused.stderr.strip()
        assert "\n" not in line and short(OTHER) in line and short(code_digest()) in line, line
    status = last_json(run_tune("status", "tiny", "--json", cwd=tmp_path))
    assert status["trials"]["complete"] == 2 and status["games"]["validate"] == 0  # nothing played

    run_tune("resume", "tiny", "--trials", "3", "--allow-code-change", *ray, cwd=tmp_path)
    status = last_json(run_tune("status", "tiny", "--json", cwd=tmp_path))
    assert status["trials"]["complete"] == 3
    assert status["code"].startswith(f"spans 2 code versions: {short(OTHER)} from trial 0")
    assert f"{short(code_digest())} from trial 2" in status["code"]
    assert "spans 2 code versions" in run_tune("status", "tiny", cwd=tmp_path).stdout
    run_tune("validate", "tiny", "--games", "4", *ray, cwd=tmp_path)  # same code as the latest record now
    run_tune("export", "tiny", "--out", "best.toml", "--allow-no-gain", cwd=tmp_path)  # 4 games show no gain
    text = (tmp_path / "best.toml").read_text()
    assert f'games_code_digests = "{OTHER},{code_digest()}"' in text
    assert f'validation_code_digest = "{code_digest()}"' in text


FROZEN_STUDY = TINY.replace('panel = ["random", "chaser"]', 'panel = ["random", "mine-v1"]')


def test_launch_and_plan_refuse_a_frozen_panel_bot_edited_afterwards_in_one_line(tmp_path, ray_cluster, user_panels,
                                                                          monkeypatch):
    from ocean.bots import coefficients
    from ocean.freeze import add_user_bot

    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    add_user_bot("mine-v1", {**coefficients.defaults(), "stealth_weight": 0.9}, panel="mine")
    text = user_panels.read_text()
    user_panels.write_text(text.replace("stealth_weight = 0.9", "stealth_weight = 0.8"))  # edited by hand
    (tmp_path / "tiny.toml").write_text(FROZEN_STUDY)
    for command in ("launch", "plan"):  # tune plan's pilot plays the panel as launch would
        refused = run_tune(command, "tiny.toml", "--ray-address", ray_cluster, cwd=tmp_path, check=False)
        (line,) = said(refused)
        assert refused.returncode == 2 and "'mine-v1'" in line, refused.stderr[-2000:]
        assert "other coefficients than when it was frozen" in line
        assert not (tmp_path / "studies" / "tiny.db").exists()  # refused before anything was created
