"""SPSA's pairs under pruning: both trials of an iteration scored on the maps both played.

A pruned trial's score is on the maps it played before it was pruned, chosen for being low; its
partner's on all maps (or on others, if it was pruned too). Their difference is not SPSA's
gradient, so when the second trial of a pair is told and one of the two was pruned, the driver
stores both trials' scores on the maps both played (``tuning.study.spsa.COMMON``) with it, and
the sampler steps on those.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from optuna.trial import TrialState

from tuning.driver.evaluation import summarize
from tuning.storage.handle import StudyHandle
from tuning.study.space import REFERENCE_TRIAL
from tuning.study.spsa import COMMON, partner

__all__ = ["common_scores"]

_TRAIN = "train"


def common_scores(handle: StudyHandle, number: int, scores: Mapping[tuple[str, int], float],
                  opponents: Sequence[str], *, pruned: bool) -> dict:
    """The attribute to store with trial ``number`` (its pair scores ``scores``, ``pruned`` or
    complete) as it is told: {COMMON: ...} if its partner is told already and one of the two is
    pruned, {} otherwise (both complete: their values compare; partner still running: it will
    write the attribute when it is told)."""
    other = partner(number, REFERENCE_TRIAL + 1)
    if other is None:
        return {}
    storage = handle.study._storage
    try:
        trial_id = storage.get_trial_id_from_study_id_trial_number(handle.study._study_id, other)
    except KeyError:  # not created yet
        return {}
    state = storage.get_trial(trial_id).state
    if state not in (TrialState.COMPLETE, TrialState.PRUNED) or not (pruned or state == TrialState.PRUNED):
        return {}
    theirs = handle.games.pair_scores(other, _TRAIN)
    common = sorted(set(scores) & set(theirs))
    if not common:
        return {}
    mine, _ = summarize({k: scores[k] for k in common}, opponents)
    them, _ = summarize({k: theirs[k] for k in common}, opponents)
    return {COMMON: {"pairs": len(common), "scores": {str(number): mine.mean, str(other): them.mean}}}
