"""The Ray task and pool on a real local Ray: games are a pure function of their inputs."""
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import ray

from ocean.bots import coefficients, resolve_bot
from tuning.driver.evaluation import Batch
from tuning.driver.pool import BatchPool
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


MARK = ("OCEAN_CANCEL_TEST=" + os.environ["OCEAN_CANCEL_TEST"]).encode()


def task_worker():  # Ray titles a worker process after the task it runs; ours inherit MARK
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(b"ray::play_batch_on_worker") and MARK in (entry / "environ").read_bytes().split(bytes(1)):
                return int(entry.name)
        except OSError:
            pass
    return None


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
# 10,000 games: many seconds of play after the task's start-up (unpickling its arguments
# imports the engine, then it loads the compiled kernels), whatever the machine's load
ref = play_batch_task.remote(coefficients.defaults(), resolve_bot("chaser"), list(range(5000, 10000)), 1, "train")
deadline = time.time() + 120
pid = None
while time.time() < deadline and pid is None:
    pid = task_worker()
    time.sleep(0.02)
base = cpu_seconds(pid)
while time.time() < deadline and cpu_seconds(pid) - base < START_UP_CPU_SECONDS:
    time.sleep(0.05)  # the batch's own CPU time, not the wall clock: it is playing its games now
ray.cancel(ref)
try:
    ray.get(ref, timeout=120)
    outcome = "finished"
except ray.exceptions.TaskCancelledError:
    outcome = "cancelled"
print(json.dumps({"sigint_ignored": ignored, "outcome": outcome}))
"""
# CPU seconds of the worker after the task began by which the batch is playing its games: a
# whole batch of one map (the engine's imports, the kernels loaded from the cache, one game)
# took 0.6 s of CPU on the 2-core test machine; the 10,000 games take well over 10 s.
START_UP_CPU_SECONDS = 4.0


@pytest.mark.drill
def test_a_running_batch_stops_when_cancelled_by_a_driver_started_from_a_script(tmp_path):
    """A background job of a script starts with SIGINT ignored, and the Ray it starts inherits
    that; a pruned trial's running batch must still stop when cancelled, without errors."""
    script = _CANCEL_FROM_A_SCRIPT.replace("START_UP_CPU_SECONDS", str(START_UP_CPU_SECONDS))
    (tmp_path / "driver.py").write_text(script)
    background = f"{shlex.quote(sys.executable)} driver.py & wait $!"
    run = subprocess.run(["bash", "-c", background], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
                              "OCEAN_CANCEL_TEST": str(tmp_path)})  # tells our Ray's workers from others' on the machine
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    # cancelled while it played (a batch that had finished would give its games: "finished")
    assert report == {"sigint_ignored": True, "outcome": "cancelled"}
    for noise in ("Unhandled error", "Traceback", "not callable"):
        assert noise not in run.stderr
