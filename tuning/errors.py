"""The one error hierarchy of the tuning service.

Every ``TuningError`` is a user-facing problem whose message is one line that says what is
wrong and how to fix it; the CLI prints it on stderr and exits with code 2. Anything else
escaping is a bug and keeps its traceback.
"""
from __future__ import annotations

__all__ = ["TuningError", "SpecError", "StorageError", "StudyNotFound", "StudyExists", "FrozenBotChanged", "last_line"]


class TuningError(Exception):
    """A problem the user can fix (bad input, unreachable database, missing study)."""


class SpecError(TuningError):
    """A study file or option that does not describe a valid study."""


class StorageError(TuningError):
    """A database URL that cannot be used, or a database that cannot be reached."""


class StudyNotFound(TuningError):
    """The named study is not in the storage."""


class StudyExists(TuningError):
    """``launch`` of a study name the storage already holds."""


class FrozenBotChanged(TuningError):
    """A frozen bot (panel bot or program) that is not the bot it was frozen as, found where it
    was about to play (a Ray node's first game with it)."""


def last_line(error: BaseException) -> str:
    """An error's text as one line: its last (a Ray worker's traceback ends with the error
    itself), or its type's name if it has none."""
    text = str(error).strip()
    return text.splitlines()[-1] if text else type(error).__name__
