"""A study as the service sees it: the Optuna study, its spec, search space, panel and games.

``create_study`` is the only place a study is born (spec, panel and target stored with it; the
bot's defaults enqueued as trial 0); everything else opens an existing one with ``open_study``,
so ``resume``, ``status``, ``validate`` and ``export`` need only the study's name and storage.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from importlib import metadata

import optuna
from optuna.trial import FrozenTrial, TrialState

from ocean.bots import BotSpec
from tuning.errors import StudyExists, StudyNotFound, TuningError
from tuning.gamestore import GameStore
from tuning.panel import panel_from_json, panel_to_json, resolve_panel
from tuning.space import SearchSpace, build_space
from tuning.spec import SamplerSpec, StudySpec, parse_spec
from tuning.storage import Storage, open_storage

__all__ = ["StudyExists", "StudyHandle", "create_study", "open_study", "make_sampler", "package_version",
           "ATTR_SPEC", "ATTR_PANEL", "ATTR_TARGET", "REFERENCE_TRIAL"]

ATTR_SPEC = "ocean_spec"  # the study file, minus storage and Ray address
ATTR_PANEL = "ocean_panel"  # the opponents as resolved at launch (name, policy, coefficients)
ATTR_TARGET = "ocean_target_trials"
ATTR_VERSION = "ocean_package_version"
REFERENCE_TRIAL = 0  # the bot's defaults, enqueued first


def package_version() -> str:
    try:
        return metadata.version("ocean-tuning-lab")
    except metadata.PackageNotFoundError:
        return "unknown"


def make_sampler(spec: SamplerSpec, space: SearchSpace) -> optuna.samplers.BaseSampler:
    """The study's sampler, seeded. TPE and CMA-ES are told about trials in flight (constant
    liar; CMA-ES asks in generations) and CMA-ES starts from the bot's defaults."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if spec.kind == "tpe":
            return optuna.samplers.TPESampler(seed=spec.seed, n_startup_trials=spec.startup_trials,
                                              multivariate=True, constant_liar=True)
        if spec.kind == "cmaes":
            x0 = {name: min(max(value, d.low), d.high)
                  for (name, value), d in zip(space.reference_params().items(), space.distributions.values())}
            return optuna.samplers.CmaEsSampler(seed=spec.seed, n_startup_trials=spec.startup_trials, x0=x0,
                                                warn_independent_sampling=False)
        if spec.kind == "gp":
            return optuna.samplers.GPSampler(seed=spec.seed, n_startup_trials=spec.startup_trials)
        return optuna.samplers.RandomSampler(seed=spec.seed)


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

    @property
    def name(self) -> str:
        return self.spec.name

    def trials(self, *states: TrialState) -> list[FrozenTrial]:
        return self.study.get_trials(deepcopy=False, states=states or None)

    def set_target(self, n_trials: int) -> None:
        """Change how many trials the study runs in total (``resume --trials``)."""
        self.study.set_user_attr(ATTR_TARGET, n_trials)
        self.target_trials = n_trials

    def close(self) -> None:
        self.storage.close()


def _study_names(storage: Storage) -> list[str]:
    return [s.study_name for s in optuna.get_all_study_summaries(storage.optuna, include_best_trial=False)]


def create_study(spec: StudySpec, url: str) -> StudyHandle:
    """Create the study ``spec.name`` at ``url``; a name already there is an error (resume it)."""
    panel = resolve_panel(spec.panel)
    space = build_space(spec)
    storage = open_storage(url)
    try:
        if spec.name in _study_names(storage):
            raise StudyExists(f"study {spec.name!r} already exists in {storage.masked}; "
                              f"carry on with: tune resume {spec.name}")
        study = optuna.create_study(study_name=spec.name, storage=storage.optuna, direction="maximize",
                                    sampler=make_sampler(spec.sampler, space),
                                    pruner=optuna.pruners.NopPruner())  # we prune (tuning.pruning)
        study.set_user_attr(ATTR_SPEC, spec.stored())
        study.set_user_attr(ATTR_PANEL, panel_to_json(panel))
        study.set_user_attr(ATTR_TARGET, spec.n_trials)
        study.set_user_attr(ATTR_VERSION, package_version())
        study.enqueue_trial(space.reference_params(), user_attrs={"reference": "defaults"})
    except optuna.exceptions.DuplicatedStudyError:
        storage.close()
        raise StudyExists(f"study {spec.name!r} already exists in {storage.masked}; "
                          f"carry on with: tune resume {spec.name}") from None
    except Exception:
        storage.close()
        raise
    return StudyHandle(spec, storage, study, space, panel, GameStore(storage.engine, spec.name), spec.n_trials)


def open_study(name: str, url: str) -> StudyHandle:
    """Open an existing study by name; ``StudyNotFound`` lists the studies the storage holds."""
    storage = open_storage(url, must_exist=True)
    try:
        names = _study_names(storage)
        if name not in names:
            known = ", ".join(sorted(names)) or "none"
            raise StudyNotFound(f"no study named {name!r} in {storage.masked} (studies there: {known})")
        probe = optuna.load_study(study_name=name, storage=storage.optuna)
        attrs = probe.user_attrs
        if ATTR_SPEC not in attrs or ATTR_PANEL not in attrs:
            raise TuningError(f"study {name!r} in {storage.masked} was not created by tune launch")
        spec = parse_spec(attrs[ATTR_SPEC], source=f"study {name!r}")
        space = build_space(spec)
        study = optuna.load_study(study_name=name, storage=storage.optuna,
                                  sampler=make_sampler(spec.sampler, space), pruner=optuna.pruners.NopPruner())
        panel = panel_from_json(attrs[ATTR_PANEL])
        target = int(attrs.get(ATTR_TARGET, spec.n_trials))
    except Exception:
        storage.close()
        raise
    return StudyHandle(spec, storage, study, space, panel, GameStore(storage.engine, name), target)
