"""Parts of ``tune bench --scale``: the study it projects onto is the cluster study; on a real
PostgreSQL, the lock-wait sampler sees a real wait."""
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from benchmarks.scalebench import CLUSTER_BOT, CLUSTER_SHAPE, _LockWatch
from tuning.study.opponents import resolve_panel
from tuning.study.spec import load_spec


def test_the_projection_is_of_the_cluster_study(monkeypatch):
    monkeypatch.setenv("OCEAN_STORAGE", "postgresql+psycopg://lab@db:5432/ocean")  # the file reads ${...}
    monkeypatch.setenv("OCEAN_RAY_ADDRESS", "auto")
    cluster = load_spec(Path(__file__).resolve().parents[2] / "studies" / "cluster.toml")
    assert CLUSTER_SHAPE == (cluster.pairs_per_opponent, len(resolve_panel(cluster.panel)))
    assert CLUSTER_BOT == (cluster.policy, cluster.panel)


def test_the_lock_watch_sees_a_session_waiting_for_a_row_lock(pg_url):
    engine = sa.create_engine(pg_url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("CREATE TABLE held (id int PRIMARY KEY, n int)"))
            conn.execute(sa.text("INSERT INTO held VALUES (1, 0)"))
        with _LockWatch(pg_url, interval=0.05) as watch:
            holder = engine.connect()
            holder.begin()
            holder.execute(sa.text("SELECT n FROM held WHERE id = 1 FOR UPDATE"))

            def wait_for_the_row():
                with engine.begin() as conn:  # blocks until the holder commits
                    conn.execute(sa.text("UPDATE held SET n = n + 1 WHERE id = 1"))

            waiter = threading.Thread(target=wait_for_the_row)
            waiter.start()
            time.sleep(1.3)
            holder.commit()
            holder.close()
            waiter.join()
        figures = watch.figures()
        assert figures["pg_lock_waits_seen"] == 1
        assert 1.0 < figures["pg_lock_wait_max_s"] < 5.0 and figures["pg_lock_waits_over_1s"] == 1
        assert figures["pg_lock_wait_longest_statement"] == "UPDATE held SET n = n + 1 WHERE id = 1"
        # not the schema guard of a driver starting: a wait of the study running
        assert figures["pg_lock_wait_max_s_running"] == figures["pg_lock_wait_max_s"]
        assert figures["pg_lock_waits_over_1s_running"] == 1
    finally:
        engine.dispose()


def test_no_wait_no_figure(pg_url):
    with _LockWatch(pg_url, interval=0.05) as watch:
        time.sleep(0.3)
    assert watch.figures() == {"pg_lock_waits_seen": 0, "pg_lock_wait_max_s": 0.0, "pg_lock_waits_over_1s": 0,
                               "pg_lock_wait_longest_statement": None, "pg_lock_wait_max_s_running": 0.0,
                               "pg_lock_waits_over_1s_running": 0}


def test_a_failure_is_said_in_one_line_and_a_bench_bug_with_its_traceback():
    from benchmarks.scalebench import ScaleBenchError, _said

    refused = sa.create_engine("postgresql+psycopg://postgres:pw-9x@127.0.0.1:1/none")
    lines = []
    try:
        with refused.connect():
            pass
    except sa.exc.OperationalError as exc:
        assert _said(exc, lines.append).code == 2
    finally:
        refused.dispose()
    assert lines[-1].startswith("error: connection") and "\n" not in lines[-1] and "sqlalche.me" not in lines[-1]
    assert _said(ScaleBenchError("a second driver failed: Traceback ...\nKeyError: 'x'"), lines.append).code == 2
    assert lines[-1] == "error: KeyError: 'x'"
    try:
        {}["trials"]
    except KeyError as exc:  # a bug of the bench: its traceback, to find it
        assert _said(exc, lines.append).code == 1
    assert lines[-1].startswith("Traceback (most recent call last):") and lines[-1].endswith("KeyError: 'trials'")


@pytest.mark.drill  # a minute or more: a local Ray cluster started, then the study's database refuses
def test_the_scale_bench_says_its_error_before_leaving_its_cluster_and_exits_without_waiting_on_it(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.Popen([sys.executable, "-m", "tuning", "bench", "--scale", "--nodes", "1", "--node-cpus", "1",
                             "--scale-trials", "1", "--seeds", "1", "--db-writers", "0", "--storage",
                             "postgresql+psycopg://postgres@127.0.0.1:5432/ocean_scale_no_such_db"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("error:") and said is None:
                said = time.monotonic()
        code = proc.wait(timeout=300)
        left = time.monotonic() - said if said is not None else None
    finally:
        if proc.poll() is None:
            proc.kill()
    err = "".join(lines)
    assert code == 2 and said is not None and "Traceback" not in err, err[-3000:]
    assert "ocean_scale_no_such_db" in [line for line in lines if line.startswith("error:")][0]
    # no wait on the stopped cluster (Ray's shutdown there can take about a minute); this failure, at the
    # study's creation with nothing in flight, exits as fast without the fix: it guards the error path only
    assert left < 45, f"{left:.0f} s from the error to the exit"
