"""Asking a trial so that its parameters can be drawn again, exactly, by whoever adopts it.

A trial's parameters are drawn outside the study's ask lock (a model sampler reads every
finished trial, which other drivers must not wait for), so a driver can die between creating a
trial and storing them. What a sampler proposes depends on the study it reads, and the study
moves on meanwhile: an adopting driver that drew from the study as it is then would propose
something else. So each trial is created (``ask``) with a record of the study as it stood,
written in the same transaction as the trial itself: which earlier trials were still running,
and which of those had their parameters stored. Every draw, the creator's and an adopter's,
reads the study through ``as_asked``: the trials finished when the trial was created as they
are (a finished trial never changes), the ones then running as running (with their parameters
and system attributes if they were stored by then, else bare) and nothing created later. The
sampler is the trial's own (seeded by the trial's number), so the same view gives the same
proposal, whoever draws it and however late.
"""
from __future__ import annotations

import copy
import datetime

import optuna
from optuna.trial import FrozenTrial, TrialState

__all__ = ["ASKED", "ask", "as_asked", "keep_stored"]

ASKED = "ocean:asked"  # system attribute: {"running": [numbers with parameters], "bare": [numbers without]}


def ask(study: optuna.Study, running: list[FrozenTrial]) -> FrozenTrial:
    """Create the study's next trial (the waiting reference trial first, as ``Study.ask``) with
    the record of ``running`` (the study's RUNNING trials, read under the ask lock) stored in
    the same transaction. The waiting reference has fixed parameters: it needs no record."""
    study._thread_local.cached_all_trials = None
    trial_id = study._pop_waiting_trial_id()
    if trial_id is None:
        record = {"running": sorted(t.number for t in running if t.params),
                  "bare": sorted(t.number for t in running if not t.params)}
        template = FrozenTrial(number=-1, state=TrialState.RUNNING, value=None, values=None,
                               datetime_start=datetime.datetime.now(), datetime_complete=None, params={},
                               distributions={}, user_attrs={}, system_attrs={ASKED: record},
                               intermediate_values={}, trial_id=-1)
        trial_id = study._storage.create_new_trial(study._study_id, template_trial=template)
    return study._storage.get_trial(trial_id)


class _AsAsked:
    """A study's storage that shows trial ``number`` (id ``trial_id``) without parameters, as
    its sampler first saw it (so a trial that died half-way through storing them is drawn in
    full, in order: the second parameter never gets the first one's draw), and lists the other
    trials as they stood when it was created (its ``ASKED`` record; all of them as they are
    without one). Every other call goes to the real storage."""

    def __init__(self, storage, trial_id: int, number: int, record: dict | None) -> None:
        self._storage = storage
        self._trial_id = trial_id
        self._number = number
        self._record = record is not None
        self._running = set((record or {}).get("running", ()))
        self._bare = set((record or {}).get("bare", ()))

    def get_trial(self, trial_id: int) -> FrozenTrial:
        t = self._storage.get_trial(trial_id)
        return _running(t, params=False, own=True) if trial_id == self._trial_id else t

    def get_all_trials(self, study_id, deepcopy: bool = True, states=None) -> list[FrozenTrial]:
        out = []
        for t in self._storage.get_all_trials(study_id, deepcopy=False):
            if t.number == self._number or t.number in self._bare:
                t = _running(t, params=False, own=t.number == self._number)
            elif self._record and t.number > self._number:
                continue
            elif t.number in self._running:
                t = _running(t, params=True)
            if states is None or t.state in states:
                out.append(copy.deepcopy(t) if deepcopy else t)
        return out

    def __getattr__(self, name: str):
        return getattr(self._storage, name)


def _running(t: FrozenTrial, *, params: bool, own: bool = False) -> FrozenTrial:
    """``t`` as a running trial: no value, no intermediate values; with ``params`` its
    parameters and system attributes (a sampler writes those before the parameters are
    stored); without, none of either but its fixed parameters and our record (all of them for
    the trial being drawn: its sampler reads no other, and rewrites the same)."""
    keep = ("ocean:", "fixed_params")
    system = dict(t.system_attrs) if params or own else \
        {k: v for k, v in t.system_attrs.items() if k.startswith(keep)}
    return FrozenTrial(number=t.number, state=TrialState.RUNNING, value=None, values=None,
                       datetime_start=t.datetime_start, datetime_complete=None,
                       params=dict(t.params) if params else {},
                       distributions=dict(t.distributions) if params else {}, user_attrs=dict(t.user_attrs) if own else {},
                       system_attrs=system, intermediate_values={}, trial_id=t._trial_id)


def as_asked(study: optuna.Study, trial_id: int, sampler: optuna.samplers.BaseSampler) -> optuna.Trial:
    """Trial ``trial_id`` of ``study``, to draw every parameter from ``sampler`` (its own)
    reading the study as it stood when the trial was created. Parameters already stored are
    drawn too (the draws come in order) and kept by ``store_params``; ``keep_stored`` then
    puts them in the trial. A trial without a record (the reference trial, or one created
    before records were kept) reads the other trials as they are."""
    frozen = study._storage.get_trial(trial_id)
    view = copy.copy(study)
    view._thread_local = type(study._thread_local)()  # its own cache of the trials it lists
    view.sampler = sampler
    view._storage = _AsAsked(study._storage, trial_id, frozen.number, frozen.system_attrs.get(ASKED))
    return optuna.Trial(view, trial_id)


def keep_stored(trial: optuna.Trial) -> optuna.Trial:
    """``trial`` (drawn through ``as_asked`` and stored) with the parameters as stored: those a
    dead driver had stored before win over the draws (the same values, unless they were stored
    by other means)."""
    trial._cached_frozen_trial = trial.study._storage._storage.get_trial(trial._trial_id)
    return trial
