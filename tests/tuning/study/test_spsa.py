"""SPSA follows Spall's published update rule and improves a known noisy function."""
import math

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution, IntDistribution

from tuning.study.spsa import SPSASampler

SPACE = {"x": FloatDistribution(0.0, 10.0), "y": FloatDistribution(0.01, 100.0, log=True),
         "z": FloatDistribution(-1.0, 1.0)}
NAMES = sorted(SPACE)
OPTIMUM = np.array([0.7, 0.25, 0.6])  # in unit coordinates
X0 = {"x": 3.0, "y": 1.0, "z": 0.0}  # unit (0.3, 0.5, 0.5)


def unit_point(params: dict, space: dict, names: list[str]) -> np.ndarray:
    """``params`` in the sampler's coordinates, computed here from the bounds: each range is
    [0, 1], on a log scale where the range is logarithmic."""
    out = []
    for name in names:
        d, x = space[name], float(params[name])
        low, high = (math.log(d.low), math.log(d.high)) if d.log else (float(d.low), float(d.high))
        out.append((((math.log(x) if d.log else x) - low) / (high - low)) if high > low else 0.5)
    return np.array(out)


def _noisy(params: dict, rng: np.random.Generator) -> float:
    u = unit_point(params, SPACE, NAMES)
    return 1.0 - float(np.sum((u - OPTIMUM) ** 2)) + rng.normal(0.0, 0.01)


def _run(sampler: SPSASampler, n: int, seed: int = 3) -> optuna.Study:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rng = np.random.default_rng(seed)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    for _ in range(n):
        trial = study.ask()
        params = {name: trial.suggest_float(name, d.low, d.high, log=d.log) for name, d in SPACE.items()}
        study.tell(trial, _noisy(params, rng))
    return study


def test_each_step_is_the_published_rule():
    a, c, big_a = 0.3, 0.05, 4.0
    sampler = SPSASampler(SPACE, X0, seed=5, a=a, c=c, stability=big_a, first_trial=0)
    study = _run(sampler, 2 * 12)
    trials = study.get_trials()
    theta = unit_point(X0, SPACE, NAMES)
    for k in range(12):
        plus, minus = trials[2 * k], trials[2 * k + 1]
        a_k = a / (k + 1 + big_a) ** 0.602  # Spall (1998), written out here, not taken from the module
        c_k = c / (k + 1) ** 0.101
        u_plus, u_minus = unit_point(plus.params, SPACE, NAMES), unit_point(minus.params, SPACE, NAMES)
        delta = (u_plus - u_minus) / (2 * c_k)
        assert np.allclose(np.abs(delta), 1.0), "perturbations are +-c_k in every coordinate"
        assert np.allclose(delta, sampler.delta(k))
        assert np.allclose((u_plus + u_minus) / 2, theta), f"iteration {k} is centred on theta_{k}"
        theta = theta + a_k * (plus.value - minus.value) / (2 * c_k) * delta


def test_it_climbs_a_noisy_quadratic():
    sampler = SPSASampler(SPACE, X0, seed=1, a=0.5, c=0.1, stability=5.0, first_trial=0)
    study = _run(sampler, 2 * 150)
    last = study.get_trials()[-2:]
    theta = (unit_point(last[0].params, SPACE, NAMES) + unit_point(last[1].params, SPACE, NAMES)) / 2
    start = np.linalg.norm(unit_point(X0, SPACE, NAMES) - OPTIMUM)
    assert np.linalg.norm(theta - OPTIMUM) < start / 4


def test_two_trials_in_flight_perturb_the_same_theta():
    sampler = SPSASampler(SPACE, X0, seed=2, first_trial=0)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    rng = np.random.default_rng(0)
    running = []
    for _ in range(20):  # always two in flight: ask one, tell the oldest
        trial = study.ask()
        params = {name: trial.suggest_float(name, d.low, d.high, log=d.log) for name, d in SPACE.items()}
        running.append((trial, params))
        if len(running) == 2:
            t, p = running.pop(0)
            study.tell(t, _noisy(p, rng))
    trials = study.get_trials()
    for k in range(9):
        u_plus, u_minus = (unit_point(trials[2 * k + s].params, SPACE, NAMES) for s in (0, 1))
        clipped = np.any((u_plus <= 0) | (u_plus >= 1) | (u_minus <= 0) | (u_minus >= 1))
        if not clipped:
            assert np.allclose(np.abs(u_plus - u_minus), np.abs(u_plus - u_minus)[0])


