"""The Ray task and pool on a real local Ray: games are a pure function of their inputs."""
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import ray

from ocean.bots import coefficients, resolve_bot
from tuning.driver.pool import Batch, BatchPool
from tuning.driver.worker import play_batch, play_batch_task


def test_a_batch_is_paired_and_deterministic_in_process_and_on_ray(ray_cluster):
    params = coefficients.defaults()
    chaser = resolve_bot("chaser")
    local = play_batch(params, chaser, [11, 12, 13], trial=1)
    assert [(r["seed"], r["a_side"]) for r in local.rows] == [(11, 0), (11, 1), (12, 0), (12, 1), (13, 0), (13, 1)]
    assert local.seconds > 0 and local.player_turns > 0
    remote = ray.get(play_batch_task.remote(params, chaser, [11, 12, 13], 1))
    assert remote.rows == local.rows  # another process, the same games
    assert remote.worker != local.worker


def test_the_pool_returns_every_batch_and_cancels_a_trials_queue(ray_cluster):
    params = coefficients.defaults()
    pool = BatchPool(capacity=8)
    batches = [Batch(t, "train", resolve_bot("random"), (100 + t, 200 + t)) for t in range(3)]
    for b in batches:
        pool.submit(b, params)
    pool.submit(Batch(9, "train", resolve_bot("random"), (1,)), params)
    assert pool.trials() == {0, 1, 2, 9} and len(pool) == 4
    assert pool.cancel_trial(9) == 1 and len(pool) == 3
    done = []
    while len(pool):
        done += pool.wait(timeout=60)
    assert sorted(b.trial for b, _ in done) == [0, 1, 2]
    for b, result in done:
        assert [r["seed"] for r in result.rows] == [b.seeds[0], b.seeds[0], b.seeds[1], b.seeds[1]]


_CANCEL_FROM_A_SCRIPT = """
import json, os, signal, sys, time
from pathlib import Path
import ray
from ocean.bots import coefficients, resolve_bot
from tuning.driver.worker import play_batch_task


def playing():  # Ray titles a worker process after the task it runs
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(b"ray::play_batch_on_worker"):
                return True
        except OSError:
            pass
    return False


ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
ref = play_batch_task.remote(coefficients.defaults(), resolve_bot("chaser"), list(range(5000, 5600)), 1, "train")
deadline = time.time() + 120
while time.time() < deadline and not playing():
    time.sleep(0.05)
started = playing()
time.sleep(0.3)
ray.cancel(ref)
try:
    ray.get(ref, timeout=120)
    outcome = "finished"
except ray.exceptions.TaskCancelledError:
    outcome = "cancelled"
print(json.dumps({"sigint_ignored": ignored, "started": started, "outcome": outcome}))
"""


def test_a_running_batch_stops_when_cancelled_by_a_driver_started_from_a_script(tmp_path):
    """A background job of a script starts with SIGINT ignored, and the Ray it starts inherits
    that; a pruned trial's running batch must still stop when cancelled, without errors."""
    (tmp_path / "driver.py").write_text(_CANCEL_FROM_A_SCRIPT)
    script = f"{shlex.quote(sys.executable)} driver.py & wait $!"
    run = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])})
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    # cancelled while it ran (a batch that had finished would give its games: "finished")
    assert report == {"sigint_ignored": True, "started": True, "outcome": "cancelled"}
    for noise in ("Unhandled error", "Traceback", "not callable"):
        assert noise not in run.stderr
