"""Validation on held-out seeds: which trials, stored results, paired difference to the defaults."""
import pytest
from optuna.trial import TrialState

from ocean.bots import coefficients
from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.runner import StudyRunner
from tuning.errors import SpecError, TuningError
from tuning.results.validation import candidates, validate_study
from tuning.results.verdict import HEAD_TO_HEAD
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
    panels = [b for b in pool.submitted if b.opponent.name != HEAD_TO_HEAD]
    best = results[0]
    # the race: every candidate on the choosing half; the chosen set and the reference also on the judged half
    race = {(b.trial, s) for b in panels for s in b.seeds if s < 5010}
    assert race == {(n, s) for n in (0, *[r.trial for r in results if r.trial]) for s in range(5000, 5010)}
    assert {(b.trial, s) for b in panels for s in b.seeds if s >= 5010} == \
        {(n, s) for n in (0, best.trial) for s in range(5010, 5020)}
    duel = [b for b in pool.submitted if b.opponent.name == HEAD_TO_HEAD]
    games = 3 * 2 * 20 + 2 * 2 * 20 + sum(b.games for b in duel)
    assert progress[-1] == (games, games)
    assert ran.games.count_games(phase="validate") == games
    assert best.parts["games_played"] == games
    records = {v.trial: v for v in ran.games.validations()}
    assert set(records) == {r.trial for r in results} and len(records) == 3
    assert [r.trial for r in results] == [v.trial for v in ran.games.validations()]  # best first, same order
    assert best.chosen and records[best.trial].chosen == 1 and sum(v.chosen for v in records.values()) == 1
    reference = next(r for r in results if r.trial == 0)
    assert reference.diff is None and records[0].diff is None
    for r in results:
        assert r.estimate.n == 2 * 10  # the chosen and the reference judged on the other half; the rest: the race's
        assert r.selection.n == 2 * 10 and records[r.trial].selection_score == pytest.approx(r.selection.mean)
        if r.trial:  # to the reference where each was scored: the judged half, or the race's
            against = reference.estimate if r.chosen else reference.selection
            assert r.diff.mean == pytest.approx(r.estimate.mean - against.mean)
            assert records[r.trial].diff_low <= records[r.trial].diff <= records[r.trial].diff_high
        assert records[r.trial].games == 40 and records[r.trial].seeds == "5000..5019"
        assert r.verdict == (best.verdict if r.chosen else "no gain shown")  # no evidence of their own
    # chosen by the race on the first half: the best candidate's score there (the reference is not one)
    assert best.selection.mean == max(r.selection.mean for r in results if r.trial)


def test_the_best_plays_the_reference_head_to_head_on_maps_it_was_not_chosen_on(ran):
    pool = FakePool(p_win=_p_win)
    best = validate_study(ran, pool=pool)[0]
    assert best.trial != 0
    duel = [b for b in pool.submitted if b.opponent.name == HEAD_TO_HEAD]
    assert {b.trial for b in duel} == {best.trial} and not any(b.replay_opponent for b in duel)
    # the judged half (5010..5019), then the held-out maps the panels did not play (5020..5029)
    assert sorted(s for b in duel for s in b.seeds) == list(range(5010, 5030))
    assert duel[0].opponent.params == candidates(ran, 2)[0][1]  # the reference's coefficients
    h2h = best.parts["head_to_head"]
    assert h2h["games"] == 40 and h2h["low"] <= h2h["diff"] <= h2h["high"]
    assert set(best.parts) >= {"verdict", "failed", "head_to_head", "training_panel", "held_out"}


def test_validating_again_replays_nothing_and_more_games_only_adds_the_missing(ran):
    validate_study(ran, pool=FakePool(p_win=_p_win))
    again = FakePool(p_win=_p_win)
    validate_study(ran, pool=again)
    assert again.submitted == []
    stored = {n: ran.games.done_pairs(n, "validate") for n in (0, 1, 2, 3, 4)}
    more = FakePool(p_win=_p_win)
    validate_study(ran, games=60, pool=more)
    played = [(b.trial, b.opponent.name, s) for b in more.submitted for s in b.seeds]
    assert played and not [p for p in played if (p[1], p[2]) in stored[p[0]]]  # nothing stored is played again
    panels = [b for b in more.submitted if b.opponent.name != HEAD_TO_HEAD]
    assert {s for b in panels for s in b.seeds} <= set(range(5010, 5030))
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


def _gain(params):  # every tuned trial far better than the defaults
    return 0.05 if params["silence_cost"] == DEFAULT_SILENCE else 0.95


