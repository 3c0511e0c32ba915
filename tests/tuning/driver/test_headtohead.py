"""Head-to-head SPSA in the driver: each trial plays theta+ against theta- (no panel), steps on
that score, and the point it finds is validated against the reference."""
from ocean.bots import coefficients
from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.runner import THETA_MINUS, StudyRunner
from tuning.results.validation import validate_study
from tuning.results.verdict import HEAD_TO_HEAD
from tuning.storage.handle import create_study
from tuning.study.samplers import make_sampler
from tuning.study.spec import parse_spec

DEFAULTS = coefficients.defaults()


def _h2h_spec(**overrides):
    data = tiny_spec_dict(n_trials=6, trials_in_flight=1, seed_bank={"start": 100, "count": 6},
                          sampler={"kind": "spsa", "seed": 4, "scoring": "head-to-head"},
                          validation={"seeds": {"start": 5000, "count": 300}, "games": 20, "top_k": 3})
    data.update(overrides)
    return parse_spec(data)


def test_each_trial_plays_its_pair_against_itself_and_steps_on_it(any_url):
    handle = create_study(_h2h_spec(), any_url)
    try:
        pool = FakePool(p_win=lambda p: 0.7)
        report = StudyRunner(handle, pool=pool).run()
        assert report.complete == 6 and report.pruned == 0
        assert {b.opponent.name for b in pool.submitted} == {THETA_MINUS}
        assert not any(b.replay_opponent for b in pool.submitted)  # theta-'s failures are the bot's own
        sampler = make_sampler(handle.spec.sampler, handle.space)
        for trial in handle.trials():
            plus, minus = sampler.perturbation(trial.number, sampler.theta_of(trial))
            batches = [b for b in pool.submitted if b.trial == trial.number]
            assert {b.opponent.params["silence_cost"] for b in batches} == \
                {handle.space.full_params(minus)["silence_cost"]}
            assert sum(b.games for b in batches) == 12  # 6 maps, both sides, one opponent
            assert trial.user_attrs["per_opponent"].keys() == {THETA_MINUS}
        # trial 0 plays around the reference; every trial's parameters are its point
        assert handle.trials()[0].params["silence_cost"] == DEFAULTS["silence_cost"]
        values = [t.value for t in handle.trials()]
        assert len(set(values)) > 1 and all(0.0 <= v <= 1.0 for v in values)
    finally:
        handle.close()


def test_the_point_found_is_validated_head_to_head_and_against_the_panel(any_url):
    from tuning.results.export import choose_trial, provenance
    from tuning.results.status import study_status

    handle = create_study(_h2h_spec(), any_url)
    try:
        StudyRunner(handle, pool=FakePool(p_win=lambda p: 0.7)).run()
        before = study_status(handle)["best"]
        assert before["trial"] == 6 and before["validated"] is False and "theta after 6" in before["point"]
        number, point = handle.final_point()
        # the point beats the reference head to head, and the panel better than the reference does
        pool = FakePool(p_vs=lambda p, opponent: 0.8 if opponent == HEAD_TO_HEAD else (0.9 if p == point else 0.3))
        results = validate_study(handle, pool=pool)
        best = results[0]
        assert [r.trial for r in results] == [6, 0] and best.chosen and best.params == point
        assert best.selection is None  # nothing to choose between: judged on every map
        h2h = best.parts["head_to_head"]
        assert h2h["passed"] and h2h["decision"] == "H1" and best.parts["training_panel"]["rule"] == "not worse"
        assert best.verdict == "gain"
        duel = [b for b in pool.submitted if b.opponent.name == HEAD_TO_HEAD]
        # on every held-out map in order (it chooses nothing), in rounds of 100, until the SPRT decided
        seeds = sorted(s for b in duel for s in b.seeds)
        assert seeds == list(range(5000, 5000 + len(seeds))) and len(seeds) % 100 == 0 and 2 * len(seeds) == h2h["games"]
        assert h2h["games"] < h2h["max_games"] == 2 * 300
        trial, values, validation = choose_trial(handle, None)
        assert trial == 6 and values == point
        prov = provenance(handle, trial, validation)
        assert prov["point"].startswith("theta after 6") and prov["verdict"] == "gain"
        assert prov["sampler"] == "spsa head-to-head" and prov["training_score"] == "none"
        assert choose_trial(handle, 6)[1] == point  # by number too
        # Resumed, the study gives number 6 to a trial, and that trial plays the point it was
        # numbered for: what validation stored under 6 is still that trial's.
        handle.set_target(7)
        StudyRunner(handle, pool=FakePool(p_win=lambda p: 0.7)).run()
        assert handle.space.full_params(handle.trials()[6].params) == point
        trial, values, validation = choose_trial(handle, 6)
        assert values == point and validation["score"] == best.estimate.mean
    finally:
        handle.close()


def test_a_head_to_head_study_stopped_again_and_again_proposes_what_an_undisturbed_one_does(tmp_path):
    """Ctrl-C after every few batches, then resume, until done: the same points and the same
    scores as a run never stopped (one trial in flight, as Fishtest's rule is written)."""
    from tests.tuning.fakes import InterruptingPool
    from tuning.storage.handle import open_study

    def p_win(p):
        return 0.5 + 0.02 * p["silence_cost"]

    calm = create_study(_h2h_spec(), f"sqlite:///{tmp_path}/calm.db")
    try:
        StudyRunner(calm, pool=FakePool(p_win=p_win)).run()
        expected = [(t.number, t.params, t.value) for t in calm.trials()]
    finally:
        calm.close()
    url = f"sqlite:///{tmp_path}/stopped.db"
    create_study(_h2h_spec(), url).close()
    stops = 0
    while True:
        handle = open_study("tiny", url)
        try:
            report = StudyRunner(handle, pool=InterruptingPool(after=2, p_win=p_win)).run()
        finally:
            handle.close()
        if not report.interrupted:
            break
        stops += 1
    handle = open_study("tiny", url)
    try:
        got = [(t.number, t.params, t.value) for t in handle.trials()]
    finally:
        handle.close()
    assert stops >= 5 and got == expected
