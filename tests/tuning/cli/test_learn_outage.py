"""`tune learn` rides out a database outage as studies and tests do (``tuning.storage.retry``),
and one that outlasts the patience stops it with one line naming the command that carries it on,
every stored checkpoint kept (issue 32, item 9's gap). A PostgreSQL server of the test's own is
stopped under the running process, as tests/tuning/driver/test_resilience.py does for a study."""
from __future__ import annotations

import os

import pytest
import sqlalchemy as sa

from benchmarks.chaos import DriverProcess
from tests.tuning.processes import database_outage
from tuning.storage.learnstore import open_learn

ROUND = 30  # self-play games a round: a checkpoint every second or so
PASSWORD = "outage-pw-7f3a"  # own_pg's URL carries it; it must never be printed


def _checkpoints(url: str) -> dict:
    store = open_learn("outage", url, create=False)
    try:
        return {cp.round: (cp.games, cp.weights) for cp in store.checkpoints()}
    finally:
        store.storage.close()


def _rounds_beyond(url: str, round_: int):
    """A check that the run stored a round past ``round_`` (plain SQL: opening the store would
    create its tables, racing the process that creates them)."""
    def check() -> bool:
        engine = sa.create_engine(url, poolclass=sa.NullPool)
        try:
            with engine.connect() as conn:
                last = conn.execute(sa.text("SELECT max(round) FROM ocean_learn_checkpoints")).scalar()
        except sa.exc.ProgrammingError:  # no table yet
            return False
        finally:
            engine.dispose()
        return last is not None and last > round_

    return check


def _learn(games: int, url: str, ray_cluster: str, tmp_path, index: int, patience: str) -> DriverProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OCEAN_DB_PATIENCE": patience}
    env.pop("OCEAN_STORAGE", None)
    return DriverProcess(["learn", "outage", "--games", str(games), "--round-games", str(ROUND), "--score-every",
                          "0", "--trust-games", "0", "--out", "learned.toml", "--storage", url, "--ray-address",
                          ray_cluster], cwd=tmp_path, env=env, index=index)


@pytest.mark.drill  # about a minute: two learning runs on Ray, the database stopped under each
def test_a_learning_run_rides_out_an_outage_and_stops_in_one_line_after_its_patience(ray_cluster, private_pg,
                                                                                      own_pg, tmp_path):
    # Past its patience: one line naming the command that carries on, with every option it needs.
    proc = _learn(100_000, own_pg, ray_cluster, tmp_path, 0, patience="2")
    code, kept = database_outage(proc, private_pg, ready=_rounds_beyond(own_pg, 1), what="the first checkpoints",
                                 ride_out=False, then=lambda: _checkpoints(own_pg))
    err = proc.stderr()
    assert code == 2, err[-2000:]
    last = err.strip().splitlines()[-1]
    masked = f"postgresql+psycopg://postgres:***@127.0.0.1:{private_pg.port}/"
    assert last.startswith(f"error: database {masked}") and "unreachable for" in last, err[-2000:]
    assert last.endswith("carry on with  tune learn outage --games 100000 --out learned.toml --storage "
                         f"{own_pg.replace(PASSWORD, '***')} --trust-games 0"), last
    assert "Traceback" not in err and PASSWORD not in err + proc.stdout() and "tune resume" not in err
    stopped = _checkpoints(own_pg)
    assert all(stopped[r] == kept[r] for r in kept)  # nothing stored was lost

    # Within its patience: it waits, says once that the database is back, and finishes the run.
    target = (max(stopped) + 3) * ROUND
    proc = _learn(target, own_pg, ray_cluster, tmp_path, 1, patience="120")
    code, _ = database_outage(proc, private_pg, ready=_rounds_beyond(own_pg, max(stopped)),
                              what="a round stored after the restart", ride_out=True)
    err = proc.stderr()
    assert code == 0, err[-2000:]
    assert err.count("unreachable") == 1 and err.count("is back after") == 1  # one line per outage, not per try
    assert PASSWORD not in err + proc.stdout() and "Traceback" not in err
    final = _checkpoints(own_pg)
    assert sorted(final) == list(range(target // ROUND + 1)) and final[max(final)][0] == target
    assert all(final[r] == stopped[r] for r in stopped)
    assert f"outage: {target:,} self-play games" in proc.stdout()
