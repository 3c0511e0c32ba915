"""``tune launch`` before its first trial (issue 49): a study that exists is said at once, before
Ray starts (a minute on a busy machine); the wait for Ray is said; a Ctrl-C while it starts ends
with one line saying what was stored and how to go on. Real ``tune`` processes, real Ray, SQLite."""
import os
import signal
import subprocess
import sys

from tests.tuning.cli.test_cli import TINY
from tests.tuning.processes import GUARD, run_tune, wait_for
from tuning.storage.handle import create_study, study_exists
from tuning.study.spec import load_spec


def test_a_launch_of_a_study_that_exists_says_so_before_starting_ray(tmp_path, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    url = f"sqlite:///{tmp_path}/tiny.db"
    assert not study_exists("tiny", url) and not (tmp_path / "tiny.db").exists()  # asking creates nothing
    create_study(load_spec(tmp_path / "tiny.toml"), url).close()
    assert study_exists("tiny", url) and not study_exists("other", url)
    result = run_tune("launch", "tiny.toml", "--storage", url, cwd=tmp_path, check=False)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: study 'tiny' already exists in {url}; carry on with: tune resume tiny"]  # no Ray started


def _launch(tmp_path, *args) -> tuple[subprocess.Popen, callable]:
    err = tmp_path / "stderr.txt"
    with open(err, "w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "tuning", "launch", "tiny.toml", *args], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=sink, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return proc, err.read_text


def _interrupted(proc, stderr) -> str:
    try:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=GUARD) == 130, stderr()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    err = stderr()
    assert "Traceback" not in err, err[-3000:]
    return err


def test_ctrl_c_while_ray_starts_says_nothing_was_created(tmp_path, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    url = f"sqlite:///{tmp_path}/tiny.db"
    proc, stderr = _launch(tmp_path, "--storage", url)
    wait_for(lambda: "starting Ray (a local instance)..." in stderr(), "the wait for Ray said", proc, stderr)
    err = _interrupted(proc, stderr)
    assert "interrupted while starting: study tiny was not created; launch it again when ready" in err, err[-3000:]
    assert not study_exists("tiny", url)


def test_ctrl_c_once_the_study_is_created_says_where_and_how_to_carry_on(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "tiny.toml").write_text(TINY)
    url = f"sqlite:///{tmp_path}/tiny.db"
    proc, stderr = _launch(tmp_path, "--storage", url, "--ray-address", ray_cluster)
    wait_for(lambda: "study tiny created in" in stderr(), "the study created", proc, stderr)
    lines = stderr().splitlines()
    assert lines[0] == f"joining the Ray cluster at {ray_cluster}..." and lines[1].startswith("Ray ready: ")
    err = _interrupted(proc, stderr)
    # stopped before the runner started, or by the runner: either way one line says how to carry on
    assert "tune resume tiny" in err.splitlines()[-1], err[-3000:]
    assert study_exists("tiny", url)
