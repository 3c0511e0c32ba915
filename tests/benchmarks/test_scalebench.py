"""Parts of ``tune bench --scale``: the study it projects onto is the cluster study; on a real
PostgreSQL, the lock-wait sampler sees a real wait."""
import threading
import time
from pathlib import Path

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