def test_deltas_are_a_function_of_seed_and_iteration():
    one, two = SPSASampler(SPACE, X0, seed=9), SPSASampler(SPACE, X0, seed=9)
    assert all(np.array_equal(one.delta(k), two.delta(k)) for k in range(20))
    assert any(not np.array_equal(one.delta(k), SPSASampler(SPACE, X0, seed=10).delta(k)) for k in range(20))
    signs = np.array([one.delta(k) for k in range(200)])
    assert set(np.unique(signs)) == {-1.0, 1.0} and abs(signs.mean()) < 0.15


def test_integers_are_rounded_and_categoricals_refused():
    space = {"n": IntDistribution(1, 9)}
    sampler = SPSASampler(space, {"n": 5}, seed=1, first_trial=0)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    trial = study.ask()
    assert isinstance(trial.suggest_int("n", 1, 9), int)
    with pytest.raises(ValueError, match="numbers only"):
        SPSASampler({"c": optuna.distributions.CategoricalDistribution(["a", "b"])}, {"c": "a"})
    assert math.isclose(unit_point({"n": 5}, space, ["n"])[0], 0.5)


def test_a_study_file_sets_the_perturbation_and_the_step(tmp_path):
    from tuning.errors import SpecError
    from tuning.study.samplers import make_sampler
    from tuning.study.space import build_space
    from tuning.study.spec import load_spec

    def spec(sampler_lines: str):
        path = tmp_path / "s.toml"
        path.write_text('name = "s"\nn_trials = 4\npanel = ["random"]\nseed_bank = { start = 1, count = 2 }\n'
                        f'[sampler]\n{sampler_lines}\n[search]\nsilence_cost = {{}}\n'
                        '[validation]\nseeds = { start = 900, count = 2 }\ngames = 4\n')
        return load_spec(path)

    fine = spec('kind = "spsa"\nperturbation = 0.03\nstep = 0.2')
    sampler = make_sampler(fine.sampler, build_space(fine))
    assert (sampler._c, sampler._a) == (0.03, 0.2)
    usual = spec('kind = "spsa"')
    assert make_sampler(usual.sampler, build_space(usual))._c == 0.1  # the published default
    with pytest.raises(SpecError, match="perturbation is a setting of kind = \"spsa\" only") as info:
        spec('kind = "tpe"\nperturbation = 0.03')
    assert "\n" not in str(info.value)
    with pytest.raises(SpecError, match="perturbation"):
        spec('kind = "spsa"\nperturbation = 0.9')


def _pruned_pair_study(common: dict | None) -> list:
    """Iteration 0's minus trial pruned with a low score on its first maps (and, with ``common``,
    both trials' scores on the maps both played, as the driver stores them), then iteration 1."""
    from tuning.study.spsa import COMMON

    sampler = SPSASampler(SPACE, X0, seed=4, first_trial=0)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    for number in range(4):
        trial = study.ask()
        params = {name: trial.suggest_float(name, d.low, d.high, log=d.log) for name, d in SPACE.items()}
        if number == 1:
            trial.report(0.1, step=8)
            if common is not None:
                trial.set_user_attr(COMMON, common)
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        else:
            study.tell(trial, 0.9 if number == 0 else _noisy(params, np.random.default_rng(number)))
    return study.get_trials()


def test_a_pruned_pair_steps_on_the_maps_both_played_never_on_a_prefix():
    trials = _pruned_pair_study({"pairs": 8, "scores": {"0": 0.6, "1": 0.5}})
    theta_1 = (unit_point(trials[2].params, SPACE, NAMES) + unit_point(trials[3].params, SPACE, NAMES)) / 2
    a_k, c_k = 0.5 / (1 + 5.0) ** 0.602, 0.1  # iteration 0, the sampler's defaults (a, c, A)
    want = unit_point(X0, SPACE, NAMES) + a_k * (0.6 - 0.5) / (2 * c_k) * SPSASampler(SPACE, X0, seed=4).delta(0)
    assert np.allclose(theta_1, np.clip(want, 0.0, 1.0))  # 0.6 - 0.5 on common maps, not 0.9 - 0.1


def test_a_pruned_pair_without_common_maps_makes_no_step_and_is_settled():
    trials = _pruned_pair_study(None)
    theta_1 = (unit_point(trials[2].params, SPACE, NAMES) + unit_point(trials[3].params, SPACE, NAMES)) / 2
    assert np.allclose(theta_1, unit_point(X0, SPACE, NAMES))  # iteration 0 moved nothing
    assert trials[2].system_attrs["spsa:taken"] == [0]  # but it is settled: no later theta waits for it


