"""What a study's games say: ``validation`` (``tune validate``: the top trials and the defaults re-
played on held-out maps), ``verdict`` (gain or no gain shown; the time control a validation was
at), ``plan`` (``tune plan``: a pilot's or a stored study's measures and what its budget can
detect), ``status`` (``tune status``), ``export`` (``tune export``: a
coefficient set with its provenance) ``report`` (``tune report``: the HTML page and its
figures) ``testreport`` (status and report of a ``tune test``) and ``learncurve`` (a ``tune learn`` run's
learning curve). May import: ``tuning.study``, ``tuning.stats``, ``tuning.storage``, ``tuning.driver``,
``tuning.errors`` and ``ocean``; never the command line. The names below load on first use.
"""
from importlib import import_module

__all__ = ["validate_study", "study_status", "best_trial", "choose_trial", "provenance", "render",
           "write_report", "curve_table", "draw_curve"]

_HOME = {
    "validate_study": "tuning.results.validation",
    "study_status": "tuning.results.status",
    "best_trial": "tuning.results.status",
    "choose_trial": "tuning.results.export",
    "provenance": "tuning.results.export",
    "render": "tuning.results.export",
    "write_report": "tuning.results.report",
    "curve_table": "tuning.results.learncurve",
    "draw_curve": "tuning.results.learncurve",
}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
