"""Search spaces: registry bounds by default, narrowed bounds, log scales, fixed values."""
from optuna.distributions import FloatDistribution, IntDistribution

from ocean.bots import coefficients
from tests.tuning.fakes import tiny_spec_dict
from tuning.study.space import build_space
from tuning.study.spec import parse_spec


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


def test_a_v2_study_draws_from_the_v2_registry_and_plays_the_v2_bot(tmp_path):
    from ocean.bots import coefficients as C
    from tuning.driver.worker import play_batch
    from tuning.errors import SpecError
    from tuning.results.export import render
    from tuning.study.opponents import study_bot

    spec = parse_spec(tiny_spec_dict(policy="tunable-v2", search={"kill_bonus": {}, "path_depth": {"high": 6},
                                                                   "space_horizon": 40}))
    space = build_space(spec)
    assert space.distributions["path_depth"] == IntDistribution(1, 6)
    full = space.full_params({"kill_bonus": 3.0, "path_depth": 4})
    assert set(full) == set(C.names(C.V2)) and full["space_horizon"] == 40 and full["kill_bonus"] == 3.0
    bot = study_bot(spec)
    assert bot.policy == "tunable-v2" and bot.params == C.validate(space.full_params(space.reference_params()),
                                                                     policy=C.V2)
    # the batch a worker plays is the v2 bot with the trial's coefficients
    from ocean.bots import resolve_bot
    from ocean.match import play_pairs

    result = play_batch(full, resolve_bot("hunter"), [7, 8], bot=bot)
    direct = play_pairs(bot.with_params(full), resolve_bot("hunter"), [7, 8])
    assert [r["winner"] for r in result.rows] == [r["winner"] for r in direct.rows()]
    assert [r["turns"] for r in result.rows] == [r["turns"] for r in direct.rows()]
    # the export says which bot it tunes, and loads back into that bot
    out = tmp_path / "best.toml"
    out.write_text(render(full, {"study": "x"}, "toml", bot))
    assert resolve_bot(f"params:{out}").policy == "tunable-v2"
    # v1 names are refused in a v2 study, with the v2 names listed
    try:
        parse_spec(tiny_spec_dict(policy="tunable-v2", search={"torpedo_hit_threshold_before": {}}))
    except SpecError as exc:
        assert "unknown coefficient 'torpedo_hit_threshold_before'; known: silence_cost" in str(exc)
        assert "policy tunable-v2" in str(exc)
        assert "\n" not in str(exc)
    else:
        raise AssertionError("a v1 coefficient was accepted in a v2 study")


def test_a_stored_study_without_a_policy_tunes_the_v1_bot():
    from tuning.study.opponents import study_bot

    stored = parse_spec(tiny_spec_dict()).stored()
    assert stored["policy"] == "tunable"
    del stored["policy"]  # as studies created before v2 stored their spec
    spec = parse_spec(stored)
    assert spec.policy == "tunable" and study_bot(spec).policy == "tunable"
