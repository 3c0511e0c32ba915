"""Study databases: where a study lives (URL precedence, masking) and opening one.

One database holds Optuna's RDB storage and our own tables (``tuning.storage.records``). SQLite is the
default (a file under ``studies/``, nothing to install) and runs in WAL mode with a busy timeout
so a status query never blocks a running driver; PostgreSQL serves clusters and several drivers.
"""
from __future__ import annotations

import ctypes
import fcntl
import gc
import os
import re
import sqlite3
import sys
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import optuna
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from tuning.errors import StorageError, StudyNotFound
from tuning.storage.records import create_tables  # our tables live beside Optuna's

__all__ = ["ENV_STORAGE", "DEFAULT_DIR", "default_url", "resolve_url", "remember_storage", "mask", "parse_url",
           "Storage", "open_storage", "open_optuna_readonly", "probe_storage", "storage_error", "hide_passwords_in_argv"]

ENV_STORAGE = "OCEAN_STORAGE"
DEFAULT_DIR = "studies"  # relative to the current directory, like the study files themselves
SQLITE_BUSY_SECONDS = 60  # a writer waits this long for another writer before giving up
_SCHEMA_LOCK = 0x6F6365616E  # PostgreSQL advisory lock key ("ocean") guarding table creation


def default_url(name: str) -> str:
    """``sqlite:///studies/<name>.db``, relative to the current directory."""
    return f"sqlite:///{DEFAULT_DIR}/{name}.db"


def resolve_url(name: str, *, option: str | None = None, spec_storage: str | None = None) -> str:
    """The storage of a run: ``--storage``, else ``$OCEAN_STORAGE``, else the study file's
    ``storage`` (remembered for the commands that take only NAME, ``remember_storage``), else
    the default SQLite file. ``name`` must be a plain name (one-line ``TuningError``
    otherwise): it becomes a file name and a key of 64 characters."""
    from tuning.study.names import plain_name

    plain_name(name)
    return option or os.environ.get(ENV_STORAGE) or spec_storage or _remembered(name) or default_url(name)


def _pointer(name: str) -> Path:
    return Path(DEFAULT_DIR) / f"{name}.storage"


def _remembered(name: str) -> str | None:
    try:
        return _pointer(name).read_text().strip() or None
    except OSError:
        return None


def remember_storage(name: str, url: str) -> None:
    """Note that study NAME lives at ``url`` (its study file's ``storage``) in
    ``studies/NAME.storage``, so that ``tune status NAME`` and the rest find it without
    ``--storage``; the password, if the URL holds one, is left out (give it by PGPASSWORD)."""
    bare = parse_url(url).set(password=None).render_as_string(hide_password=False)
    try:
        _pointer(name).parent.mkdir(parents=True, exist_ok=True)
        _pointer(name).write_text(bare + "\n")
    except OSError:
        pass  # a convenience only: --storage still works


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


_URL_PASSWORD = re.compile(rb"(://[^:/@\s\x00]*:)([^@\s\x00]+)(@)")


def _stars(text: bytes) -> bytes:
    return _URL_PASSWORD.sub(lambda m: m.group(1) + b"*" * len(m.group(2)) + m.group(3), text)


def hide_passwords_in_argv() -> bool:
    """Overwrite, in place, any URL password on this process's command line with '*'s;
    returns True if the command line the kernel shows was changed.

    A password given with ``--storage`` would otherwise stay readable in ``ps`` and
    /proc/PID/cmdline, and Ray copies that command line into its job table as the driver's
    "entrypoint" (``ray list jobs``, the Ray dashboard). The bytes are rewritten where the
    kernel reads them (the argument area /proc/self/stat points at), keeping their length;
    where that is not possible only ``sys.argv`` is masked. ``$OCEAN_STORAGE`` remains the
    way to keep a password off the command line altogether."""
    sys.argv = [_stars(a.encode()).decode() for a in sys.argv]
    try:
        cmdline = Path("/proc/self/cmdline").read_bytes()
        masked = _stars(cmdline)
        if masked == cmdline:
            return False
        fields = Path("/proc/self/stat").read_text().rpartition(")")[2].split()
        arg_start, arg_end = int(fields[45]), int(fields[46])  # fields 48 and 49 of proc(5)
        if arg_end - arg_start != len(cmdline) or ctypes.string_at(arg_start, len(cmdline)) != cmdline:
            return False  # not the layout we expect: touch nothing
        ctypes.memmove(arg_start, masked, len(masked))
    except (OSError, ValueError, IndexError):
        return False
    return Path("/proc/self/cmdline").read_bytes() == masked


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

    def let_go(self) -> None:
        """After a Ctrl-C: give back the connections an interrupted call left checked out, so
        their transactions end and no lock of theirs holds up the writes that follow. Only
        garbage collection reaches a session the interrupt left in a reference cycle, and
        Optuna keeps its session for the thread until told otherwise."""
        with warnings.catch_warnings():  # SQLAlchemy warns that it is cleaning up such connections
            warnings.simplefilter("ignore", sa.exc.SAWarning)
            gc.collect()
            remove = getattr(self.optuna, "scoped_session", None)
            if remove is not None:
                remove.remove()


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


def _is_study_database(url: str, kwargs: dict) -> bool:
    """Whether the database holds Optuna's tables; looked at without writing anything (no WAL
    switch, no tables created), so a mistyped URL never alters someone else's database."""
    probe = sa.create_engine(url, **kwargs)
    try:
        return "studies" in sa.inspect(probe).get_table_names()
    finally:
        probe.dispose()


