"""The study's samplers: built quietly, seeded per trial, and able to run a study."""
import importlib.util
import warnings

import pytest

from tests.tuning.fakes import FakePool, tiny_spec_dict
from tuning.driver.runner import StudyRunner
from tuning.storage.handle import create_study
from tuning.study.samplers import make_sampler
from tuning.study.space import build_space
from tuning.study.spec import parse_spec


# The one skip of the quick suite on a machine without PyTorch, said so that a newcomer knows why
NEEDS_GP = "the gp sampler runs on PyTorch, an optional extra outside '.[test]': pip install -e '.[gp]' to test it"


@pytest.mark.parametrize("kind", ["tpe", "cmaes", "random", "spsa",
                                  pytest.param("gp", marks=pytest.mark.skipif(
                                      importlib.util.find_spec("torch") is None, reason=NEEDS_GP))])
def test_every_sampler_is_built_without_a_warning_and_runs_a_study(kind, sqlite_url):
    spec = parse_spec(tiny_spec_dict(n_trials=6, sampler={"kind": kind, "seed": 1, "startup_trials": 2}))
    space = build_space(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. CMA-ES's x0 deprecation would print once per trial
        for trial in range(3):
            make_sampler(spec.sampler, space, stream=trial)
    handle = create_study(spec, sqlite_url)
    try:
        report = StudyRunner(handle, pool=FakePool(p_win=lambda p: 0.3 + 0.1 * p["silence_cost"])).run()
        assert report.complete + report.pruned == 6 and report.failed == 0
    finally:
        handle.close()


def test_an_unseeded_study_stores_the_seed_it_drew_and_resumes_with_it(sqlite_url):
    from tuning.storage.handle import open_study

    spec = tiny_spec_dict(sampler={"kind": "tpe", "startup_trials": 2})
    handle = create_study(parse_spec(spec), sqlite_url)
    try:
        seed = handle.spec.sampler.seed
        assert isinstance(seed, int)
    finally:
        handle.close()
    again = open_study("tiny", sqlite_url)
    try:
        assert again.spec.sampler.seed == seed  # stored with the spec: resume and adoption draw alike
    finally:
        again.close()


def test_the_gp_skip_says_why_and_how_to_install_it():
    marks = [m for p in test_every_sampler_is_built_without_a_warning_and_runs_a_study.pytestmark
             if p.name == "parametrize" for v in p.args[1] if getattr(v, "values", None) == ("gp",)
             for m in v.marks]
    assert [m.kwargs["reason"] for m in marks] == [NEEDS_GP] and "pip install -e '.[gp]'" in NEEDS_GP
