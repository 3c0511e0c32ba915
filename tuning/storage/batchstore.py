"""A Ray worker stores its own batch's games, so game rows never pass through the driver.

At cluster rates (tens of thousands of games per second) a driver that receives every row,
unpickles it, turns it into columns and inserts it spends most of its time on rows. With a
PostgreSQL study each worker stores the batch it just played, with the same one-statement
bulk insert the driver uses (``GameStore.add_batches``), and returns only a summary: the pair
scores and the disqualifications the driver's running estimate and pruning test need.

Why nothing changes for crash safety:

- a game row is unique per (study, trial, phase, opponent, seed, side) and the insert does
  nothing on a conflict: a task Ray retries (its worker died after storing) or a batch replayed
  by an adopting driver never duplicates a game, and the first stored copy stands (batches are
  deterministic, so any copy is the same game);
- the driver counts a batch in only once its task has returned, that is after the worker's
  commit; a trial is still told only after all its games are stored, and a driver killed
  meanwhile leaves stored games that adoption keeps (``pair_scores`` reads them back);
- a worker that cannot reach the database (a cluster node on another network, an outage) does
  not wait: it hands the rows back and the driver stores them through its retrying path. After
  a failure the worker leaves the database alone for ``_BACKOFF`` seconds.

SQLite has one writer and is a file on the driver's machine: there the driver stores, as before.
Each worker process keeps one connection per study database (PostgreSQL's ``max_connections``
must exceed the cluster's worker CPUs plus a few per driver).
"""
from __future__ import annotations

import time
from typing import Mapping, Sequence

from tuning.errors import StorageError

__all__ = ["store_batch", "worker_stores"]

_BACKOFF = 30.0  # seconds a worker sends rows back to the driver after its database failed it
_CONNECT_TIMEOUT = 5  # seconds: an unreachable database must not hold a batch for long

_engines: dict[str, object] = {}  # url -> SQLAlchemy engine, per worker process
_stores: dict[tuple[str, str], object] = {}  # (url, study) -> GameStore
_failed_until: dict[str, float] = {}  # url -> time.monotonic() until which we do not try it


def worker_stores(url: str) -> bool:
    """Whether workers store their games themselves in the database at ``url`` (PostgreSQL)."""
    import sqlalchemy as sa

    return sa.make_url(url).get_backend_name() == "postgresql"


def _store(url: str, study: str):
    import sqlalchemy as sa

    from tuning.storage.gamestore import GameStore

    store = _stores.get((url, study))
    if store is None:
        engine = _engines.get(url)
        if engine is None:  # one connection per worker process and database, kept between batches
            engine = _engines[url] = sa.create_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True,
                                                      connect_args={"connect_timeout": _CONNECT_TIMEOUT})
        store = _stores[(url, study)] = GameStore(engine, study)
    return store


def store_batch(url: str, study: str, *, trial: int, phase: str, opponent: str, rows: Sequence[Mapping],
                seconds: float) -> bool:
    """Store a batch's games in ``study`` at ``url``; False (nothing stored, nothing raised) if
    the database could not take them, so the caller sends the rows to the driver instead."""
    if not worker_stores(url) or time.monotonic() < _failed_until.get(url, 0.0):
        return False
    try:
        _store(url, study).add_batches([(trial, phase, opponent, rows, seconds)])
    except (StorageError, ImportError, OSError):  # the driver stores them, and reports an outage itself
        _failed_until[url] = time.monotonic() + _BACKOFF
        return False
    return True
