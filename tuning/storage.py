"""Study databases: where a study lives (URL precedence, masking) and opening one.

One database holds Optuna's RDB storage and our own tables (``tuning.records``). SQLite is the
default (a file under ``studies/``, nothing to install) and runs in WAL mode with a busy timeout
so a status query never blocks a running driver; PostgreSQL serves clusters and several drivers.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import optuna
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from tuning.errors import StorageError, StudyNotFound

__all__ = ["ENV_STORAGE", "DEFAULT_DIR", "default_url", "resolve_url", "mask", "parse_url",
           "Storage", "open_storage", "storage_error"]

ENV_STORAGE = "OCEAN_STORAGE"
DEFAULT_DIR = "studies"  # relative to the current directory, like the study files themselves
SQLITE_BUSY_SECONDS = 60  # a writer waits this long for another writer before giving up


def default_url(name: str) -> str:
    """``sqlite:///studies/<name>.db``, relative to the current directory."""
    return f"sqlite:///{DEFAULT_DIR}/{name}.db"


def resolve_url(name: str, *, option: str | None = None, spec_storage: str | None = None) -> str:
    """The storage of a run: ``--storage``, else ``$OCEAN_STORAGE``, else the study file's
    ``storage``, else the default SQLite file."""
    return option or os.environ.get(ENV_STORAGE) or spec_storage or default_url(name)


def parse_url(url: str) -> URL:
    """A SQLAlchemy URL for SQLite or PostgreSQL; ``StorageError`` otherwise."""
    try:
        parsed = sa.make_url(url)
    except (sa.exc.ArgumentError, ValueError):
        raise StorageError(f"bad storage URL {mask(url)!r}; expected e.g. sqlite:///studies/NAME.db "
                           "or postgresql+psycopg://USER@HOST:5432/DB") from None
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise StorageError(f"storage {mask(url)!r}: unsupported database {backend!r}; use sqlite or postgresql")
    if backend == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise StorageError("storage: an in-memory SQLite database would vanish with the driver; give a file, "
                           "e.g. sqlite:///studies/NAME.db")
    return parsed


def mask(url: str) -> str:
    """The URL with its password replaced by ``***`` (safe to print and log)."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        # Unparsable: hide anything between '://user:' and '@' the crude way.
        head, sep, tail = url.partition("://")
        if sep and "@" in tail:
            creds, _, host = tail.rpartition("@")
            user = creds.split(":", 1)[0]
            return f"{head}://{user}:***@{host}" if ":" in creds else url
        return url


@dataclass
class Storage:
    """An open study database: our engine and Optuna's storage on the same URL."""

    url: str
    engine: Engine
    optuna: optuna.storages.RDBStorage

    @property
    def masked(self) -> str:
        return mask(self.url)

    def close(self) -> None:
        self.engine.dispose()
        self.optuna.engine.dispose()


def storage_error(exc: Exception, url: str, doing: str) -> StorageError:
    """A driver or schema error turned into one line, with any password scrubbed."""
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    reason = reason[0] if reason else type(exc).__name__
    password = sa.make_url(url).password if "://" in url else None
    if password:
        reason = reason.replace(str(password), "***")
    return StorageError(f"{doing} {mask(url)}: {reason}")


def _engine_kwargs(parsed: URL) -> dict:
    if parsed.get_backend_name() == "sqlite":
        # sqlite3's timeout is its busy handler: wait for a lock instead of "database is locked".
        return {"connect_args": {"timeout": SQLITE_BUSY_SECONDS}}
    return {"pool_pre_ping": True}  # a cluster database may restart under a long study


def _on_sqlite_connect(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
    cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL; a power cut loses at most the last batch
    cursor.close()


def open_storage(url: str, *, must_exist: bool = False) -> Storage:
    """Open (and if needed create) the study database at ``url``.

    With ``must_exist`` a missing SQLite file is ``StudyNotFound`` instead of a new empty
    database (``resume``, ``status`` and friends never create one by accident).
    """
    from tuning.records import create_tables  # our tables live beside Optuna's

    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(parsed.database)
        if must_exist and not path.exists():
            raise StudyNotFound(f"no study database at {path}; launch a study first (tune launch SPEC) "
                                "or give --storage")
        if not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
    kwargs = _engine_kwargs(parsed)
    try:
        engine = sa.create_engine(url, **kwargs)
        if parsed.get_backend_name() == "sqlite":
            sa.event.listen(engine, "connect", _on_sqlite_connect)
        with engine.connect() as conn:  # fail here, with a clear message, if unreachable
            conn.execute(sa.text("SELECT 1"))
        rdb = optuna.storages.RDBStorage(url, engine_kwargs=kwargs)
        create_tables(engine)
    except (sa.exc.SQLAlchemyError, RuntimeError, ImportError) as exc:
        raise storage_error(exc, url, "cannot open the study database") from None
    return Storage(url=url, engine=engine, optuna=rdb)
