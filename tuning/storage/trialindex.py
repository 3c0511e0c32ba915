"""A study's trials counted and summed in SQL, straight from Optuna's tables.

Optuna's RDB storage reads a trial with every parameter, attribute and intermediate value, and
its ``get_n_trials`` counts by reading them all: seconds for a study of thousands of trials.
``tune status`` and opening a study need only counts, the running trials' numbers and one
attribute of the pruned trials, so they ask the database for exactly that. This reads
Optuna's schema (``optuna.storages._rdb.models``, versioned by Optuna's own migrations and
pinned with Optuna in ``.ci/constraints.txt``); tests/tuning/storage/test_trialindex.py compares every
answer with Optuna's API, so a change of schema fails there, not in a user's status.
"""
from __future__ import annotations

import json

import sqlalchemy as sa
from optuna.storages._rdb import models as _m
from optuna.trial import TrialState
from sqlalchemy.engine import Engine

__all__ = ["trial_counts", "running_numbers", "user_attr_sum", "best_complete_number"]


def _of_study(name: str):
    return sa.select(_m.StudyModel.study_id).where(_m.StudyModel.study_name == name).scalar_subquery()


def trial_counts(engine: Engine, name: str) -> dict[TrialState, int]:
    """Trials of study ``name`` by state (every state present, zeros included)."""
    t = _m.TrialModel
    stmt = sa.select(t.state, sa.func.count()).where(t.study_id == _of_study(name)).group_by(t.state)
    counts = dict.fromkeys(TrialState, 0)
    with engine.connect() as conn:
        for state, n in conn.execute(stmt):
            counts[TrialState(state) if not isinstance(state, TrialState) else state] = int(n)
    return counts


def running_numbers(engine: Engine, name: str) -> list[int]:
    """Numbers of the study's running trials."""
    t = _m.TrialModel
    stmt = sa.select(t.number).where(t.study_id == _of_study(name), t.state == TrialState.RUNNING).order_by(t.number)
    with engine.connect() as conn:
        return [int(n) for (n,) in conn.execute(stmt)]


def user_attr_sum(engine: Engine, name: str, key: str, state: TrialState) -> float:
    """The sum of user attribute ``key`` (a number) over the study's trials in ``state``."""
    t, a = _m.TrialModel, _m.TrialUserAttributeModel
    stmt = (sa.select(a.value_json).join(t, t.trial_id == a.trial_id)
            .where(t.study_id == _of_study(name), t.state == state, a.key == key))
    with engine.connect() as conn:
        return float(sum(json.loads(v) or 0 for (v,) in conn.execute(stmt)))



def best_complete_number(engine: Engine, name: str) -> int | None:
    """Number of the complete trial with the highest objective value (the lowest number among
    equals), None before the first complete trial."""
    t, v = _m.TrialModel, _m.TrialValueModel
    stmt = (sa.select(t.number).join(v, v.trial_id == t.trial_id)
            .where(t.study_id == _of_study(name), t.state == TrialState.COMPLETE, v.objective == 0,
                   v.value.is_not(None))
            .order_by(v.value.desc(), t.number).limit(1))
    with engine.connect() as conn:
        number = conn.scalar(stmt)
    return None if number is None else int(number)
