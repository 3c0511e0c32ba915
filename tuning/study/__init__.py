"""The study definition: what a study tunes, against whom, on which maps, and how trials are
proposed. ``spec`` (study files, validated into a ``StudySpec``), ``space`` (the search space:
Optuna distributions and the full coefficient set a trial plays, trial 0 the reference),
``samplers`` (the seeded sampler of each trial), ``spsa`` (the SPSA sampler), ``opponents`` (the
panel, the study's own bot and the programs it plays), ``batching`` (maps per Ray task),
``testspec`` (a sequential test's definition: ``tune test``). May import: ``ocean``,
``tuning.stats`` and ``tuning.errors`` only (no database, no Ray). The names below load on first
use.
"""
from importlib import import_module

__all__ = ["StudySpec", "load_spec", "parse_spec", "SearchSpace", "build_space", "REFERENCE_TRIAL",
           "make_sampler", "SPSASampler", "resolve_panel", "study_bot", "study_programs", "BatchSizer"]

_HOME = {
    "StudySpec": "tuning.study.spec",
    "load_spec": "tuning.study.spec",
    "parse_spec": "tuning.study.spec",
    "SearchSpace": "tuning.study.space",
    "build_space": "tuning.study.space",
    "REFERENCE_TRIAL": "tuning.study.space",
    "make_sampler": "tuning.study.samplers",
    "SPSASampler": "tuning.study.spsa",
    "resolve_panel": "tuning.study.opponents",
    "study_bot": "tuning.study.opponents",
    "study_programs": "tuning.study.opponents",
    "BatchSizer": "tuning.study.batching",
}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
