"""A database outage that outlasts the driver's patience ends with one line saying how to carry
on: ``tune resume NAME`` for a study, ``tune test NAME`` for a test (issue 32, item 9)."""
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
