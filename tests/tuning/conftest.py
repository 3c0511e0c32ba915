"""Fixtures of the tuning tests: tiny study files, a PostgreSQL server of a module's own to stop
under a running driver (the shared databases and the session's Ray are suite-wide, in
tests/conftest.py)."""
from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from tests.tuning.fakes import tiny_spec_dict
from tests.tuning.private_pg import PrivatePostgres, postgres_bin


@pytest.fixture
def spec_dict():
    return tiny_spec_dict()


@pytest.fixture(scope="module")
def private_pg():
    """A PostgreSQL server of this module's own, to stop and start at will."""
    if postgres_bin() is None:
        pytest.skip("needs the PostgreSQL server programs (initdb, pg_ctl) for a private cluster")
    server = PrivatePostgres()
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture
def own_pg(private_pg):
    """A fresh database on the private server, its URL carrying a password that must never be
    printed (trust auth ignores it)."""
    name = f"ocean_outage_{uuid.uuid4().hex[:10]}"

    def admin(sql: str) -> None:  # a new connection each time: a pooled one would not survive the restart
        engine = sa.create_engine(private_pg.url(), isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
        with engine.connect() as conn:
            conn.execute(sa.text(sql))
        engine.dispose()

    private_pg.start()  # whatever the previous test left
    admin(f'CREATE DATABASE "{name}"')
    try:
        yield private_pg.url(name, password="outage-pw-7f3a")
    finally:
        private_pg.start()
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
