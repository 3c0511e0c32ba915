"""The study database: ``database`` (where a study lives: URLs, masking, opening SQLite or
PostgreSQL), ``records`` (our tables beside Optuna's), ``gamestore`` (their reads and writes,
the only place that commits them), ``batchstore`` (a Ray worker storing its own batch),
``optuna_writes`` (a trial's parameters and attributes in one transaction), ``trialindex``
(trials counted in SQL), ``retry`` (riding out outages), ``locks`` (driver identity, study-wide
critical sections) ``handle`` (a study created or opened: the ``StudyHandle``) and ``teststore`` (a sequential
test's definition and games: ``tune test``) and ``learnstore`` (a ``tune learn`` run's definition,
checkpoints and curve). May import:
``tuning.study``, ``tuning.stats``, ``tuning.errors`` and ``ocean``; never the driver, results
or command line. The names below load on first use.
"""
from importlib import import_module

__all__ = ["Storage", "open_storage", "resolve_url", "mask", "GameStore", "Retry", "StudyHandle",
           "create_study", "open_study", "LearnStore", "open_learn"]

_HOME = {
    "Storage": "tuning.storage.database",
    "open_storage": "tuning.storage.database",
    "resolve_url": "tuning.storage.database",
    "mask": "tuning.storage.database",
    "GameStore": "tuning.storage.gamestore",
    "Retry": "tuning.storage.retry",
    "StudyHandle": "tuning.storage.handle",
    "create_study": "tuning.storage.handle",
    "open_study": "tuning.storage.handle",
    "LearnStore": "tuning.storage.learnstore",
    "open_learn": "tuning.storage.learnstore",
}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