def test_a_validation_at_another_time_control_keeps_the_one_at_the_studys(any_url):
    from ocean.timecontrol import TimeControl
    from tuning.results.status import study_status

    spec = parse_spec(tiny_spec_dict(n_trials=3, pruning={"enabled": False}, time={"turn_ms": 5}, timeout_scale=2.0,
                                     validation={"seeds": {"start": 5000, "count": 30}, "games": 40, "top_k": 1}))
    handle = create_study(spec, any_url)
    try:
        StudyRunner(handle, pool=FakePool(p_win=_gain)).run()
        short = FakePool(p_win=_gain)
        validate_study(handle, pool=short)
        contest = TimeControl(50, 1000, 1.0)
        first = {(v.trial, v.score) for v in handle.games.validations()}
        pool = FakePool(p_win=lambda p: 0.5)  # at 50 ms the tuned trial is no better: another result
        results = validate_study(handle, time=contest, pool=pool)
        assert {b.phase for b in short.submitted} == {"validate"}
        assert {b.phase for b in pool.submitted} == {"v50/1000x1"}  # its own games, none reused
        assert sum(b.games for b in pool.submitted if b.opponent.name != HEAD_TO_HEAD) == 2 * 2 * 40
        assert all(r.time == contest for r in results)
        assert {(v.trial, v.score) for v in handle.games.validations("5/1000x2")} == first  # kept
        assert {v.time_control for v in handle.games.validations()} == {"50/1000x1"}
        status = study_status(handle)
        best = status["best"]
        assert best["time_control"] == {"turn_ms": 50, "first_turn_ms": 1000, "scale": 1.0}
        assert status["games"]["validate"] == handle.games.count_games(phase="validate") + \
            handle.games.count_games(phase="v50/1000x1")  # both time controls' games
        validate_study(handle, pool=FakePool(p_win=_gain))  # the study's own again: nothing replayed
        assert study_status(handle)["best"]["time_control"] == {"turn_ms": 5, "first_turn_ms": 1000, "scale": 2.0}
    finally:
        handle.close()


@pytest.mark.parametrize("p_win, expected", [(_gain, "gain"), (lambda p: 0.5, "no gain shown")])
def test_the_verdict_is_gain_only_when_the_sprt_accepts_the_head_to_head(any_url, p_win, expected):
    from tuning.results.status import study_status

    spec = parse_spec(tiny_spec_dict(n_trials=3, pruning={"enabled": False},
                                     validation={"seeds": {"start": 5000, "count": 230}, "games": 40, "top_k": 2}))
    handle = create_study(spec, any_url)
    try:
        StudyRunner(handle, pool=FakePool(p_win=p_win)).run()
        results = validate_study(handle, pool=FakePool(p_win=p_win))
        best = results[0]
        assert best.verdict == expected
        h2h = best.parts["head_to_head"]
        assert (h2h["decision"] == "H1") == (expected == "gain")
        assert h2h["llr"] >= h2h["upper_bound"] if expected == "gain" else h2h["llr"] < h2h["upper_bound"]
        s = study_status(handle)
        assert s["best"]["verdict"] == expected and s["best"]["trial"] == best.trial
        # the sequential fields beside every field the status had
        assert s["best"]["sprt"]["llr"] == h2h["llr"] and s["best"]["games_played"] == best.parts["games_played"]
        assert s["best"]["sprt"]["lower_bound"] < 0 < s["best"]["sprt"]["upper_bound"]
        assert s["best"]["no_decision"] == (h2h["decision"] == "no decision")
        if expected == "gain":  # decided before the maps ran out: fewer games than the maximum
            assert h2h["games"] < h2h["max_games"]
        if best.diff is not None:
            assert s["best"]["diff_low"] <= s["best"]["diff_vs_defaults"] <= s["best"]["diff_high"]
        reference = next(r for r in results if r.trial == 0)
        # like with like: the defaults as validated beside the best, not their training score
        assert s["defaults"]["validated"] and s["defaults"]["score"] == pytest.approx(reference.estimate.mean)
    finally:
        handle.close()


def _held_out_study(any_url, **validation):
    spec = parse_spec(tiny_spec_dict(n_trials=3, pruning={"enabled": False}, validation={
        "seeds": {"start": 5000, "count": 260}, "games": 80, "top_k": 2, "panel": ["hunter-v1"], **validation}))
    return create_study(spec, any_url)