def _h2h_value(plus: np.ndarray, minus: np.ndarray, rng: np.random.Generator) -> float:
    """The plus side's expected score against the minus side under a logistic model of the
    quadratic's strength, plus noise: what a head-to-head trial reports."""
    strength = lambda u: -8.0 * float(np.sum((u - OPTIMUM) ** 2))  # noqa: E731
    p = 1.0 / (1.0 + math.exp(-(strength(plus) - strength(minus))))
    return min(1.0, max(0.0, p + rng.normal(0.0, 0.02)))


def _run_h2h(sampler: SPSASampler, n: int, seed: int = 3) -> tuple[optuna.Study, list]:
    """Iterations told one at a time, as the runner does: each trial's parameters are theta_k,
    its pair (``perturbation``) plays itself, its value the plus side's score."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rng = np.random.default_rng(seed)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    pairs = []
    for _ in range(n):
        trial = study.ask()
        for name, d in SPACE.items():
            trial.suggest_float(name, d.low, d.high, log=d.log)
        frozen = study._storage.get_trial(trial._trial_id)
        plus, minus = sampler.perturbation(trial.number, sampler.theta_of(frozen))
        pairs.append((plus, minus))
        study.tell(trial, _h2h_value(unit_point(plus, SPACE, NAMES), unit_point(minus, SPACE, NAMES), rng))
    return study, pairs


def test_head_to_head_each_iteration_is_one_trial_stepping_on_plus_against_minus():
    a, c, big_a = 0.3, 0.05, 4.0
    sampler = SPSASampler(SPACE, X0, seed=5, a=a, c=c, stability=big_a, first_trial=0, head_to_head=True)
    study, pairs = _run_h2h(sampler, 12)
    trials = study.get_trials()
    theta = unit_point(X0, SPACE, NAMES)
    for k in range(12):
        a_k = a / (k + 1 + big_a) ** 0.602  # Spall (1998) and Fishtest, written out here
        c_k = c / (k + 1) ** 0.101
        assert np.allclose(unit_point(trials[k].params, SPACE, NAMES), theta), f"trial {k} is theta_{k} itself"
        u_plus, u_minus = (unit_point(p, SPACE, NAMES) for p in pairs[k])
        delta = sampler.delta(k)
        assert np.allclose(np.abs(delta), 1.0)
        # theta +- c_k delta, kept inside the space like every point
        assert np.allclose(u_plus, np.clip(theta + c_k * delta, 0, 1))
        assert np.allclose(u_minus, np.clip(theta - c_k * delta, 0, 1))
        value = trials[k].value  # the plus side's score; the minus side's is its complement
        theta = np.clip(theta + a_k * (value - (1 - value)) / (2 * c_k) * delta, 0.0, 1.0)
    assert np.allclose(unit_point(sampler.theta(study, 12), SPACE, NAMES), theta), "the point found, after the last step"


def test_head_to_head_climbs_without_any_outside_opponent():
    sampler = SPSASampler(SPACE, X0, seed=1, a=0.5, c=0.1, stability=5.0, first_trial=0, head_to_head=True)
    study, _ = _run_h2h(sampler, 200)
    found = unit_point(sampler.theta(study, 200), SPACE, NAMES)
    start = np.linalg.norm(unit_point(X0, SPACE, NAMES) - OPTIMUM)
    assert np.linalg.norm(found - OPTIMUM) < start / 3


def test_a_study_file_chooses_head_to_head_scoring_for_spsa_only():
    from tests.tuning.fakes import tiny_spec_dict
    from tuning.errors import SpecError
    from tuning.study.spec import parse_spec

    spec = parse_spec(tiny_spec_dict(sampler={"kind": "spsa", "seed": 1, "scoring": "head-to-head"}))
    assert spec.sampler.head_to_head
    assert not parse_spec(tiny_spec_dict(sampler={"kind": "spsa", "seed": 1})).sampler.head_to_head
    with pytest.raises(SpecError, match='scoring is a setting of kind = "spsa" only'):
        parse_spec(tiny_spec_dict(sampler={"kind": "tpe", "scoring": "head-to-head"}))
    with pytest.raises(SpecError, match="sampler.scoring"):
        parse_spec(tiny_spec_dict(sampler={"kind": "spsa", "scoring": "self-play"}))
