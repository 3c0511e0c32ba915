"""Riding out a database outage: retry a database call with bounded exponential backoff.

A PostgreSQL restart (or a failover, or a network blip) must not end a study that has hours of
games in flight on Ray. Every database call of the driver goes through ``Retry.call``: on a
connection-class error it logs one line for the whole outage, waits 0.5 s, 1 s, 2 s, ... (at
most ``cap`` between tries) and tries again; once the database answers it logs one line more.
If the outage outlasts ``patience`` seconds it gives up with one ``StorageError`` line saying
how to carry on. Every call it wraps is idempotent (``tuning.storage.gamestore``; Optuna's writes are
upserts or guarded by trial state), so a call whose commit was lost with the connection is
simply repeated. Messages show the URL with its password masked and never the password.
"""
from __future__ import annotations

import os
import time
from typing import Callable, TypeVar

import sqlalchemy as sa

from tuning.errors import StorageError, TuningError

__all__ = ["Retry", "is_transient", "ENV_PATIENCE", "DEFAULT_PATIENCE"]

ENV_PATIENCE = "OCEAN_DB_PATIENCE"  # seconds a driver waits for its database to come back
DEFAULT_PATIENCE = 300.0  # a PostgreSQL restart or failover takes seconds; five minutes is generous

T = TypeVar("T")

# SQLite reports a busy database and a missing table with the same exception class; only these
# messages are worth waiting for.
_SQLITE_TRANSIENT = ("locked", "busy", "disk i/o", "unable to open")


def _chain(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def is_transient(exc: BaseException) -> bool:
    """True if ``exc`` (or what caused it) says the database could not be reached or lost the
    connection, as opposed to a query or data problem that retrying cannot fix."""
    for e in _chain(exc):
        if isinstance(e, sa.exc.DBAPIError) and e.connection_invalidated:
            return True
        if isinstance(e, (sa.exc.DisconnectionError, sa.exc.InterfaceError)):
            return True
        if isinstance(e, sa.exc.OperationalError):
            text = str(e.orig if e.orig is not None else e).lower()
            if "sqlite" not in type(e.orig).__module__ or any(w in text for w in _SQLITE_TRANSIENT):
                return True
        if isinstance(e, sa.exc.TimeoutError):  # the connection pool is exhausted waiting for it
            return True
    return False


def _reason(exc: BaseException, password: str | None) -> str:
    """The driver's own words (first line), e.g. "connection refused", with the password masked."""
    text = ""
    for e in _chain(exc):
        if isinstance(e, sa.exc.DBAPIError) and e.orig is not None:
            text = str(e.orig)
            break
        text = text or str(e)
    lines = text.strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text.replace(password, "***") if password else text


def patience_from_env() -> float:
    """``$OCEAN_DB_PATIENCE`` seconds, else ``DEFAULT_PATIENCE``; a bad value is a user error."""
    raw = os.environ.get(ENV_PATIENCE)
    if raw is None or raw.strip() == "":
        return DEFAULT_PATIENCE
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also rejects nan
        raise TuningError(f"{ENV_PATIENCE}={raw!r}: give the seconds to wait for the database, e.g. 300")
    return value


class Retry:
    """Calls a function until the database answers, for at most ``patience`` seconds of outage."""

    def __init__(self, url: str, *, name: str, patience: float | None = None, first: float = 0.5,
                 cap: float = 15.0, log: Callable[[str], None] = lambda line: None,
                 sleep: Callable[[float], None] = time.sleep, resume: str | None = None) -> None:
        parsed = sa.make_url(url)
        self.masked = parsed.render_as_string(hide_password=True)
        self._password = parsed.password and str(parsed.password)
        self.name = name  # the study (test, learning run), for the "carry on with" hint
        self.resume = resume or f"tune resume {name}"  # the command that carries it on
        self.patience = patience_from_env() if patience is None else patience
        self.first, self.cap = first, cap
        self.log = log
        self.sleep = sleep
        self.outages = 0  # how many outages this driver rode out or gave up on
        self.retries = 0  # calls repeated, over all outages
        self._active = False

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()``, repeated with backoff while the database is unreachable.

        A call made inside another (a compound step whose parts also go through ``call``) runs
        once: the outermost call repeats the whole step, and the outage is logged once."""
        if self._active:
            return fn()
        self._active = True
        try:
            return self._call(fn)
        finally:
            self._active = False

    def _call(self, fn: Callable[[], T]) -> T:
        started = None
        delay = self.first
        while True:
            try:
                result = fn()
            except Exception as exc:
                if not is_transient(exc):
                    raise
                now = time.monotonic()
                if started is None:
                    started = now
                    self.outages += 1
                    self.log(f"database {self.masked} unreachable ({_reason(exc, self._password)}); "
                             f"retrying with backoff for up to {self.patience:.0f} s")
                waited = now - started
                if waited + delay > self.patience:
                    raise StorageError(
                        f"database {self.masked} unreachable for {waited:.0f} s "
                        f"({_reason(exc, self._password)}); every stored game is safe: when it is back, "
                        f"carry on with  {self.resume}") from None
                self.retries += 1
                self.sleep(delay)
                delay = min(2 * delay, self.cap)
                continue
            if started is not None:
                self.log(f"database {self.masked} is back after {time.monotonic() - started:.1f} s; carrying on")
            return result
