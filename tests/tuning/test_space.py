"""Search spaces: registry bounds by default, narrowed bounds, log scales, fixed values."""
from optuna.distributions import FloatDistribution, IntDistribution

from ocean.bots import coefficients
from tests.tuning.fakes import tiny_spec_dict
from tuning.space import build_space
from tuning.spec import parse_spec


def test_distributions_follow_the_spec_and_the_registry():
    spec = parse_spec(tiny_spec_dict(search={"silence_cost": {}, "stealth_weight": {"low": 0.01, "log": True},
                                             "engage_distance": {"high": 9}, "mine_spacing": 4}))
    space = build_space(spec)
    reg = {c.name: c for c in coefficients.COEFFICIENTS}
    assert space.distributions["silence_cost"] == FloatDistribution(reg["silence_cost"].low, reg["silence_cost"].high)
    assert space.distributions["stealth_weight"] == FloatDistribution(0.01, reg["stealth_weight"].high, log=True)
    assert space.distributions["engage_distance"] == IntDistribution(int(reg["engage_distance"].low), 9)
    assert space.fixed == {"mine_spacing": 4.0}


def test_full_params_fill_fixed_values_and_defaults():
    space = build_space(parse_spec(tiny_spec_dict()))
    full = space.full_params({"silence_cost": 1.25, "stealth_weight": 0.3})
    defaults = coefficients.defaults()
    assert set(full) == set(coefficients.NAMES)
    assert full["silence_cost"] == 1.25 and full["mine_spacing"] == 4 and isinstance(full["mine_spacing"], int)
    assert full["discount"] == defaults["discount"]
    assert space.reference_params() == {"silence_cost": defaults["silence_cost"],
                                        "stealth_weight": defaults["stealth_weight"]}
