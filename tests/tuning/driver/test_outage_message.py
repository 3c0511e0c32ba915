"""A database outage that outlasts the driver's patience ends with one line saying how to carry
on: ``tune resume NAME`` for a study, ``tune test NAME`` for a test, ``tune learn NAME ...`` for
a learning run (issue 32, item 9)."""
import pytest
import sqlalchemy as sa

from tuning.driver.bottest import TestRunner
from tuning.errors import StorageError
from tuning.storage.teststore import open_test
from tuning.study.testspec import TestOptions


def test_a_tests_outage_message_says_tune_test(sqlite_url):
    down = sa.create_engine("postgresql+psycopg://lab:s3cret@127.0.0.1:1/x")

    def refused():
        with down.connect():
            pass

    handle = open_test("check", sqlite_url, TestOptions(new="random", base="chaser"))
    try:
        retry = TestRunner(handle, log=lambda line: None).retry
        retry.patience, retry.sleep = 1.2, lambda seconds: None
        with pytest.raises(StorageError) as info:
            retry.call(refused)
    finally:
        handle.close()
        down.dispose()
    message = str(info.value)
    assert "carry on with  tune test check" in message and "tune resume" not in message and "\n" not in message


def test_a_learning_run_rides_out_an_outage_and_past_its_patience_names_tune_learn(private_pg, own_pg):
    """The store of ``tune learn`` goes through the same ``Retry`` (a real PostgreSQL stopped and
    started under it): it waits for the database, and past its patience it stops in one line
    naming the command given, every stored checkpoint kept."""
    import threading

    from tuning.storage.learnstore import Checkpoint, open_learn

    store = open_learn("run", own_pg, create=True, resume="tune learn run --games 90 --out w.toml")
    lines = []
    store.retry.log = lines.append
    try:
        store.create_or_check({"games": 90})
        store.add_checkpoint(Checkpoint(0, 0, {"a": 0.0}, 0.0, 0, 0.0))
        store.retry.patience = 1.5
        private_pg.stop()
        with pytest.raises(StorageError) as info:
            store.add_checkpoint(Checkpoint(1, 30, {"a": 0.5}, 0.1, 100, 1.0))
        private_pg.start()
        assert [cp.round for cp in store.checkpoints()] == [0]  # the old connections are gone: retried
        message = str(info.value)
        assert message.startswith(f"database postgresql+psycopg://postgres:***@127.0.0.1:{private_pg.port}/")
        assert message.endswith("carry on with  tune learn run --games 90 --out w.toml") and "\n" not in message
        assert "outage-pw-7f3a" not in message + "".join(lines)

        store.retry.patience = 120.0  # within its patience: the call waits for the database
        private_pg.stop()
        threading.Timer(1.0, private_pg.start).start()
        store.add_checkpoint(Checkpoint(1, 30, {"a": 0.5}, 0.1, 100, 1.0))
        assert [(cp.round, cp.weights) for cp in store.checkpoints()] == [(0, {"a": 0.0}), (1, {"a": 0.5})]
        down = [line for line in lines if "unreachable" in line]  # one line per outage, not per try
        assert len(down) == store.retry.outages == sum("is back after" in line for line in lines) + 1
    finally:
        private_pg.start()
        store.storage.close()