@pytest.mark.parametrize("against, failed", [
    # beats the panel and the reference, but is crushed by the opponent it never trained against
    ({"hunter-v1": 0.05}, ["held_out"]),
    # beats the panel on held-out maps, yet is no better than the reference head to head
    ({HEAD_TO_HEAD: 0.5}, ["head_to_head"]),
    ({}, []),
])
def test_gain_needs_the_head_to_head_the_training_panel_and_the_held_out_opponents(any_url, against, failed):
    from tuning.results.status import study_status

    def p_vs(params, opponent):
        # held out, the tuned sets are better than the reference too (0.8 against 0.5): equal sets
        # would need over a thousand held-out maps to be shown not worse by 30 Elo (tune plan: its power)
        if params["silence_cost"] == DEFAULT_SILENCE:
            return 0.5 if opponent == "hunter-v1" else 0.3
        return against.get(opponent, 0.8 if opponent == "hunter-v1" else 0.9)

    handle = _held_out_study(any_url)
    try:
        StudyRunner(handle, pool=FakePool(p_vs=p_vs)).run()
        best = validate_study(handle, pool=FakePool(p_vs=p_vs))[0]
        assert best.parts["failed"] == failed
        assert best.verdict == ("gain" if not failed else "no gain shown")
        held = best.parts["held_out"]
        assert held["games"] == 80 and held["defaults_score"] == pytest.approx(0.5, abs=0.15)
        if failed == ["held_out"]:
            assert held["lost_to"] == ["hunter-v1"] and not held["passed"]
        best_json = study_status(handle)["best"]
        assert best_json["verdict"] == best.verdict and best_json["failed"] == failed
        for key in ("head_to_head", "training_panel", "held_out"):
            assert {"diff", "low", "high", "games"} <= set(best_json[key])
        assert {"score", "defaults_score"} <= set(best_json["held_out"])
    finally:
        handle.close()


def test_the_reference_best_is_no_gain_plays_no_head_to_head_and_shows_the_runner_up(any_url):
    from tuning.results.status import study_status
    from tuning.results.verdict import best_verdict_text

    handle = _held_out_study(any_url)
    try:
        worse = lambda p: 0.5 if p["silence_cost"] == DEFAULT_SILENCE else 0.1  # noqa: E731
        StudyRunner(handle, pool=FakePool(p_win=worse)).run()
        pool = FakePool(p_win=worse)
        results = validate_study(handle, pool=pool)
        best = results[0]
        assert best.trial == 0 and best.verdict == "no gain shown"
        assert not [b for b in pool.submitted if b.opponent.name == HEAD_TO_HEAD]
        # the race dropped both candidates after its first round: nothing else was played
        assert {b.opponent.name for b in pool.submitted} == {"random", "chaser"}
        assert best.parts["race"]["dropped"] and best.parts["reference_best"]
        runner = best.parts["runner_up"]  # what was measured behind "no gain shown"
        assert runner["trial"] in {r.trial for r in results if r.trial} and runner["high"] < 0
        status = study_status(handle)["best"]
        assert status["runner_up"] == runner
        assert f"the runner-up, trial {runner['trial']}" in best_verdict_text(status)
    finally:
        handle.close()


def test_a_race_drops_a_clearly_worse_candidate_and_keeps_the_better_one(any_url):
    """Trial values are the fake bot's silence cost: the race plays the candidates that are clearly
    worse than the leader no further than the round that showed it."""
    def p(params):
        return 0.3 if params["silence_cost"] == DEFAULT_SILENCE else (0.9 if params["silence_cost"] > 0.5 else 0.05)

    spec = parse_spec(tiny_spec_dict(n_trials=6, pruning={"enabled": False}, validation={
        "seeds": {"start": 5000, "count": 400}, "games": 400, "top_k": 4}))
    handle = create_study(spec, any_url)
    try:
        StudyRunner(handle, pool=FakePool(p_win=p)).run()
        pool = FakePool(p_win=p)
        results = validate_study(handle, pool=pool)
        best = results[0]
        assert p(best.params) == 0.9
        dropped = {int(n) for n in best.parts["race"]["dropped"]}
        assert dropped >= {r.trial for r in results if p(r.params) < 0.3}  # worse than the leader: dropped
        for number in dropped - {0}:  # played the first round's 50 maps, not the choosing half's 100
            # (the reference, dropped or not, is what the chosen set is judged against: it plays on)
            seeds = {s for b in pool.submitted if b.trial == number for s in b.seeds}
            assert seeds == set(range(5000, 5050))
    finally:
        handle.close()


def test_too_many_head_to_head_games_for_the_maps_left_is_one_line(any_url):
    with pytest.raises(SpecError, match="head_to_head_games = 120 needs 60 held-out maps the best was not chosen on"):
        parse_spec(tiny_spec_dict(validation={"seeds": {"start": 5000, "count": 60}, "games": 80,
                                              "head_to_head_games": 120}))


def _panel_spsa(any_url, n_trials=5):
    spec = parse_spec(tiny_spec_dict(n_trials=n_trials, trials_in_flight=1, pruning={"enabled": False},
                                     sampler={"kind": "spsa", "seed": 4, "perturbation": 0.2, "step": 0.3},
                                     validation={"seeds": {"start": 5000, "count": 30}, "games": 40, "top_k": 2}))
    handle = create_study(spec, any_url)
    StudyRunner(handle, pool=FakePool(p_win=_p_win)).run()
    return handle


