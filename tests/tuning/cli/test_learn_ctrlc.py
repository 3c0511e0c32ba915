"""`tune learn` stopped by Ctrl-C (a real SIGINT to a real process) says what was kept and how to
carry on, and writes --out from its last checkpoint (issue 35)."""
import tomllib

import pytest

from ocean.bots.coefficients import read_params_file
from tests.tuning.processes import signal_tune
from tuning.storage.learnstore import open_learn


def _last_checkpoint(tmp_path, url: str):
    """The run's last checkpoint, None before its database exists."""
    if not (tmp_path / "studies" / "long.db").exists():
        return None
    store = open_learn("long", url, create=False)
    try:
        return store.last_checkpoint()
    finally:
        store.storage.close()


@pytest.mark.drill  # a few minutes (5 at load 15): a learning run on Ray, interrupted after its first checkpoints
def test_a_learning_run_stopped_by_ctrl_c_keeps_its_checkpoints_and_writes_the_last(tmp_path, ray_cluster,
                                                                                     monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    url = f"sqlite:///{tmp_path}/studies/long.db"
    stopped = signal_tune(["learn", "long", "--games", "100000", "--round-games", "30", "--score-every", "0", "--out",
                           "learned.toml", "--ray-address", ray_cluster], cwd=tmp_path, within=300, every=0.5,
                          ready=lambda: getattr(_last_checkpoint(tmp_path, url), "round", -1) >= 2,
                          what="the first checkpoints")
    err = stopped.stderr
    assert stopped.returncode == 130 and "Traceback" not in err, err[-2000:]
    line = err.strip().splitlines()[-1]
    assert line.startswith("interrupted during self-play: kept ") and "self-play games" in line, err[-2000:]
    assert "carry on with  tune learn long --games 100000 --out learned.toml" in line
    policy, weights = read_params_file(tmp_path / "learned.toml")
    provenance = tomllib.loads((tmp_path / "learned.toml").read_text())["provenance"]
    assert policy == "tunable-td" and any(v != 0.0 for v in weights.values())
    kept = _last_checkpoint(tmp_path, url)
    assert provenance["round"] == kept.round >= 2 and provenance["self_play_games"] == kept.games
    assert {k: weights[k] for k in kept.weights} == pytest.approx(kept.weights) and "interrupted" in provenance
