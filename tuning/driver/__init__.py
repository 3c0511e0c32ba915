"""The run: ``runner`` (the ask/tell loop: scheduling, the pruning and failure policy), ``leases``
(which driver runs which trial; adopting the trials of drivers that are gone), ``asking``
(creating a trial with a record of the study as it stood, so its parameters can be drawn again
exactly), ``spsapairs`` (SPSA's pairs compared on common maps), ``pool`` (batches
in flight on Ray), ``worker`` (what a Ray task plays), ``evaluation`` (a trial's batches and how
its games become a score), ``bottest`` (the driver and verdict of a sequential test, ``tune test``), ``learn`` (TD self-play
rounds of ``tune learn``), ``cluster``
(joining Ray) and ``programs`` (checking external
programs and frozen bots on every node before a study plays them). May import: ``tuning.study``,
``tuning.stats``, ``tuning.storage``, ``tuning.errors`` and ``ocean``; never results or the
command line. The names below load on first use (Ray is slow to import).
"""
from importlib import import_module

__all__ = ["StudyRunner", "RunReport", "RunProgress", "Batch", "BatchPool", "play_batch", "connect",
           "check_programs", "run_learn", "LearnOptions"]

_HOME = {
    "StudyRunner": "tuning.driver.runner",
    "RunReport": "tuning.driver.runner",
    "RunProgress": "tuning.driver.runner",
    "Batch": "tuning.driver.evaluation",
    "BatchPool": "tuning.driver.pool",
    "play_batch": "tuning.driver.worker",
    "connect": "tuning.driver.cluster",
    "check_programs": "tuning.driver.programs",
    "run_learn": "tuning.driver.learn",
    "LearnOptions": "tuning.driver.learn",
}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
