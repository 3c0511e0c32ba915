"""A trial's parameters and attributes in one transaction: the same rows Optuna's own calls
store, on SQLite and PostgreSQL, Optuna's checks kept, retries harmless."""
import optuna
import pytest
from optuna.distributions import FloatDistribution, IntDistribution
from optuna.exceptions import UpdateFinishedTrialError

from tuning.storage.optuna_writes import draw_params, store_params, store_user_attrs

optuna.logging.set_verbosity(optuna.logging.WARNING)

SPACE = {"silence_cost": FloatDistribution(0.0, 3.0), "discount": FloatDistribution(0.5, 1.0),
         "sonar_window": IntDistribution(1, 8), "torpedo_range_bias": FloatDistribution(0.01, 10.0, log=True)}


def _suggest_all(trial):
    for name, dist in SPACE.items():
        if isinstance(dist, IntDistribution):
            trial.suggest_int(name, dist.low, dist.high, log=dist.log)
        else:
            trial.suggest_float(name, dist.low, dist.high, log=dist.log)


def _study(url, name):
    return optuna.create_study(storage=url, study_name=name, direction="maximize")


def _run(study, batched: bool, trials: int = 6):
    for number in range(trials):
        # seeded per trial, as the driver does; TPE's model takes over after two trials
        study.sampler = optuna.samplers.TPESampler(seed=number, n_startup_trials=2, multivariate=True)
        trial = study.ask()
        if batched:
            draw_params(trial, _suggest_all)
            assert study._storage.get_trial(trial._trial_id).params == {}  # nothing written yet
            store_params(trial)
            store_user_attrs(study._storage, trial._trial_id, {"games": 10 * number, "per_opponent": {"x": [1, 2]}})
        else:
            _suggest_all(trial)
            trial.set_user_attr("games", 10 * number)
            trial.set_user_attr("per_opponent", {"x": [1, 2]})
        study.tell(trial, sum(float(v) for v in trial.params.values()))


def test_the_same_rows_as_optunas_own_calls(any_url):
    plain, batched = _study(any_url, "plain"), _study(any_url, "batched")
    _run(plain, batched=False)
    _run(batched, batched=True)
    for a, b in zip(optuna.load_study(study_name="plain", storage=any_url).trials,
                    optuna.load_study(study_name="batched", storage=any_url).trials, strict=True):
        assert a.params == b.params and a.distributions == b.distributions
        assert a.user_attrs == b.user_attrs and a.value == b.value
    assert len(batched.trials) == 6 and len({t.params["silence_cost"] for t in batched.trials}) == 6


def test_a_repeated_store_changes_nothing(any_url):
    study = _study(any_url, "retry")
    trial = study.ask()
    draw_params(trial, _suggest_all)
    store_params(trial)
    store_params(trial)  # the commit's answer was lost with the connection: the driver repeats it
    store_user_attrs(study._storage, trial._trial_id, {"games": 1})
    store_user_attrs(study._storage, trial._trial_id, {"games": 2})
    stored = optuna.load_study(study_name="retry", storage=any_url).trials[0]
    assert stored.params == trial.params and stored.user_attrs == {"games": 2}


def test_a_draw_run_again_draws_only_what_is_missing(sqlite_url):
    study = _study(sqlite_url, "again")
    trial = study.ask()
    trial.suggest_float("silence_cost", 0.0, 3.0)  # drawn (in the trial) before an error
    first = trial.params["silence_cost"]
    draw_params(trial, _suggest_all)
    store_params(trial)
    stored = optuna.load_study(study_name="again", storage=sqlite_url).trials[0]
    assert stored.params["silence_cost"] == first and set(stored.params) == set(SPACE)


def test_optunas_checks_still_hold(any_url):
    study = _study(any_url, "checks")
    trial = study.ask()
    draw_params(trial, _suggest_all)
    store_params(trial)
    study.tell(trial, 0.5)
    # a told trial takes no more attributes: the driver learns another driver finished it
    with pytest.raises(UpdateFinishedTrialError):
        store_user_attrs(study._storage, trial._trial_id, {"games": 3})
    # a parameter stored with another kind of distribution than the study's is refused
    other = study.ask()
    draw_params(other, lambda t: t.suggest_int("silence_cost", 0, 5))
    with pytest.raises(ValueError):
        store_params(other)


def test_other_storages_take_the_public_calls():
    study = optuna.create_study(direction="maximize")  # in memory: no transactions to merge
    trial = study.ask()
    draw_params(trial, _suggest_all)
    store_params(trial)
    store_user_attrs(study._storage, trial._trial_id, {"games": 4})
    study.tell(trial, 1.0)
    assert set(study.trials[0].params) == set(SPACE) and study.trials[0].user_attrs == {"games": 4}
