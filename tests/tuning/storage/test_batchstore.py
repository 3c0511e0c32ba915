"""Workers store their own batches (PostgreSQL): exactly once, the first copy stands, and a
database a worker cannot reach sends the rows back to the driver instead of losing them."""
import sqlalchemy as sa

from ocean.bots import coefficients, resolve_bot
from tuning.driver.evaluation import Batch
from tuning.driver.pool import BatchPool
from tuning.driver.worker import play_batch, summarize_batch
from tuning.storage import batchstore
from tuning.storage.gamestore import GameStore
from tuning.storage.records import create_tables


def _store(url: str, study: str = "s") -> GameStore:
    engine = sa.create_engine(url)
    create_tables(engine)
    return GameStore(engine, study)


def test_a_worker_stores_its_batch_once_and_returns_only_the_summary(pg_url):
    store = _store(pg_url)
    params = coefficients.defaults()
    chaser = resolve_bot("chaser")
    want = play_batch(params, chaser, [21, 22, 23], trial=4)
    got = play_batch(params, chaser, [21, 22, 23], trial=4, store_url=pg_url, study="s")
    assert got.stored and got.rows == [] and got.store_seconds > 0
    assert got.summary == summarize_batch("chaser", want.rows)
    assert got.summary.games == 6 and len(got.summary.pair_scores) == 3
    stored = store.games(trial=4, phase="train")
    assert [(g.seed, g.side, g.winner, g.turns) for g in stored] == [
        (r["seed"], r["a_side"], r["winner"], r["turns"]) for r in want.rows]
    # a retried task (its worker died after the commit) stores nothing twice; the first copy stands
    first_ids = [g.id for g in stored]
    again = play_batch(params, chaser, [21, 22, 23], trial=4, store_url=pg_url, study="s")
    assert again.stored and again.summary == got.summary
    assert [g.id for g in store.games(trial=4, phase="train")] == first_ids
    store.engine.dispose()


def test_an_unreachable_database_sends_the_rows_back_to_the_driver(pg_url, monkeypatch):
    monkeypatch.setattr(batchstore, "_failed_until", {})
    dead = sa.make_url(pg_url).set(port=1).render_as_string(hide_password=False)  # nothing listens on port 1
    result = play_batch(coefficients.defaults(), resolve_bot("random"), [5, 6], trial=1, store_url=dead, study="s")
    assert not result.stored and len(result.rows) == 4
    assert result.summary == summarize_batch("random", result.rows)
    assert batchstore._failed_until[dead] > 0  # and the next batches do not try again at once


def test_sqlite_studies_are_stored_by_the_driver(sqlite_url):
    assert not batchstore.worker_stores(sqlite_url)
    assert not batchstore.store_batch(sqlite_url, "s", trial=0, phase="train", opponent="x", rows=[], seconds=0.0)


def test_a_pool_with_a_store_has_its_workers_store_on_ray(ray_cluster, pg_url):
    store = _store(pg_url, "pooled")
    pool = BatchPool(capacity=4, store=(pg_url, "pooled"))
    batches = [Batch(t, "train", resolve_bot("random"), (300 + t, 400 + t)) for t in range(3)]
    for b in batches:
        pool.submit(b, coefficients.defaults())
    done = []
    while len(pool):
        done += pool.wait(timeout=60)
    assert all(r.stored and r.rows == [] and r.summary.games == 4 for _, r in done)
    assert store.games_by_trial("train") == {0: 4, 1: 4, 2: 4}
    store.engine.dispose()
