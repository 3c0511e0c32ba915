"""Suite-wide settings.

Tests that need a service this machine may lack (PostgreSQL, headless Chromium) skip on a
developer's machine without it. CI must never pass by skipping: `.ci/run` sets
``OCEAN_NO_SKIPS=1``, which turns every skip into a failure naming what was missing.
"""
import os
import tempfile

import pytest


def pytest_configure(config):
    # The suite never reads the developer's own panel file (ocean panel add); subprocesses
    # inherit this too.
    os.environ["OCEAN_PANELS"] = os.path.join(tempfile.mkdtemp(prefix="ocean-panels-"), "panels.toml")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("OCEAN_NO_SKIPS") == "1":
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"skipped, but OCEAN_NO_SKIPS=1 forbids skips: {reason}"


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