def probe_storage(url: str) -> None:
    """Check that the database at ``url`` can serve a study, creating and changing nothing:
    ``launch`` calls it before starting Ray, so a wrong URL costs a second, not a cluster."""
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(parsed.database)
        if not path.exists():
            return  # launch creates it
        try:  # read-only: no WAL switch, no journal; SQLite's own connections never clash
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                conn.execute("PRAGMA schema_version").fetchone()
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise storage_error(exc, url, "cannot open the study database") from None
        return
    engine = sa.create_engine(url, **_engine_kwargs(parsed))
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except (sa.exc.SQLAlchemyError, ImportError) as exc:
        raise storage_error(exc, url, "cannot open the study database") from None
    finally:
        engine.dispose()


@contextmanager
def _schema_guard(engine: Engine, parsed: URL) -> Iterator[None]:
    """One process at a time creates tables: drivers launched together on a fresh database
    would otherwise race in CREATE TABLE ("already exists") and in Optuna's version row.
    PostgreSQL: a session advisory lock (freed by the server if we die). SQLite: an flock on
    the database's directory -- never on the database file itself: closing any descriptor of
    that file would drop the POSIX locks SQLite holds on it in this process, and another
    process could then discard the write-ahead log under our feet."""
    if parsed.get_backend_name() == "postgresql":
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": _SCHEMA_LOCK})
            try:
                yield
            finally:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": _SCHEMA_LOCK})
        return
    fd = os.open(Path(parsed.database).resolve().parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by the kernel when we close it, or die
        yield
    finally:
        os.close(fd)


_CREATION_ATTEMPTS = 5  # a fresh database opened while a foreign client initialises it


def _lost_a_creation_race(exc: sa.exc.SQLAlchemyError) -> bool:
    """Whether ``exc`` is what a client that does not take our schema lock (optuna-dashboard
    or any plain Optuna program started on the same new database) causes by creating the same
    tables and version rows at the same moment (Optuna's storage writes its version rows when
    constructed): the rows are the same whoever writes them, so opening again succeeds."""
    text = str(getattr(exc, "orig", None) or exc)
    return isinstance(exc, sa.exc.IntegrityError) or "already exists" in text or "database is locked" in text


def open_optuna_readonly(url: str) -> optuna.storages.RDBStorage:
    """Optuna's storage on an existing study database for reading (drills, benchmarks):
    no tables created, no version check, and the version rows that its constructor writes
    into a database still being created are written under the schema lock, never beside a
    driver creating it."""
    parsed = parse_url(url)
    kwargs = _engine_kwargs(parsed)
    engine = sa.create_engine(url, **kwargs)
    try:
        with _schema_guard(engine, parsed):
            return optuna.storages.RDBStorage(url, engine_kwargs=kwargs, skip_table_creation=True,
                                              skip_compatibility_check=True)
    finally:
        engine.dispose()


def _missing_file_hint(path: Path) -> str:
    """Where a relative path was looked for, and the way to the file of that name here if there
    is one (``cd studies && tune status quick`` looks for studies/quick.db below studies/)."""
    if path.is_absolute():
        return "; launch a study first (tune launch SPEC) or give --storage"
    here = f" (relative to {Path.cwd()}, where tune was started)"
    if path.parent != Path(".") and Path(path.name).exists():
        return f"{here}; {path.name} is here: give --storage sqlite:///{path.name}"
    return f"{here}; launch a study first (tune launch SPEC) or give --storage"


def open_storage(url: str, *, must_exist: bool = False) -> Storage:
    """Open (and if needed create) the study database at ``url``.

    With ``must_exist`` a missing SQLite file, or a database without study tables, is
    ``StudyNotFound`` instead of a new empty study database (``resume``, ``status`` and
    friends never create or alter one by accident).
    """
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(parsed.database)
        if must_exist and not path.exists():
            raise StudyNotFound(f"no study database at {path}{_missing_file_hint(path)}")
        if not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
    kwargs = _engine_kwargs(parsed)
    try:
        if must_exist and not _is_study_database(url, kwargs):
            raise StudyNotFound(f"{mask(url)} is not a study database (it holds no Optuna studies); "
                                "check --storage / $OCEAN_STORAGE, or launch a study there first")
        for attempt in range(_CREATION_ATTEMPTS):
            engine = sa.create_engine(url, **kwargs)
            if parsed.get_backend_name() == "sqlite":
                sa.event.listen(engine, "connect", _on_sqlite_connect)
            try:
                with engine.connect() as conn:  # fail here, with a clear message, if unreachable
                    conn.execute(sa.text("SELECT 1"))
                with _schema_guard(engine, parsed):
                    rdb = optuna.storages.RDBStorage(url, engine_kwargs=kwargs)
                    create_tables(engine)
                break
            except sa.exc.SQLAlchemyError as exc:
                engine.dispose()
                if attempt + 1 == _CREATION_ATTEMPTS or not _lost_a_creation_race(exc):
                    raise
                time.sleep(0.05 * 2 ** attempt)
    except (sa.exc.SQLAlchemyError, RuntimeError, ImportError, OSError) as exc:
        raise storage_error(exc, url, "cannot open the study database") from None
    return Storage(url=url, engine=engine, optuna=rdb)