def test_a_panel_scored_spsa_study_validates_its_theta_beside_its_top_trials(any_url, tmp_path):
    """SPSA's answer is the point its iterations reached (Fishtest's theta), not the luckiest of
    the perturbations it scored: it is validated, stored under -K (K iterations) and exported."""
    from tuning.results.export import choose_trial, provenance
    from tuning.results.report import write_report

    handle = _panel_spsa(any_url)
    try:
        number, theta = handle.final_point()
        assert number == -2  # trial 0, then two iterations of a plus and a minus trial
        assert theta["silence_cost"] != DEFAULT_SILENCE  # it moved
        chosen = candidates(handle, 2)
        assert [c[0] for c in chosen][0] == 0 and chosen[-1][:2] == (-2, theta) and len(chosen) == 4
        results = validate_study(handle, pool=FakePool(p_win=_p_win))
        assert {r.trial for r in results} == {c[0] for c in chosen}
        validated = next(r for r in results if r.trial == -2)
        assert validated.params == theta and validated.training_score is None and validated.diff is not None
        assert choose_trial(handle, -2)[1] == theta  # exported by its number, as a head-to-head point is
        assert provenance(handle, -2, choose_trial(handle, -2)[2])["point"] == "theta after 2 SPSA iterations"
        write_report(handle, tmp_path / "report.html")
        page = (tmp_path / "report.html").read_text()
        assert "theta after 2 iterations" in page and "trial -2" not in page
    finally:
        handle.close()


def test_a_resumed_spsa_study_never_takes_its_validated_theta_for_a_new_trial(any_url):
    """The trials a resume adds get the numbers after the old ones; theta's validation games are
    stored under -K, so none of them is counted for a new trial, and the new theta is played anew."""
    handle = _panel_spsa(any_url)
    try:
        validate_study(handle, pool=FakePool(p_win=_p_win))
        before = handle.games.pair_scores(-2, "validate")
        handle.set_target(7)
        StudyRunner(handle, pool=FakePool(p_win=_p_win)).run()
        assert [t.number for t in handle.trials()] == list(range(7))
        for new in (5, 6):
            assert not handle.games.done_pairs(new, "validate")
        number, theta = handle.final_point()
        assert number == -3
        pool = FakePool(p_win=_p_win)
        results = validate_study(handle, pool=pool)
        assert -3 in {r.trial for r in results} and -3 in {b.trial for b in pool.submitted}
        assert handle.games.pair_scores(-2, "validate") == before  # the earlier theta's games, kept as they were
    finally:
        handle.close()


def test_an_interrupted_validation_resumes_on_the_same_path_reusing_what_is_stored(sqlite_url):
    """Ctrl-C in the middle of the race or the head to head, then validate again: nothing stored
    is played again, and the race, the choice, the SPRT and every part come out as in one go
    (every decision is a function of the games on the same maps in the same order)."""
    from tests.tuning.fakes import InterruptingPool

    def study(name):
        handle = create_study(parse_spec(tiny_spec_dict(name=name, n_trials=5, pruning={"enabled": False}, validation={
            "seeds": {"start": 5000, "count": 400}, "games": 200, "top_k": 3})), sqlite_url)
        StudyRunner(handle, pool=FakePool(p_win=_gain_some)).run()
        return handle

    whole, cut = study("whole"), study("cut")
    try:
        straight = validate_study(whole, pool=FakePool(p_win=_gain_some))
        for after in (3, 40):  # interrupted twice, a few batches in and further on
            with pytest.raises(KeyboardInterrupt):
                validate_study(cut, pool=InterruptingPool(after, p_win=_gain_some))
        stored = {n: cut.games.done_pairs(n, "validate") for n in range(-1, 6)}
        assert sum(map(len, stored.values())) > 0
        resumed_pool = FakePool(p_win=_gain_some)
        resumed = validate_study(cut, pool=resumed_pool)
        assert not [b for b in resumed_pool.submitted for s in b.seeds if (b.opponent.name, s) in stored[b.trial]]
        assert [r.trial for r in resumed] == [r.trial for r in straight]
        for key in ("verdict", "failed", "race", "games_played", "head_to_head", "training_panel"):
            assert resumed[0].parts[key] == straight[0].parts[key], key
    finally:
        whole.close()
        cut.close()


def _gain_some(params):  # trials a little better than the defaults, by their silence cost
    return 0.5 if params["silence_cost"] == DEFAULT_SILENCE else 0.5 + 0.1 * params["silence_cost"]
