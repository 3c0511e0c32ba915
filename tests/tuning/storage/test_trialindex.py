"""Counts and sums read straight from Optuna's tables agree with Optuna's own API (a change of
Optuna's schema fails here)."""
import optuna
from optuna.trial import TrialState

from tuning.storage.database import open_storage
from tuning.storage.trialindex import best_complete_number, running_numbers, trial_counts, user_attr_sum


def _study_of_every_state(storage, name):
    study = optuna.create_study(study_name=name, storage=storage.optuna, direction="maximize")
    values = [0.4, 0.7, 0.7, 0.1]  # trials 1 and 2 tie for best
    for v in values:
        t = study.ask()
        study.tell(t, v)
    for saved in (30, 12):
        t = study.ask()
        t.set_user_attr("games_saved", saved)
        study.tell(t, state=TrialState.PRUNED)
    t = study.ask()
    study.tell(t, state=TrialState.FAIL)
    study.ask()
    study.ask()  # two running
    study.enqueue_trial({})  # one waiting
    return study


def test_counts_running_best_and_sums_agree_with_optuna(any_url):
    storage = open_storage(any_url)
    study = _study_of_every_state(storage, "every-state")
    _study_of_every_state(storage, "another")  # other studies never count
    engine = storage.engine
    trials = study.get_trials(deepcopy=False)
    counts = trial_counts(engine, "every-state")
    assert counts == {s: sum(1 for t in trials if t.state == s) for s in TrialState}
    assert counts[TrialState.COMPLETE] == 4 and counts[TrialState.RUNNING] == 2 and counts[TrialState.WAITING] == 1
    assert running_numbers(engine, "every-state") == [t.number for t in trials if t.state == TrialState.RUNNING]
    assert best_complete_number(engine, "every-state") == 1  # the lowest number among equals
    assert user_attr_sum(engine, "every-state", "games_saved", TrialState.PRUNED) == 42
    assert trial_counts(engine, "nobody") == dict.fromkeys(TrialState, 0)
    assert best_complete_number(engine, "nobody") is None
    storage.close()

