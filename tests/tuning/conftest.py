"""Fixtures of the tuning tests: tiny study files (the databases and the session's Ray are
suite-wide, in tests/conftest.py)."""
from __future__ import annotations

import pytest

from tests.tuning.fakes import tiny_spec_dict


@pytest.fixture
def spec_dict():
    return tiny_spec_dict()
