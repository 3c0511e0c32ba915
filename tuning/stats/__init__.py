"""Pure statistics over paired games: ``estimates`` (a pair's score, intervals over pairs, the
panel's stratified estimate, paired differences, Wilson, Elo) and ``pruning`` (the sequential
tests that stop a trial worse than the incumbent, and the incumbent's selection bias), ``sprt``
(the pentanomial GSPRT of ``tune test``: log-likelihood ratios, bounds, Elo and normalized Elo),
``power`` (what a budget of paired games can detect: ``tune plan``). May
import: numpy and scipy only (nothing of ``ocean`` or the rest of ``tuning``). The names below
load on first use (SciPy is slow to import).
"""
from importlib import import_module

__all__ = ["Estimate", "estimate", "panel_estimate", "paired_difference", "wilson", "elo", "elo_estimate",
           "panel_elo", "should_prune", "incumbent_bias", "detectable_gain", "pairs_for_gain"]

_HOME = {
    "Estimate": "tuning.stats.estimates",
    "estimate": "tuning.stats.estimates",
    "panel_estimate": "tuning.stats.estimates",
    "paired_difference": "tuning.stats.estimates",
    "wilson": "tuning.stats.estimates",
    "elo": "tuning.stats.estimates",
    "elo_estimate": "tuning.stats.estimates",
    "panel_elo": "tuning.stats.estimates",
    "should_prune": "tuning.stats.pruning",
    "incumbent_bias": "tuning.stats.pruning",
    "detectable_gain": "tuning.stats.power",
    "pairs_for_gain": "tuning.stats.power",
}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
