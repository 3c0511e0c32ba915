"""`tune learn` stopped by Ctrl-C (a real SIGINT to a real process) says what was kept and how to
carry on, and writes --out from its last checkpoint (issue 35)."""
import os
import signal
import subprocess
import sys
import time
import tomllib

import pytest

from ocean.bots.coefficients import read_params_file
from tuning.storage.learnstore import open_learn


@pytest.mark.drill  # a few minutes (5 at load 15): a learning run on Ray, interrupted after its first checkpoints
def test_a_learning_run_stopped_by_ctrl_c_keeps_its_checkpoints_and_writes_the_last(tmp_path, ray_cluster,
                                                                                     monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    proc = subprocess.Popen([sys.executable, "-m", "tuning", "learn", "long", "--games", "100000", "--round-games",
                             "30", "--score-every", "0", "--out", "learned.toml", "--ray-address", ray_cluster],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    url = f"sqlite:///{tmp_path}/studies/long.db"
    try:
        deadline = time.monotonic() + 300
        while True:
            assert proc.poll() is None, proc.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "no checkpoint in time"
            if (tmp_path / "studies" / "long.db").exists():
                store = open_learn("long", url, create=False)
                try:
                    last = store.last_checkpoint()
                finally:
                    store.storage.close()
                if last is not None and last.round >= 2:
                    break
            time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err, err[-2000:]
    line = err.strip().splitlines()[-1]
    assert line.startswith("interrupted during self-play: kept ") and "self-play games" in line, err[-2000:]
    assert "carry on with  tune learn long --games 100000 --out learned.toml" in line
    policy, weights = read_params_file(tmp_path / "learned.toml")
    provenance = tomllib.loads((tmp_path / "learned.toml").read_text())["provenance"]
    assert policy == "tunable-td" and any(v != 0.0 for v in weights.values())
    store = open_learn("long", url, create=False)
    try:
        kept = store.last_checkpoint()
    finally:
        store.storage.close()
    assert provenance["round"] == kept.round >= 2 and provenance["self_play_games"] == kept.games
    assert {k: weights[k] for k in kept.weights} == pytest.approx(kept.weights) and "interrupted" in provenance
