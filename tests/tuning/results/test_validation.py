"""Validation on held-out seeds: which trials, stored results, paired difference to the defaults."""
import pytest
from optuna.trial import TrialState

from ocean.bots import coefficients
from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.runner import StudyRunner
from tuning.errors import SpecError, TuningError
from tuning.results.validation import candidates, validate_study
from tuning.storage.handle import create_study
from tuning.study.spec import parse_spec

DEFAULT_SILENCE = coefficients.defaults()["silence_cost"]


def _p_win(params):
    return 0.3 if params["silence_cost"] == DEFAULT_SILENCE else 0.2 + 0.25 * params["silence_cost"]


@pytest.fixture
def ran(any_url):
    handle = create_study(parse_spec(tiny_spec_dict(n_trials=4, pruning={"enabled": False},
                                                    validation={"seeds": {"start": 5000, "count": 30},
                                                                "games": 40, "top_k": 2})), any_url)
    StudyRunner(handle, pool=FakePool(p_win=_p_win)).run()
    yield handle
    handle.close()


def test_candidates_are_the_defaults_then_the_top_trials(ran):
    chosen = candidates(ran, 2)
    complete = sorted(ran.trials(TrialState.COMPLETE), key=lambda t: -t.value)
    top = [t.number for t in complete if t.number != 0][:2]
    assert [c[0] for c in chosen] == [0] + top
    assert chosen[0][1]["silence_cost"] == DEFAULT_SILENCE


def test_validation_stores_scores_and_differences_on_the_held_out_seeds(ran):
    pool = FakePool(p_win=_p_win)
    progress = []
    results = validate_study(ran, pool=pool, progress=lambda d, t: progress.append((d, t)))
    assert {b.phase for b in pool.submitted} == {"validate"}
    assert {s for b in pool.submitted for s in b.seeds} == set(range(5000, 5020))
    assert progress[-1] == (3 * 2 * 40, 3 * 2 * 40)
    assert ran.games.count_games(phase="validate") == 3 * 2 * 40
    records = {v.trial: v for v in ran.games.validations()}
    assert set(records) == {r.trial for r in results} and len(records) == 3
    assert [r.trial for r in results] == [v.trial for v in ran.games.validations()]  # best first, same order
    best = results[0]
    assert best.estimate.mean == max(r.estimate.mean for r in results)
    reference = next(r for r in results if r.trial == 0)
    assert reference.diff is None and records[0].diff is None
    for r in results:
        if r.trial:
            assert r.diff.mean == pytest.approx(r.estimate.mean - reference.estimate.mean)
            assert records[r.trial].diff_low <= records[r.trial].diff <= records[r.trial].diff_high
        assert records[r.trial].games == 40 and records[r.trial].seeds == "5000..5019"


def test_validating_again_replays_nothing_and_more_games_only_adds_the_missing(ran):
    validate_study(ran, pool=FakePool(p_win=_p_win))
    again = FakePool(p_win=_p_win)
    validate_study(ran, pool=again)
    assert again.submitted == []
    more = FakePool(p_win=_p_win)
    validate_study(ran, games=60, pool=more)
    assert {s for b in more.submitted for s in b.seeds} == set(range(5020, 5030))
    assert {v.games for v in ran.games.validations()} == {60}


def test_best_is_ranked_among_the_latest_settings_only(ran):
    """Validate the top 2 on 40 games, then only the top 1 on 20: the earlier runner-up (scored on
    other maps and more games) no longer competes for best, yet a later run on the first settings
    ranks every trial validated on them again."""
    first = validate_study(ran, pool=FakePool(p_win=_p_win))
    assert len(first) == 3
    smaller = validate_study(ran, games=20, top_k=1, pool=FakePool(p_win=_p_win))
    ranked = ran.games.validations()
    assert [v.trial for v in ranked] == [r.trial for r in smaller] and len(ranked) == 2
    assert {(v.games, v.seeds) for v in ranked} == {(20, "5000..5009")}
    runner_up = next(r.trial for r in first if r.trial not in {v.trial for v in ranked})
    assert runner_up != 0  # its 40-game result is kept aside, not ranked against 20-game ones
    validate_study(ran, pool=FakePool(p_win=_p_win))  # the first settings again: replayed from stored games
    assert sorted(v.trial for v in ran.games.validations()) == sorted(r.trial for r in first)


def test_bad_validation_options_are_user_errors(ran, sqlite_url):
    with pytest.raises(SpecError, match="even"):
        validate_study(ran, games=41, pool=FakePool())
    with pytest.raises(SpecError, match="needs 40 held-out maps but validation.seeds has 30"):
        validate_study(ran, games=80, pool=FakePool())
    with pytest.raises(SpecError, match="--top"):
        validate_study(ran, top_k=0, pool=FakePool())
    fresh = create_study(parse_spec(tiny_spec_dict(name="fresh")), sqlite_url)
    try:
        with pytest.raises(TuningError, match="no complete trial"):
            validate_study(fresh, pool=FakePool())
    finally:
        fresh.close()
