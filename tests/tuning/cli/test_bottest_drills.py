"""``tune test`` under crashes and company, with real processes: a driver SIGKILLed in the middle of
a test and started again, and two drivers on one PostgreSQL test. Both must end with the verdict
an undisturbed run reaches, at the same number of pairs, with no game stored twice and no stored
game played again."""
from __future__ import annotations

import os
import subprocess
import time

import pytest
import sqlalchemy as sa

from tuning.driver.bottest import TestRunner
from benchmarks.chaos import AuditLog, DriverProcess, duplicate_rows, kill_session
from tuning.storage.records import GameRecord
from tuning.storage.teststore import open_test
from tuning.study.testspec import TEST_PHASE, TestOptions

pytestmark = pytest.mark.drill

# v3 against v2 in batches of 20 maps: H1 after some fifty batches (about 2,000 games).
ARGS = ["--new", "tunable-v3", "--base", "tunable-v2", "--batch-pairs", "20"]
OPTIONS = TestOptions(new="tunable-v3", base="tunable-v2", batch_pairs=20)
GUARD = 600  # seconds: a driver still running after this is hung (a guard, never a measurement)
VERDICT = ("result", "llr", "games", "pairs", "elo", "elo_ci", "outcomes")


@pytest.fixture(scope="module")
def reference(ray_cluster, tmp_path_factory):
    """The undisturbed verdict, from the driver in this process."""
    from tuning.results.testreport import test_status

    url = f"sqlite:///{tmp_path_factory.mktemp('reference')}/ref.db"
    handle = open_test("drill", url, OPTIONS)
    try:
        run = TestRunner(handle).run()
        assert run.verdict.result == "H1" and run.verdict.batches >= 10
        return test_status(handle)
    finally:
        handle.close()


def _env(url: str, workdir) -> dict:
    env = {**os.environ, "OCEAN_STORAGE": url, "OCEAN_BATCH_LOG": str(workdir / "batches.jsonl"),
           "PYTHONUNBUFFERED": "1"}
    env.pop("RAY_ADDRESS", None)
    return env


def _keys(url: str) -> set[tuple]:
    g = GameRecord
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            if "ocean_games" not in sa.inspect(conn).get_table_names():
                return set()
            return {tuple(r) for r in conn.execute(sa.select(g.trial, g.opponent, g.seed, g.side)
                                                   .where(g.study == "drill", g.phase == TEST_PHASE))}
    finally:
        engine.dispose()


def _finish(driver: DriverProcess) -> dict:
    try:
        code = driver.proc.wait(timeout=GUARD)
    except subprocess.TimeoutExpired:
        driver.kill()
        raise AssertionError(f"the driver hung:\n{driver.stderr()[-2000:]}")
    assert code == 0, driver.stderr()[-3000:]
    import json

    return json.loads(driver.stdout().strip().splitlines()[-1])


def test_a_driver_killed_mid_test_then_run_again_loses_nothing_plays_nothing_twice(reference, ray_cluster,
                                                                                  tmp_path):
    url = f"sqlite:///{tmp_path}/drill.db"
    env = _env(url, tmp_path)
    first = DriverProcess(["test", "drill", *ARGS, "--ray-address", ray_cluster], cwd=tmp_path, env=env, index=0,
                          audited=True)
    deadline = time.monotonic() + GUARD
    while len(_keys(url)) < 600:  # some thirty batches in: killed mid-test
        assert first.poll() is None, f"the driver ended before the kill:\n{first.stderr()[-2000:]}"
        assert time.monotonic() < deadline, "hung before the kill"
        time.sleep(0.05)
    first.kill()
    killed_at = time.time()
    kept = _keys(url)
    assert len(kept) < reference["games"]  # the kill landed before the verdict

    second = DriverProcess(["test", "drill", "--json", "--ray-address", ray_cluster], cwd=tmp_path, env=env,
                           index=1, audited=True)
    out = _finish(second)
    assert {k: out[k] for k in VERDICT} == {k: reference[k] for k in VERDICT}
    assert duplicate_rows(url, "drill") == 0
    assert kept <= _keys(url)  # nothing stored before the kill is lost
    # nothing stored before the kill is played again: no batch that finished after the kill
    # (the dead driver's tasks in flight, the new driver's) holds a game that was already stored
    log = AuditLog(tmp_path / "batches.jsonl").read()
    assert {e["driver"] for e in log if e["event"] == "done"} == {first.tag, second.tag}  # both drivers logged
    replayed = [e for e in log
                if e["event"] == "done" and e["time"] > killed_at
                and any((e["trial"], e["opponent"], seed, side) in kept for seed in e["seeds"] for side in (0, 1))]
    assert replayed == []
    kill_session(first.pid)  # whatever the killed driver left behind


def test_two_drivers_on_one_postgres_test_reach_the_same_verdict(reference, ray_cluster, pg_url, tmp_path):
    env = _env(pg_url, tmp_path)
    drivers = [DriverProcess(["test", "drill", *ARGS, "--json", "--ray-address", ray_cluster], cwd=tmp_path,
                             env=env, index=i, audited=True) for i in range(2)]
    outs = [_finish(d) for d in drivers]
    for out in outs:
        assert {k: out[k] for k in VERDICT} == {k: reference[k] for k in VERDICT}
    assert duplicate_rows(pg_url, "drill") == 0
    # Games played past the verdict: at most the drivers' lookahead (two pools of three tasks each,
    # 40 games a batch), counted twice over for the batches finishing as the verdict lands.
    assert len(_keys(pg_url)) - reference["games"] <= 2 * 2 * 3 * 40
    # both played: the batches were shared (each driver's audit lines name it)
    played_by = {e["driver"] for e in AuditLog(tmp_path / "batches.jsonl").read() if e["event"] == "done"}
    assert len(played_by) == 2
