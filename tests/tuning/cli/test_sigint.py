"""Ctrl-C is safe, with a real SIGINT to a real ``tune launch`` process (not a fake pool): it
exits 130 saying how to carry on, every game stored before the signal is still there unchanged,
and ``tune resume`` finishes the study without a duplicate (real local Ray, SQLite)."""
import signal

import pytest

from benchmarks.chaos import duplicate_rows, inconsistent_trials, read_digest
from benchmarks.sigint import sigint_study
from tests.tuning.processes import run_tune, signal_tune


def _signal_launch(tmp_path, ray_cluster, url: str, sig: int, then=lambda: None):
    """``tune launch`` of a 40-pair study, sent ``sig`` once 40 games are stored (well into the
    study, trials in flight); ``then`` reads what it must right after the signal."""
    (tmp_path / "sig.toml").write_text(sigint_study(40))
    return signal_tune(["launch", "sig.toml", "--ray-address", ray_cluster], cwd=tmp_path,
                       ready=lambda: len(read_digest(url, "sig").rows) >= 40, what="40 games stored", sig=sig,
                       then=then)


@pytest.mark.drill  # about a minute: a study on Ray, interrupted, then resumed
def test_a_real_sigint_to_tune_launch_leaves_a_resumable_study_with_nothing_lost(tmp_path, ray_cluster, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    url = f"sqlite:///{tmp_path}/studies/sig.db"
    stopped_run = _signal_launch(tmp_path, ray_cluster, url, signal.SIGINT, then=lambda: read_digest(url, "sig"))
    before, err = stopped_run.seen, stopped_run.stderr
    assert stopped_run.returncode == 130 and "tune resume sig" in err and "Traceback" not in err, err[-2000:]
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
    stopped = _signal_launch(tmp_path, ray_cluster, f"sqlite:///{tmp_path}/studies/sig.db", signal.SIGTERM)
    err = stopped.stderr
    assert stopped.returncode == 130 and "tune resume sig" in err, err[-2000:]
    assert "SIGTERM: stopping as for Ctrl-C" in err and "SIGTERM received" not in err and "Traceback" not in err
