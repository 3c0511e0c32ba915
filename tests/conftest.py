"""Suite-wide settings.

The services shared by the suite: throwaway databases (SQLite and the real local PostgreSQL,
``tests.databases``) and one real local Ray for the session.

Tests that need a service this machine may lack (PostgreSQL, headless Chromium) skip on a
developer's machine without it. CI must never pass by skipping: `.ci/run` sets
``OCEAN_NO_SKIPS=1``, which turns every skip into a failure naming what was missing.
"""
import os
import signal
import tempfile

import pytest


def pytest_configure(config):
    # The suite never reads the developer's own panel file (ocean panel add); subprocesses
    # inherit this too.
    os.environ["OCEAN_PANELS"] = os.path.join(tempfile.mkdtemp(prefix="ocean-panels-"), "panels.toml")


MAX_WORKERS = 4


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (the suite's default, pyproject.toml): one worker per core, at most
    ``MAX_WORKERS``. Each worker starts its own local Ray and its programs, and past four the
    memory they take grows faster than the time they save. The drills (``-m drill``) run one at a
    time in one process: each loads the machine on purpose (clusters, kills, busy loops)."""
    markexpr = config.option.markexpr or ""
    if "drill" in markexpr and "not drill" not in markexpr:
        return 0
    return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("OCEAN_NO_SKIPS") == "1":
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"skipped, but OCEAN_NO_SKIPS=1 forbids skips: {reason}"


@pytest.fixture
def unsandboxed(monkeypatch):
    """Programs started during one test (here and in the commands it runs) run without the sandbox
    (``OCEAN_NO_SANDBOX``): for test programs that write a log outside their own folder, which the
    sandbox shows them read-only (tests/ocean/test_sandbox.py checks the sandbox itself)."""
    monkeypatch.setenv("OCEAN_NO_SANDBOX", "1")


@pytest.fixture
def ctrl_c_reaches_python():
    """Python's own SIGINT handler (KeyboardInterrupt) for one test, whatever disposition the
    run inherited: pytest started as a background job of a script, under nohup or with
    ``(trap '' INT; python -m pytest ...)`` starts with SIGINT ignored, and a test about Ctrl-C
    needs the press to reach Python. The inherited disposition is restored after the test."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


@pytest.fixture
def user_panels(tmp_path, monkeypatch):
    """A fresh user panel file (``$OCEAN_PANELS``) for one test; yields its path (not created)."""
    from ocean.bots.panel import reload_panels

    path = tmp_path / "conf" / "panels.toml"
    monkeypatch.setenv("OCEAN_PANELS", str(path))
    reload_panels()
    yield path
    monkeypatch.undo()
    reload_panels()


@pytest.fixture(scope="session")
def pg_admin() -> str:
    from tests.databases import PG_ADMIN, pg_available

    if not pg_available(PG_ADMIN):
        # CI starts PostgreSQL (.ci/run); a developer machine without it skips these tests loudly.
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN}")
    return PG_ADMIN


@pytest.fixture
def pg_url(pg_admin):
    """A fresh PostgreSQL database for one test, dropped afterwards."""
    from tests.databases import fresh_database

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
