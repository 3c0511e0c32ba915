"""Fixtures of the tuning tests: tiny studies, throwaway databases (SQLite and a real local
PostgreSQL), one real local Ray for the session, and a fake pool for scheduler logic."""
from __future__ import annotations

import os

import pytest

from tests.tuning.fakes import tiny_spec_dict

PG_ADMIN = os.environ.get("OCEAN_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


def _pg_available() -> bool:
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(PG_ADMIN)
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        engine.dispose()
        return True
    except sa.exc.SQLAlchemyError:
        return False


@pytest.fixture(scope="session")
def pg_admin() -> str:
    if not _pg_available():
        # CI starts PostgreSQL (.ci/run); a developer machine without it skips these tests loudly.
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN}")
    return PG_ADMIN


def fresh_database(admin_url: str, prefix: str):
    """A new, empty PostgreSQL database (its URL), dropped on exit whatever still uses it: the
    benchmark's throwaway database, one implementation for both."""
    from tuning.scalebench import throwaway_postgres

    return throwaway_postgres(admin_url, prefix)


@pytest.fixture
def pg_url(pg_admin):
    """A fresh PostgreSQL database for one test, dropped afterwards."""
    with fresh_database(pg_admin, "ocean_test") as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path}/study.db"


@pytest.fixture(params=["sqlite", "postgresql"])
def any_url(request, tmp_path):
    """Each test using it runs once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/study.db"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def spec_dict():
    return tiny_spec_dict()


@pytest.fixture(scope="session")
def ray_cluster():
    """One real local Ray (2 CPUs) for the whole session; yields its address so CLI
    subprocesses can join it instead of starting their own."""
    import logging

    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False,
             _node_ip_address="127.0.0.1")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
