"""Who a driver is, whether it still lives, and study-wide critical sections between drivers.

Several drivers (on one host or many) may work on one study. Each is named ``host:pid:random``
so that a driver on the same host can tell at once that another one died (its pid is gone);
a driver on another host relies on the lease or lock expiring instead.

``hold`` is a mutex made of a row in ``ocean_locks`` (see ``GameStore.try_lock``): held only
around short sections (count the trials and create one; create a study), it makes "never more
trials than the target" exact across drivers. A row rather than a database lock: it behaves
the same on SQLite and PostgreSQL and is not silently dropped when the database restarts.
"""
from __future__ import annotations

import os
import socket
import time
import uuid
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

from tuning.errors import StorageError

__all__ = ["driver_id", "owner_dead", "hold", "LOCK_TTL", "CREATE_LOCK", "ASK_LOCK"]

LOCK_TTL = 30.0  # seconds; a section lasts milliseconds, so only a hung holder ever reaches it
CREATE_LOCK = "create"  # creating (or finishing the creation of) a study
ASK_LOCK = "ask"  # counting the trials and creating one; adopting a trial without a lease

T = TypeVar("T")


def driver_id() -> str:
    """host:pid:random — unique per driver process, and tells whether it still lives."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_dead(owner: str) -> bool:
    """True if ``owner`` was a driver on this host whose process is gone."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's live process
        return False
    return False


def _direct(fn: Callable[[], T]) -> T:
    return fn()


@contextmanager
def hold(games, name: str, owner: str, *, ttl: float = LOCK_TTL,
         call: Callable[[Callable[[], T]], T] = _direct) -> Iterator[None]:
    """Run the body while ``owner`` holds the study lock ``name``.

    Waits (polling, with backoff up to half a second) while another live driver holds it; a
    holder that died on this host is evicted at once, one elsewhere once its lock expires, so
    waiting is bounded by ``ttl`` and can never deadlock. ``call`` wraps each database access
    (the runner passes its retry-with-backoff).
    """
    delay = 0.01
    while True:
        holder = call(lambda: games.try_lock(name, owner, ttl))
        if holder == owner:
            break
        if holder is not None and owner_dead(holder):
            call(lambda: games.break_lock(name, holder))
            continue
        time.sleep(delay)
        delay = min(2 * delay, 0.5)
    try:
        yield
    finally:
        try:
            call(lambda: games.unlock(name, owner))
        except StorageError:  # the database is gone; the lock expires by itself
            pass
