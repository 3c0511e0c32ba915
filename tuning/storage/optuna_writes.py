"""A trial's parameters, and its attributes, stored by Optuna in one transaction each.

Optuna's RDB storage commits every parameter and every user attribute in a transaction of its
own (a read of the trial's state, the write, a commit): with the cluster study's 16 parameters
and the ten attributes a driver stores when it tells a trial, that is 26 commits per trial,
about half of the driver's per-trial database time (docs/benchmarks.md, "Driver and database
at scale"). Here the same rows are written by Optuna's own per-row code, with its checks (the
trial must still be running, a parameter's distribution must match the study's), inside one
transaction. Those per-row helpers are private to Optuna; where they are missing (another
Optuna version, or a storage other than its RDB storage) every row goes through the public
call, one transaction each, as before.
"""
from __future__ import annotations

from typing import Any, Callable

import optuna
from optuna.distributions import BaseDistribution

__all__ = ["draw_params", "store_params", "store_user_attrs"]


def _rdb(storage) -> Any | None:
    """Optuna's RDB storage under ``storage`` (a study's storage is wrapped in a cache), if its
    per-row helpers are there."""
    backend = getattr(storage, "_backend", storage)
    if not isinstance(backend, optuna.storages.RDBStorage):
        return None
    if not all(hasattr(backend, n) for n in ("_set_trial_param_without_commit", "_set_trial_attr_without_commit",
                                             "scoped_session")):
        return None
    return backend


def _session(backend):
    from optuna.storages._rdb.storage import _create_scoped_session

    return _create_scoped_session(backend.scoped_session, True)


class _KeepParams:
    """Stands in for a trial's storage while its parameters are drawn: the sampler reads the
    study as usual; the parameters it draws stay in the trial (as Optuna keeps them there) and
    nothing is written until ``store_params``."""

    def __init__(self, storage) -> None:
        self._storage = storage

    def set_trial_param(self, trial_id: int, name: str, internal: float, distribution: BaseDistribution) -> None:
        pass

    def __getattr__(self, name: str):  # every read, and any other write, goes to the real storage
        return getattr(self._storage, name)


def draw_params(trial: optuna.Trial, suggest: Callable[[optuna.Trial], None]) -> None:
    """Run ``suggest(trial)`` (its ``suggest_*`` calls) without storing what it draws: the
    values are in ``trial.params`` for ``store_params``. Run again after an error, it draws only
    what is missing (Optuna's trial keeps what it drew)."""
    storage = trial.storage
    trial.storage = _KeepParams(storage)
    try:
        suggest(trial)
    finally:
        trial.storage = storage


def _known_distributions(storage, trial_id: int) -> dict[str, BaseDistribution]:
    """The study's parameter distributions as the storage's cache knows them (Optuna's cached
    storage passes them on, sparing a query over the study's parameters per parameter stored;
    it fills the dict as parameters are stored, so do we); a throwaway dict if there is none."""
    try:
        study_id, _ = storage._trial_id_to_study_id_and_number[trial_id]
        return storage._studies[study_id].param_distribution
    except (AttributeError, KeyError, TypeError):
        return {}


def store_params(trial: optuna.Trial) -> None:
    """Store every parameter ``trial`` holds in one transaction; those the database already has
    (a retry after the commit was lost with the connection) are left as they are."""
    storage, trial_id = trial.storage, trial._trial_id
    params = [(name, dist.to_internal_repr(trial.params[name]), dist) for name, dist in trial.distributions.items()]
    backend = _rdb(storage)
    if backend is None:
        stored = storage.get_trial(trial_id).distributions
        for name, internal, dist in params:
            if name not in stored:
                storage.set_trial_param(trial_id, name, internal, dist)
        return
    from optuna.storages._rdb import models

    known = _known_distributions(storage, trial_id)
    with _session(backend) as session:
        stored = {name for (name,) in session.query(models.TrialParamModel.param_name)
                  .filter(models.TrialParamModel.trial_id == trial_id)}
        for name, internal, dist in params:
            if name not in stored:  # checked against the study's distribution, as Optuna does
                backend._set_trial_param_without_commit(session, trial_id, name, internal, dist, known.get(name))
    for name, _, dist in params:
        known.setdefault(name, dist)


def store_user_attrs(storage, trial_id: int, attrs: dict[str, Any]) -> None:
    """Set a trial's user attributes in one transaction (each is an upsert: a retry repeats it
    harmlessly)."""
    backend = _rdb(storage)
    if backend is None:
        for key, value in attrs.items():
            storage.set_trial_user_attr(trial_id, key, value)
        return
    from optuna.storages._rdb import models

    with _session(backend) as session:
        for key, value in attrs.items():
            backend._set_trial_attr_without_commit(session, models.TrialUserAttributeModel, trial_id, key, value)
