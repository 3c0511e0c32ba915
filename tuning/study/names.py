"""The names a user gives (studies, tests, learning runs): plain names, never paths.

A name becomes a file (``studies/NAME.db``), a key in columns of 64 characters and a word of
commands (``tune status NAME``): it must be 1 to 64 letters, digits, ``_``, ``-`` or ``.``,
starting with a letter or a digit. So ``../x``, ``a/b``, ``.hidden``, an empty name and one longer
than the database's column are refused in one line before anything is opened or created.
"""
from __future__ import annotations

import re

from tuning.errors import TuningError

__all__ = ["MAX_NAME", "NAME_RULE", "name_problem", "plain_name"]

MAX_NAME = 64  # the length of the name columns (String(64)) of our tables
NAME_RULE = f"use 1-{MAX_NAME} letters, digits, '_', '-' or '.', starting with a letter or digit"
_NAME = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9_.-]{{0,{MAX_NAME - 1}}}$")


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a plain name (one phrase), or None if it is one."""
    if not isinstance(name, str) or not name:
        return "is empty"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long, more than {MAX_NAME}"
    if "/" in name or "\\" in name:
        return "is a path, not a name"
    if not _NAME.match(name):
        return "is not a plain name"
    return None


def plain_name(name: str, kind: str = "name") -> str:
    """``name`` if it is a plain name, else ``TuningError`` (one line naming ``kind``: "study
    name", "test name", "learning run name")."""
    problem = name_problem(name)
    if problem is not None:
        raise TuningError(f"{kind} {name!r} {problem}: {NAME_RULE}")
    return name
