"""A study that starts from a learned file (``[search] start = "learned.toml"``): trial 0 plays
the file's coefficients, SPSA's theta and CMA-ES start there, coefficients the study does not
tune play the file's values too, and a wrong file is one line."""
import optuna
import pytest

from ocean.bots.coefficients import defaults, save_params
from tests.tuning.fakes import tiny_spec_dict
from tuning.errors import SpecError
from tuning.storage.handle import create_study
from tuning.study.samplers import make_sampler
from tuning.study.space import build_space
from tuning.study.spec import parse_spec

TD = "tunable-td"


def _learned(tmp_path, **changes):
    values = {**defaults(TD), **changes}
    save_params(values, tmp_path / "learned.toml", policy=TD)
    return values


def _spec(tmp_path, kind="spsa", start="learned.toml"):
    data = tiny_spec_dict(policy=TD, search={"lives": {}, "v3_line_score": {"low": -2.0, "high": 4.0},
                                             "start": start},
                          sampler={"kind": kind, "seed": 3})
    return parse_spec(data, source="study.toml", base=tmp_path)


def test_trial_zero_and_the_samplers_start_from_the_learned_file(tmp_path, sqlite_url):
    values = _learned(tmp_path, lives=1.7, v3_line_score=2.5, room=-0.4)
    spec = _spec(tmp_path)
    assert spec.start == pytest.approx(values) and "start" not in spec.search
    space = build_space(spec)
    assert space.reference_params() == {"lives": 1.7, "v3_line_score": 2.5}
    full = space.full_params({"lives": 0.3})
    assert full["lives"] == 0.3 and full["v3_line_score"] == 2.5 and full["room"] == -0.4  # untuned: the file's
    sampler = make_sampler(spec.sampler, space)
    # SPSA's theta_0 in the unit cube: lives 1.7 in [-20, 20], v3_line_score 2.5 in [-2, 4]
    assert list(sampler._x0) == pytest.approx([(1.7 + 20) / 40, (2.5 + 2) / 6])
    handle = create_study(spec, sqlite_url)
    try:
        trial0 = handle.study.get_trials(deepcopy=False)[0]
        assert trial0.system_attrs["fixed_params"] == {"lives": 1.7, "v3_line_score": 2.5}
        assert trial0.user_attrs["reference"] == "start"
    finally:
        handle.close()
    assert parse_spec(spec.stored(), source="stored").start == spec.start  # a resume needs no file
    assert "start" not in parse_spec(tiny_spec_dict(), source="plain").stored()


def test_cmaes_starts_there_and_tpe_gets_it_as_trial_zero(tmp_path):
    _learned(tmp_path, lives=1.7, v3_line_score=2.5)
    cma = make_sampler(_spec(tmp_path, kind="cmaes").sampler, build_space(_spec(tmp_path, kind="cmaes")))
    assert cma._x0 == {"lives": 1.7, "v3_line_score": 2.5}
    assert isinstance(make_sampler(_spec(tmp_path, kind="tpe").sampler, build_space(_spec(tmp_path))),
                      optuna.samplers.TPESampler)


def test_a_wrong_start_file_is_one_line(tmp_path):
    with pytest.raises(SpecError, match=r"^study.toml: search.start: .*missing.toml: cannot read"):
        _spec(tmp_path, start="missing.toml")
    save_params(defaults("tunable-v3"), tmp_path / "v3.toml", policy="tunable-v3")
    with pytest.raises(SpecError, match=r"^study.toml: search.start: v3.toml holds coefficients of 'tunable-v3', "
                                        r"the study tunes 'tunable-td'"):
        _spec(tmp_path, start="v3.toml")
    with pytest.raises(SpecError, match=r"^study.toml: search.start: give the path of a coefficient file"):
        _spec(tmp_path, start=3)


def test_a_warm_studys_export_and_status_name_the_difference_to_the_start_file(tmp_path, sqlite_url):
    # issue 32, item 9: the difference is to the start file, not to the defaults; status keeps its
    # promised diff_vs_defaults key (the reference's difference) beside it
    from tests.tuning.fakes import FakePool
    from tuning.driver.runner import StudyRunner
    from tuning.results.export import choose_trial, provenance
    from tuning.results.status import study_status
    from tuning.results.validation import validate_study

    _learned(tmp_path, lives=1.7, v3_line_score=2.5)
    data = tiny_spec_dict(policy=TD, n_trials=3, search={"lives": {}, "v3_line_score": {"low": -2.0, "high": 4.0},
                                                         "start": "learned.toml"}, sampler={"kind": "random", "seed": 3})
    handle = create_study(parse_spec(data, source="study.toml", base=tmp_path), sqlite_url)
    try:
        pool = lambda: FakePool(p_win=lambda p: 0.2 + 0.1 * p["v3_line_score"])  # noqa: E731
        StudyRunner(handle, pool=pool()).run()
        validate_study(handle, pool=pool())
        number, _, validation = choose_trial(handle, None)
        prov = provenance(handle, number, validation)
        assert prov["reference"] == "the start file" and "diff_vs_defaults" not in prov
        assert prov["diff_low"] <= prov["diff_vs_start_file"] <= prov["diff_high"]
        best = study_status(handle)["best"]
        assert best["reference"] == "the start file" and best["diff_vs_start_file"] == best["diff_vs_defaults"]
    finally:
        handle.close()


def test_a_start_file_outside_the_search_ranges_is_refused_in_one_line(tmp_path):
    # issue 32: trial 0 played a point outside the space, and "gain over the start file" compared
    # with a point the search can never reach
    _learned(tmp_path, lives=1.7, v3_line_score=5.5)  # v3_line_score is searched in [-2, 4]
    with pytest.raises(SpecError) as info:
        _spec(tmp_path)
    line = str(info.value)
    assert line == ("study.toml: search.start: learned.toml sets v3_line_score = 5.5 outside [-2, 4], which the "
                    "search can never reach; widen the range to hold the start or start from another file")
    _learned(tmp_path, lives=1.7, v3_line_score=-3.0)  # both outside: the first named, the count of the rest
    data = tiny_spec_dict(policy=TD, search={"lives": {"low": -1.0, "high": 1.0},
                                             "v3_line_score": {"low": -2.0, "high": 4.0}, "start": "learned.toml"})
    with pytest.raises(SpecError, match=r"sets lives = 1.7 outside \[-1, 1\] \(and 1 more\)"):
        parse_spec(data, source="study.toml", base=tmp_path)
    _learned(tmp_path, lives=20.0, v3_line_score=-2.0)  # on the edges: inside
    assert _spec(tmp_path).start["lives"] == 20.0
