"""Study databases: where they live, masking, refusing bad URLs, SQLite WAL, PostgreSQL."""
import pytest
import sqlalchemy as sa

from tuning.errors import StorageError, StudyNotFound
from tuning.storage.database import default_url, mask, open_storage, parse_url, resolve_url


def test_precedence_option_then_env_then_spec_then_default(monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    assert resolve_url("q") == default_url("q") == "sqlite:///studies/q.db"
    assert resolve_url("q", spec_storage="sqlite:///s.db") == "sqlite:///s.db"
    monkeypatch.setenv("OCEAN_STORAGE", "sqlite:///env.db")
    assert resolve_url("q", spec_storage="sqlite:///s.db") == "sqlite:///env.db"
    assert resolve_url("q", option="sqlite:///opt.db", spec_storage="sqlite:///s.db") == "sqlite:///opt.db"


def test_passwords_are_masked_even_in_unparsable_urls():
    assert mask("postgresql+psycopg://lab:s3cret@db:5432/ocean") == "postgresql+psycopg://lab:***@db:5432/ocean"
    assert "s3cret" not in mask("weird://lab:s3cret@db/x y")
    assert mask("sqlite:///studies/q.db") == "sqlite:///studies/q.db"


@pytest.mark.parametrize("url, words", [
    ("not a url", "bad storage URL"),
    ("mysql://root@localhost/db", "unsupported database 'mysql'"),
    ("sqlite://", "in-memory"),
    ("sqlite:///:memory:", "in-memory"),
])
def test_bad_urls_are_refused_with_one_line(url, words):
    with pytest.raises(StorageError, match=words) as info:
        parse_url(url)
    assert "\n" not in str(info.value)


def test_unreachable_postgres_is_one_line_without_the_password():
    with pytest.raises(StorageError) as info:
        open_storage("postgresql+psycopg://lab:s3cret@127.0.0.1:1/nowhere")
    message = str(info.value)
    assert "cannot open the study database" in message and "s3cret" not in message and "\n" not in message


def test_a_file_that_is_not_a_database_is_one_line(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match="cannot open the study database"):
        open_storage(f"sqlite:///{junk}")


def test_must_exist_never_creates_a_sqlite_file(tmp_path):
    with pytest.raises(StudyNotFound, match="no study database"):
        open_storage(f"sqlite:///{tmp_path}/none.db", must_exist=True)
    assert not (tmp_path / "none.db").exists()


def test_sqlite_runs_in_wal_mode_and_creates_our_tables_beside_optunas(tmp_path):
    store = open_storage(f"sqlite:///{tmp_path}/sub/dir/s.db")  # parent folders are created
    try:
        with store.engine.connect() as conn:
            assert conn.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
        tables = set(sa.inspect(store.engine).get_table_names())
        assert {"ocean_games", "ocean_trial_leases", "ocean_validations", "studies", "trials"} <= tables
    finally:
        store.close()


def test_postgres_gets_the_same_tables(pg_url):
    store = open_storage(pg_url)
    try:
        tables = set(sa.inspect(store.engine).get_table_names())
        assert {"ocean_games", "ocean_trial_leases", "ocean_validations", "studies", "trials"} <= tables
    finally:
        store.close()


def test_must_exist_refuses_a_database_without_studies_and_writes_nothing(tmp_path, pg_url):
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    before = other.read_bytes()
    for url in (f"sqlite:///{other}", pg_url):
        with pytest.raises(StudyNotFound, match="is not a study database") as info:
            open_storage(url, must_exist=True)
        assert "\n" not in str(info.value)
    assert other.read_bytes() == before and not (tmp_path / "other.db-wal").exists()
    engine = sa.create_engine(pg_url)
    assert sa.inspect(engine).get_table_names() == []
    engine.dispose()


def test_probe_checks_a_storage_without_creating_anything(tmp_path):
    from tuning.storage.database import probe_storage

    probe_storage(f"sqlite:///{tmp_path}/new.db")  # to be created by launch: fine, and not created yet
    assert not (tmp_path / "new.db").exists()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"garbage " * 100)
    with pytest.raises(StorageError, match="cannot open the study database .*not a database"):
        probe_storage(f"sqlite:///{junk}")
    with pytest.raises(StorageError, match="lab:\\*\\*\\*@127.0.0.1:1") as info:
        probe_storage("postgresql+psycopg://lab:s3cret@127.0.0.1:1/x")
    assert "s3cret" not in str(info.value)


def test_drivers_opening_a_fresh_database_together_all_succeed(pg_url, tmp_path):
    # Table creation is serialized (advisory lock / directory lock): no "already exists" race.
    import threading

    for url in (pg_url, f"sqlite:///{tmp_path}/fresh.db"):
        errors, stores = [], []

        def open_one():
            try:
                stores.append(open_storage(url))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert errors == [] and len(stores) == 4
        for store in stores:
            store.close()


def test_a_foreign_optuna_client_initialising_the_same_fresh_database_is_no_error(tmp_path):
    # optuna-dashboard (or any plain Optuna client) started on a new study database writes
    # Optuna's version rows without our schema lock; a driver opening it at the same moment
    # must not fail on their unique key (CI once lost a drill to it).
    import threading

    import optuna

    for round_ in range(6):
        url = f"sqlite:///{tmp_path}/fresh{round_}.db"
        errors, stores = [], []
        start = threading.Barrier(6)

        def ours():
            start.wait()
            try:
                stores.append(open_storage(url))
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        def foreign():
            start.wait()
            for _ in range(5):
                try:
                    optuna.storages.RDBStorage(url, skip_table_creation=True,
                                               skip_compatibility_check=True).engine.dispose()
                except Exception:  # noqa: BLE001 - the foreign client may lose races; we may not
                    pass

        threads = [threading.Thread(target=ours) for _ in range(3)]
        threads += [threading.Thread(target=foreign) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert errors == [] and len(stores) == 3
        for store in stores:
            store.close()


def test_a_reader_waits_for_the_driver_creating_the_database(tmp_path):
    import threading

    from tuning.storage.database import _schema_guard, open_optuna_readonly

    url = f"sqlite:///{tmp_path}/new.db"
    open_storage(url).close()
    engine = sa.create_engine(url)
    opened = threading.Event()

    def read():
        open_optuna_readonly(url).engine.dispose()
        opened.set()

    with _schema_guard(engine, parse_url(url)):
        reader = threading.Thread(target=read)
        reader.start()
        assert not opened.wait(1.0)  # blocked while a creator holds the schema lock
    assert opened.wait(30)
    reader.join()
    engine.dispose()
