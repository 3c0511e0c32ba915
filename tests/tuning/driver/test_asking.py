"""Exact recovery for every sampler: a trial whose driver died before storing its parameters is
drawn again by its adopter exactly as the undisturbed run drew it, even when other trials have
finished meanwhile (real SQLite, the fake in-process pool)."""
import pytest
from optuna.trial import TrialState

from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.asking import ASKED, ask
from tuning.driver.runner import StudyRunner
from tuning.storage.handle import create_study
from tuning.study.spec import parse_spec

SAMPLERS = {
    "spsa": {"kind": "spsa", "seed": 5},
    "tpe": {"kind": "tpe", "seed": 5, "startup_trials": 2},
    "cmaes": {"kind": "cmaes", "seed": 5, "startup_trials": 2},
    "random": {"kind": "random", "seed": 5},
}


def _p_win(params) -> float:
    # scores that depend on the coefficients, so model samplers have something to learn from
    return min(0.9, max(0.1, 0.3 + 0.2 * params["silence_cost"] - 0.5 * params["stealth_weight"]))


def _study(url, kind, n_trials):
    spec = tiny_spec_dict(n_trials=n_trials, trials_in_flight=1, sampler=SAMPLERS[kind],
                          pruning={"enabled": False})
    return create_study(parse_spec(spec), url)


@pytest.mark.parametrize("kind", sorted(SAMPLERS))
def test_a_trial_adopted_without_parameters_gets_the_undisturbed_proposal(kind, tmp_path):
    calm = _study(f"sqlite:///{tmp_path}/calm.db", kind, 6)
    try:
        StudyRunner(calm, pool=FakePool(capacity=1, p_win=_p_win)).run()
        want = calm.trials()[4].params
    finally:
        calm.close()
    handle = _study(f"sqlite:///{tmp_path}/died.db", kind, 4)
    try:
        StudyRunner(handle, pool=FakePool(capacity=1, p_win=_p_win)).run()
        handle.set_target(6)
        # the runner creates trial 4 under the ask lock and dies before storing its parameters
        orphan = ask(handle.study, handle.trials(TrialState.RUNNING))
        assert orphan.number == 4 and orphan.params == {} and orphan.system_attrs[ASKED] == {"running": [],
                                                                                            "bare": []}
        # meanwhile another driver finishes a trial (a good one): a sampler reading the study as
        # it is at adoption would propose something else
        late = handle.study.ask()
        for name, dist in handle.space.distributions.items():
            late._suggest(name, dist)
        handle.study.tell(late, 0.99)
        report = StudyRunner(handle, pool=FakePool(capacity=1, p_win=_p_win)).run()
        assert report.adopted == 1
        got = handle.trials()[4]
        assert got.state == TrialState.COMPLETE and got.params == want
    finally:
        handle.close()


def test_the_record_names_the_trials_running_at_the_ask_with_and_without_parameters(tmp_path):
    handle = _study(f"sqlite:///{tmp_path}/rec.db", "random", 5)
    try:
        with_params = handle.study.ask(handle.space.distributions)  # trial 0, the reference
        bare = ask(handle.study, handle.trials(TrialState.RUNNING))  # trial 1, left without parameters
        third = ask(handle.study, handle.trials(TrialState.RUNNING))
        assert third.system_attrs[ASKED] == {"running": [with_params.number], "bare": [bare.number]}
    finally:
        handle.close()
