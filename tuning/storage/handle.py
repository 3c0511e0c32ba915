"""A study as the service sees it: the Optuna study, its spec, search space, panel and games.

``create_study`` is the only place a study is born (spec, panel and target stored with it; the
bot's defaults enqueued as trial 0); everything else opens an existing one with ``open_study``,
so ``resume``, ``status``, ``validate`` and ``export`` need only the study's name and storage.

Creation takes several commits (Optuna's study, then each attribute, then trial 0), so it runs
under the study's create lock: drivers launched together wait for the first one instead of
seeing half a study, and a launch killed half-way is finished by the next ``launch`` or (once
the spec is stored) by ``resume``.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass

import optuna
from optuna.trial import FrozenTrial, TrialState

from ocean.bots import BotSpec
from tuning.errors import StudyExists, StudyNotFound, TuningError
from tuning.storage.batchstore import worker_stores
from tuning.storage.database import Storage, open_storage
from tuning.storage.gamestore import GameStore
from tuning.storage.kinds import STUDY, refuse_other_kinds
from tuning.storage.locks import CREATE_LOCK, driver_id, hold
from tuning.storage.provenance import ATTR_CODE, check_code, code_record, package_version, study_code
from tuning.storage.trialindex import trial_counts
from tuning.study.batching import BatchSizer
from tuning.study.opponents import (
    checked_bots, panel_from_json, panel_to_json, resolve_panel, study_bot, study_opponents, study_programs,
)
from tuning.study.samplers import make_sampler
from tuning.study.space import SearchSpace, build_space
from tuning.study.spec import StudySpec, parse_spec
from tuning.storage.teststore import refuse_test_name

__all__ = ["StudyExists", "StudyHandle", "create_study", "open_study", "study_exists", "package_version", "ATTR_SPEC",
           "ATTR_PANEL", "ATTR_TARGET"]

ATTR_SPEC = "ocean_spec"  # the study file, minus storage and Ray address
ATTR_PANEL = "ocean_panel"  # the opponents as resolved at launch (name, policy, coefficients)
ATTR_TARGET = "ocean_target_trials"
ATTR_VALIDATION_PANEL = "ocean_validation_panel"  # held-out opponents, resolved at launch
ATTR_VERSION = "ocean_package_version"


@dataclass
class StudyHandle:
    """An open study and everything needed to run, report or export it."""

    spec: StudySpec
    storage: Storage
    study: optuna.Study
    space: SearchSpace
    panel: list[BotSpec]
    games: GameStore
    target_trials: int
    held_out: list[BotSpec] | None = None  # opponents validated but never trained against

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def bot(self) -> BotSpec:
        """The bot the study tunes, with its reference parameters."""
        return study_bot(self.spec)

    @property
    def programs(self) -> list[BotSpec]:
        """Every external program the study plays: its own bot if a program, then opponents."""
        return study_programs(self.spec, self.panel, self.held_out)

    @property
    def checked_bots(self) -> list[BotSpec]:
        """Its programs and frozen opponents: what is checked on every node before it plays."""
        return checked_bots(self.spec, self.panel, self.held_out)

    def validation_panel(self) -> list[BotSpec]:
        """Validation opponents: the training panel, then the held-out ones not in it."""
        names = {b.name for b in self.panel}
        return list(self.panel) + [b for b in self.held_out or [] if b.name not in names]

    def batch_store(self) -> tuple[str, str] | None:
        """(URL, study) for a ``BatchPool`` whose workers store their own games (PostgreSQL), or
        None where the driver must store them (SQLite: one writer, on the driver's disk)."""
        return (self.storage.url, self.name) if worker_stores(self.storage.url) else None

    def trials(self, *states: TrialState) -> list[FrozenTrial]:
        return self.study.get_trials(deepcopy=False, states=states or None)

    def batch_pairs(self, available: int) -> int:
        """Maps per batch for a plan over ``available`` maps per opponent: the study's
        ``batch_pairs``, or with ``"auto"`` sized from the speed of its latest training games."""
        sizer = BatchSizer(self.spec.batch_pairs)
        if sizer.auto:
            sizer.assume(self.games.recent_seconds_per_pair("train"))
        return sizer.pairs(available)

    @property
    def code(self) -> list[dict]:
        """The code versions the study's games were played under (``tuning.storage.provenance``)."""
        return study_code(self.study.user_attrs)

    def check_code(self, *, allow_change: bool, command: str) -> list[dict]:
        """Refuse ``command`` under other code than the study's latest, unless ``allow_change``
        (then the running code is recorded from the study's next trial on)."""
        since = sum(trial_counts(self.storage.engine, self.name).values())
        return check_code(self.study, allow_change=allow_change, command=command, since=since)

    def final_point(self) -> tuple[int, dict]:
        """An SPSA study's result: (the number the point is stored under, its full parameters),
        the point after every finished iteration's step (``SPSASampler.theta``): what the next
        iteration would play around, were the study carried on. A head-to-head study numbers it
        one past its trials (each trial is an iteration, and none is validated on its own); a
        panel-scored one after K iterations numbers it -K (``point_name``), never a number a
        resumed study gives a trial whose validation games would then be taken for its own."""
        n_trials = len(self.trials())
        sampler = make_sampler(self.spec.sampler, self.space)
        iterations = sampler.iterations_begun(n_trials)
        number = n_trials if self.spec.sampler.head_to_head else -iterations
        return number, self.space.full_params(sampler.theta(self.study, iterations))

    def set_target(self, n_trials: int) -> None:
        """Change how many trials the study runs in total (``resume --trials``)."""
        self.study.set_user_attr(ATTR_TARGET, n_trials)
        self.target_trials = n_trials

    def close(self) -> None:
        self.storage.close()


def _study_names(storage: Storage) -> list[str]:
    # The names only: study summaries read every trial of every study (seconds on a big database).
    return optuna.get_all_study_names(storage=storage.optuna)


def _exists(name: str, storage: Storage) -> StudyExists:
    return StudyExists(f"study {name!r} already exists in {storage.masked}; carry on with: tune resume {name}")


def _complete(study: optuna.Study, storage: Storage) -> bool:
    """Whether every step of creation is stored (the last one enqueues trial 0). Counts the
    trials in SQL: reading them through Optuna costs seconds on a study of thousands."""
    attrs = study.user_attrs
    return all(k in attrs for k in (ATTR_SPEC, ATTR_PANEL, ATTR_TARGET)) and any(
        trial_counts(storage.engine, study.study_name).values())


def _finish_creation(study: optuna.Study, spec: StudySpec, panel: list[BotSpec] | None) -> None:
    """Store whatever creation step is missing, in order; the spec already stored wins (a
    launch that died half-way is finished as it was meant). Call under the create lock."""
    attrs = study.user_attrs
    if ATTR_SPEC not in attrs:
        study.set_user_attr(ATTR_SPEC, spec.stored())
    else:
        stored = parse_spec(attrs[ATTR_SPEC], source=f"study {study.study_name!r}")
        if stored.stored() != spec.stored():
            spec, panel = stored, None
    if ATTR_PANEL not in attrs:
        study.set_user_attr(ATTR_PANEL, panel_to_json(panel if panel is not None else resolve_panel(spec.panel, spec)))
    if ATTR_TARGET not in attrs:
        study.set_user_attr(ATTR_TARGET, spec.n_trials)
    if ATTR_VALIDATION_PANEL not in attrs and spec.validation.panel is not None:
        study.set_user_attr(ATTR_VALIDATION_PANEL, panel_to_json(resolve_panel(spec.validation.panel, spec)))
    if ATTR_VERSION not in attrs:
        study.set_user_attr(ATTR_VERSION, package_version())
    if ATTR_CODE not in attrs:
        study.set_user_attr(ATTR_CODE, [{**code_record(), "since": 0, "by": "tune launch"}])
    if not study.get_trials(deepcopy=False):
        study.enqueue_trial(build_space(spec).reference_params(),
                            user_attrs={"reference": "start" if spec.start else "defaults"})


def create_study(spec: StudySpec, url: str) -> StudyHandle:
    """Create the study ``spec.name`` at ``url``; a name already there is an error (resume it),
    unless its launch died half-way: then creation is finished."""
    spec = _seeded(spec)
    panel, _ = study_opponents(spec)  # a wrong opponent, held out too, fails before anything is stored
    space = build_space(spec)
    storage = open_storage(url)
    games = GameStore(storage.engine, spec.name)
    try:
        with hold(games, CREATE_LOCK, driver_id()):
            refuse_test_name(storage, spec.name)  # a study and a test (tune test) never share a name
            refuse_other_kinds(storage.engine, storage.masked, spec.name, STUDY)  # nor a learning run
            if spec.name in _study_names(storage):
                study = optuna.load_study(study_name=spec.name, storage=storage.optuna)
                if _complete(study, storage):
                    raise _exists(spec.name, storage)
            else:
                study = optuna.create_study(study_name=spec.name, storage=storage.optuna, direction="maximize")
            _finish_creation(study, spec, panel)
        study = optuna.load_study(study_name=spec.name, storage=storage.optuna,
                                  sampler=make_sampler(spec.sampler, space),
                                  pruner=optuna.pruners.NopPruner())  # we prune (tuning.stats.pruning)
        target = int(study.user_attrs[ATTR_TARGET])
        stored = parse_spec(study.user_attrs[ATTR_SPEC], source=f"study {spec.name!r}")
        if stored.stored() != spec.stored():  # finished a half-created study launched from another spec
            spec, space, panel = stored, build_space(stored), panel_from_json(study.user_attrs[ATTR_PANEL])
            study.sampler = make_sampler(spec.sampler, space)
    except optuna.exceptions.DuplicatedStudyError:
        storage.close()
        raise _exists(spec.name, storage) from None
    except Exception:
        storage.close()
        raise
    return StudyHandle(spec, storage, study, space, panel, games, target, _held_out(study))


def _seeded(spec: StudySpec) -> StudySpec:
    """``spec`` with a sampler seed: an unseeded study draws one here and stores it with its
    spec, so every trial's draws can be made again (resume, adoption) as at first."""
    if spec.sampler.seed is not None:
        return spec
    return spec.model_copy(update={"sampler": spec.sampler.model_copy(update={"seed": secrets.randbits(31)})})


def _held_out(study: optuna.Study) -> list[BotSpec] | None:
    data = study.user_attrs.get(ATTR_VALIDATION_PANEL)
    return None if data is None else panel_from_json(data)


def study_exists(name: str, url: str) -> bool:
    """Whether study ``name`` is at ``url``, fully created (read only: creates no database, table
    or study). ``tune launch`` asks before it starts Ray, which takes a minute on a busy machine."""
    try:
        storage = open_storage(url, must_exist=True)
    except StudyNotFound:
        return False
    try:
        return name in _study_names(storage) and \
            _complete(optuna.load_study(study_name=name, storage=storage.optuna), storage)
    finally:
        storage.close()


def open_study(name: str, url: str) -> StudyHandle:
    """Open an existing study by name; ``StudyNotFound`` lists the studies the storage holds.

    A study whose launch is still being created waits for it; one whose launch died after
    storing the spec is finished here; one whose launch died before is a one-line error."""
    storage = open_storage(url, must_exist=True)
    try:
        names = _study_names(storage)
        if name not in names:
            known = ", ".join(sorted(names)) or "none"
            raise StudyNotFound(f"no study named {name!r} in {storage.masked} (studies there: {known})")
        probe = optuna.load_study(study_name=name, storage=storage.optuna)
        if not _complete(probe, storage):
            with hold(GameStore(storage.engine, name), CREATE_LOCK, driver_id()):
                if not _complete(probe, storage):
                    if ATTR_SPEC not in probe.user_attrs:
                        raise TuningError(f"study {name!r} in {storage.masked} was not created by tune launch, "
                                          "or its launch was interrupted at once; run the launch again with "
                                          "--or-resume to finish creating it")
                    stored = parse_spec(probe.user_attrs[ATTR_SPEC], source=f"study {name!r}")
                    _finish_creation(probe, stored, None)
        attrs = probe.user_attrs
        spec = parse_spec(attrs[ATTR_SPEC], source=f"study {name!r}")
        space = build_space(spec)
        # The probe itself, not a second load: Optuna's cache keeps what one Study has read.
        study = probe
        study.sampler, study.pruner = make_sampler(spec.sampler, space), optuna.pruners.NopPruner()
        panel = panel_from_json(attrs[ATTR_PANEL])
        target = int(attrs.get(ATTR_TARGET, spec.n_trials))
    except Exception:
        storage.close()
        raise
    return StudyHandle(spec, storage, study, space, panel, GameStore(storage.engine, name), target,
                       _held_out(study))
