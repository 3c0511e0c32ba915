"""The three kinds of named things one database holds: studies (``tune launch``), bot tests
(``tune test``) and learning runs (``tune learn``). ``tune status NAME`` and ``tune report NAME``
look NAME up among all three, so a name belongs to one kind only: creating a thing under a name
another kind already holds is refused in one line (``refuse_other_kinds``), under the creating
command's lock."""
from __future__ import annotations

import sqlalchemy as sa

from tuning.errors import TuningError

__all__ = ["STUDY", "TEST", "LEARN", "kind_of", "names_of", "refuse_other_kinds"]

STUDY, TEST, LEARN = "study", "test", "learn"
# (kind, table, name column, how a person names it, the command that carries it on)
_KINDS = ((STUDY, "studies", "study_name", "a study", "tune resume {name}"),
          (TEST, "ocean_bot_tests", "name", "a bot test", "tune test {name}"),
          (LEARN, "ocean_learn_runs", "name", "a learning run", "tune learn {name}"))


def kind_of(engine: sa.Engine, name: str) -> list[str]:
    """The kinds (``STUDY``, ``TEST``, ``LEARN``) that hold ``name`` in this database."""
    tables = set(sa.inspect(engine).get_table_names())
    found = []
    with engine.connect() as conn:
        for kind, table, column, _, _ in _KINDS:
            if table in tables and conn.execute(sa.text(f"SELECT 1 FROM {table} WHERE {column} = :name"),
                                                {"name": name}).first() is not None:
                found.append(kind)
    return found


def names_of(engine: sa.Engine, kind: str) -> list[str]:
    """The names of every thing of ``kind`` in this database, sorted (none if it has no table)."""
    _, table, column, _, _ = next(k for k in _KINDS if k[0] == kind)
    if table not in set(sa.inspect(engine).get_table_names()):
        return []
    with engine.connect() as conn:
        return sorted(row[0] for row in conn.execute(sa.text(f"SELECT {column} FROM {table}")))


def refuse_other_kinds(engine: sa.Engine, masked: str, name: str, kind: str) -> None:
    """One-line ``TuningError`` if ``name`` is already held by a kind other than ``kind``."""
    for other in kind_of(engine, name):
        if other != kind:
            _, _, _, what, command = next(k for k in _KINDS if k[0] == other)
            mine = next(k[3] for k in _KINDS if k[0] == kind)
            raise TuningError(f"{name!r} is {what} in {masked} ({command.format(name=name)}); give the {mine[2:]} "
                              f"another name: a study, a bot test and a learning run never share one")
