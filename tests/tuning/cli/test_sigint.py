"""Ctrl-C is safe, with a real SIGINT to a real ``tune launch`` process (not a fake pool): it
exits 130 saying how to carry on, every game stored before the signal is still there unchanged,
and ``tune resume`` finishes the study without a duplicate (real local Ray, SQLite)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from benchmarks.chaos import duplicate_rows, inconsistent_trials, read_digest
from benchmarks.sigint import sigint_study
from tests.tuning.processes import run_tune


@pytest.mark.drill  # about a minute: a study on Ray, interrupted, then resumed
def test_a_real_sigint_to_tune_launch_leaves_a_resumable_study_with_nothing_lost(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "sig.toml").write_text(sigint_study(40))
    url = f"sqlite:///{tmp_path}/studies/sig.db"
    proc = subprocess.Popen([sys.executable, "-m", "tuning", "launch", "sig.toml", "--ray-address", ray_cluster],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            # the SIGINT sent must reach it, even from a run started with SIGINT ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 240
        while len(read_digest(url, "sig").rows) < 40:  # well into the study, trials in flight
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "no games stored in time"
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        before = read_digest(url, "sig")
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "tune resume sig" in err and "Traceback" not in err, err[-2000:]
    stopped = read_digest(url, "sig")
    assert all(stopped.rows.get(k) == v for k, v in before.rows.items())  # nothing stored was lost
    assert "RUNNING" in stopped.states.values() and len(stopped.rows) < 4 * 2 * 2 * 40  # it did stop mid-study
    run_tune("resume", "sig", "--ray-address", ray_cluster, cwd=tmp_path)
    final = read_digest(url, "sig")
    assert set(final.states.values()) == {"COMPLETE"} and len(final.states) == 4
    assert all(final.rows.get(k) == v for k, v in stopped.rows.items())
    assert len(final.rows) == 4 * 2 * 2 * 40 and duplicate_rows(url, "sig") == 0
    assert inconsistent_trials(final, ["random", "chaser"]) == []


@pytest.mark.drill  # about half a minute: a study on Ray, stopped by SIGTERM
def test_sigterm_to_tune_launch_stops_it_as_ctrl_c_does_in_one_line(tmp_path, ray_cluster, monkeypatch):
    # issue 36: SIGTERM printed Ray's stack dump lines ("*** SIGTERM received ...") and aborted
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "sig.toml").write_text(sigint_study(40))
    url = f"sqlite:///{tmp_path}/studies/sig.db"
    proc = subprocess.Popen([sys.executable, "-m", "tuning", "launch", "sig.toml", "--ray-address", ray_cluster],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 240
        while len(read_digest(url, "sig").rows) < 40:
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "no games stored in time"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "tune resume sig" in err, err[-2000:]
    assert "SIGTERM: stopping as for Ctrl-C" in err and "SIGTERM received" not in err and "Traceback" not in err
