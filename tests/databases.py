"""Throwaway PostgreSQL databases for the tests, on the local server (``$OCEAN_TEST_PG``).

The tests' own helper: benchmarks keep theirs (``benchmarks.scalebench.throwaway_postgres``),
so no test depends on benchmark code for its fixtures."""
from __future__ import annotations

import contextlib
import os
import uuid
from typing import Iterator

import sqlalchemy as sa

__all__ = ["PG_ADMIN", "pg_available", "fresh_database"]

PG_ADMIN = os.environ.get("OCEAN_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


def pg_available(admin_url: str = PG_ADMIN) -> bool:
    """Whether the PostgreSQL server at ``admin_url`` answers."""
    try:
        engine = sa.create_engine(admin_url)
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        engine.dispose()
        return True
    except sa.exc.SQLAlchemyError:
        return False


@contextlib.contextmanager
def fresh_database(admin_url: str, prefix: str) -> Iterator[str]:
    """A new, empty database on the server of ``admin_url`` (its URL), dropped on exit whatever
    still uses it."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        try:
            yield sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()
