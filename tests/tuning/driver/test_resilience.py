"""Crash safety with real processes, the real local PostgreSQL and real Ray (the short form of
``python -m benchmarks.chaos``): drivers SIGKILLed at random moments, Ray workers killed in the
middle of a batch, four drivers on one study, PostgreSQL stopped under a running study.

Every scenario ends with the same question: is the study exactly what an undisturbed run of
the same study file stores (per-trial parameters, values and every game row)?"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlalchemy as sa

from benchmarks.chaos import (AuditLog, Drill, DriverProcess, chaos_study_toml, compare_digests, duplicate_rows,
                              inconsistent_trials, read_digest, run_undisturbed)
from tests.tuning.processes import database_outage, finish

# A long drill: CI runs it (.ci/run), the README's test command leaves it out.
# Kill drills and outages (about 1.5 min).
pytestmark = pytest.mark.drill

STUDY = dict(n_trials=6, pairs=120, batch_pairs=40, panel=["stealth-v1", "hunter-v1"])
OPPONENTS = STUDY["panel"]
NEEDED = STUDY["n_trials"] * 2 * STUDY["pairs"] * len(OPPONENTS)


def _toml(name: str, **changes) -> str:
    return chaos_study_toml(name, **{**STUDY, **changes})


def _env(url: str, workdir: Path, **extra) -> dict:
    env = {**os.environ, "OCEAN_STORAGE": url, "OCEAN_BATCH_LOG": str(workdir / "batches.jsonl"),
           "PYTHONUNBUFFERED": "1", **extra}
    env.pop("RAY_ADDRESS", None)
    return env


def _stored(url: str, name: str) -> int:
    from tuning.storage.records import GameRecord

    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            if "ocean_games" not in sa.inspect(conn).get_table_names():
                return 0
            return conn.execute(sa.select(sa.func.count()).select_from(GameRecord)
                                .where(GameRecord.study == name)).scalar()
    finally:
        engine.dispose()


@pytest.fixture(scope="module")
def reference(ray_cluster, tmp_path_factory):
    """The undisturbed run every scenario must reproduce."""
    workdir = tmp_path_factory.mktemp("reference")
    digest = run_undisturbed(workdir, f"sqlite:///{workdir}/ref.db", _toml("chaos"), "chaos",
                             ray_address=ray_cluster)
    assert len(digest.states) == STUDY["n_trials"] and len(digest.rows) == NEEDED
    assert set(digest.states.values()) == {"COMPLETE"}
    return digest


def test_driver_killed_at_random_moments_then_resumed_loses_nothing_and_replays_nothing(reference, tmp_path):
    # Each driver starts its own local Ray, as a plain `tune resume` does; what a killed one
    # leaves behind stays alive while the next driver runs (it must not matter), then is reaped.
    drill = Drill(tmp_path, f"sqlite:///{tmp_path}/study.db", "chaos", _toml("chaos"), seed=11)
    report = drill.run(driver_kills=3, worker_kills=1, reference=reference)
    assert report.failures() == []
    assert report.driver_kills == 3 and report.worker_kills == 1
    assert {k.kind for k in report.kills} == {"startup", "progress"}  # seed 11: both kinds of moment
    assert report.games_lost == 0 and report.duplicate_rows == 0 and report.games_replayed == 0
    assert report.params_changed == 0 and report.inconsistent_trials == 0
    assert report.games_stored == NEEDED == report.games_needed
    # Work wasted by the kills: only batches in flight, at most a pool's worth (workers + 1) each.
    assert report.games_wasted <= report.waste_allowance
    assert all(k.in_flight_batches <= report.workers + 1 for k in report.kills)
    assert report.leftover_processes_killed > 0  # killed drivers did leave their Ray behind
    assert report.compared_with_reference and report.reference_differences == []


def test_a_worker_killed_mid_batch_is_retried_by_ray_with_the_identical_games(reference, ray_cluster, pg_url,
                                                                               tmp_path):
    drill = Drill(tmp_path, pg_url, "chaos", _toml("chaos"), ray_address=ray_cluster, seed=5)
    report = drill.run(driver_kills=0, worker_kills=2, reference=reference)
    assert report.failures() == []
    assert report.worker_kills == 2 and report.driver_runs == 1  # Ray retried; the driver never noticed
    # A killed attempt never finishes, so it wastes nothing; only a kill that lands just after the
    # batch logged its games (unverified) can make Ray play that batch twice.
    assert report.games_wasted <= 2 * STUDY["batch_pairs"] * report.worker_kills_unverified
    assert report.reference_differences == [] and report.compared_with_reference


def test_four_drivers_on_one_postgres_study_create_exactly_the_target(reference, ray_cluster, pg_url, tmp_path):
    # trials_in_flight = 1 so every driver wants trials of its own; the results do not depend on it.
    (tmp_path / "chaos.toml").write_text(_toml("chaos", trials_in_flight=1))
    env = _env(pg_url, tmp_path)
    drivers = [DriverProcess(["launch", "chaos.toml", "--or-resume", "--ray-address", ray_cluster],
                             cwd=tmp_path, env=env, index=i, audited=True) for i in range(4)]
    codes = [finish(d) for d in drivers]
    assert codes == [0, 0, 0, 0], [d.stderr()[-1500:] for d in drivers]
    final = read_digest(pg_url, "chaos")
    assert sorted(final.states) == list(range(STUDY["n_trials"]))  # exactly the target, numbers unique
    assert compare_digests(final, reference) == []
    assert duplicate_rows(pg_url, "chaos") == 0 and inconsistent_trials(final, OPPONENTS) == []
    log = AuditLog(tmp_path / "batches.jsonl")
    log.read()
    assert len({e["driver"] for e in log.entries}) >= 2  # the drivers really worked side by side
    engine = sa.create_engine(pg_url)
    with engine.connect() as conn:  # nothing left held
        assert conn.execute(sa.text("SELECT count(*) FROM ocean_trial_leases")).scalar() == 0
        assert conn.execute(sa.text("SELECT count(*) FROM ocean_locks")).scalar() == 0
    engine.dispose()


# --- the database goes away -----------------------------------------------------------------------

# private_pg and own_pg (a PostgreSQL server of the module's own, a database on it): tests/tuning/conftest.py


def _started_playing(url: str):
    """A check that the first games are stored (and, then, that the study is not over yet: the
    outage comes mid-study)."""
    def check() -> bool:
        stored = _stored(url, "chaos")
        assert stored < NEEDED
        return stored > 0

    return check


def test_postgres_restarted_mid_study_the_driver_waits_and_carries_on(reference, ray_cluster, private_pg, own_pg,
                                                                     tmp_path):
    (tmp_path / "chaos.toml").write_text(_toml("chaos"))
    proc = DriverProcess(["launch", "chaos.toml", "--ray-address", ray_cluster], cwd=tmp_path,
                         env=_env(own_pg, tmp_path), index=0)
    code, _ = database_outage(proc, private_pg, ready=_started_playing(own_pg), what="the first games were stored",
                              ride_out=True)
    err = proc.stderr()
    assert code == 0, err[-2000:]
    assert err.count("unreachable") == 1 and err.count("is back after") == 1  # one line per outage, not per try
    assert "outage-pw-7f3a" not in err + proc.stdout() and "***@" in err
    final = read_digest(own_pg, "chaos")
    assert compare_digests(final, reference) == []
    assert duplicate_rows(own_pg, "chaos") == 0 and inconsistent_trials(final, OPPONENTS) == []


def test_an_outage_longer_than_the_patience_stops_with_one_line_and_resume_finishes(reference, ray_cluster,
                                                                                   private_pg, own_pg, tmp_path):
    (tmp_path / "chaos.toml").write_text(_toml("chaos"))
    env = _env(own_pg, tmp_path, OCEAN_DB_PATIENCE="2")
    proc = DriverProcess(["launch", "chaos.toml", "--ray-address", ray_cluster], cwd=tmp_path, env=env, index=0)
    # it gives up on its own once the patience is spent
    code, _ = database_outage(proc, private_pg, ready=_started_playing(own_pg), what="the first games were stored",
                              ride_out=False)
    err = proc.stderr()
    assert code == 2, err[-2000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"error: database postgresql+psycopg://postgres:***@127.0.0.1:{private_pg.port}/")
    assert "unreachable for" in last and "tune resume chaos" in last
    assert "Traceback" not in err and "outage-pw-7f3a" not in err + proc.stdout()
    stopped = read_digest(own_pg, "chaos")
    assert inconsistent_trials(stopped, OPPONENTS) == []  # never a half-written trial
    assert len(stopped.rows) < NEEDED
    resumed = DriverProcess(["resume", "chaos", "--ray-address", ray_cluster], cwd=tmp_path, env=env, index=1)
    assert finish(resumed) == 0, resumed.stderr()[-2000:]
    final = read_digest(own_pg, "chaos")
    assert all(final.rows.get(k) == v for k, v in stopped.rows.items())  # every stored game kept
    assert compare_digests(final, reference) == []
    assert duplicate_rows(own_pg, "chaos") == 0 and inconsistent_trials(final, OPPONENTS) == []
