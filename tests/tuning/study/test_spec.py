"""Study files: what is accepted, and one precise line for each kind of mistake."""
import tomllib
from pathlib import Path

import pytest

from tests.tuning.fakes import tiny_spec_dict
from tuning.errors import SpecError
from tuning.study.spec import load_spec, parse_spec


def test_a_tiny_spec_loads_with_defaults_filled_in():
    spec = parse_spec(tiny_spec_dict())
    assert spec.pairs_per_opponent == 4 and spec.training_seeds() == [100, 101, 102, 103]
    assert spec.trials_in_flight == 2 and spec.validation.top_k == 1
    assert "storage" not in spec.stored() and spec.stored()["name"] == "tiny"


def test_games_per_opponent_takes_the_first_maps_of_the_bank():
    spec = parse_spec(tiny_spec_dict(games_per_opponent=4))
    assert spec.training_seeds() == [100, 101]


def test_overrides_are_validated_again():
    spec = parse_spec(tiny_spec_dict())
    assert spec.with_overrides(n_trials=7).n_trials == 7
    with pytest.raises(SpecError, match="must be even"):
        spec.with_overrides(games=3)


def test_env_variables_fill_storage(monkeypatch):
    monkeypatch.setenv("TEST_DB_URL", "sqlite:///x.db")
    spec = parse_spec(tiny_spec_dict(storage="${TEST_DB_URL}"))
    assert spec.storage == "sqlite:///x.db"
    monkeypatch.delenv("TEST_DB_URL")
    with pytest.raises(SpecError, match="TEST_DB_URL is not set"):
        parse_spec(tiny_spec_dict(storage="${TEST_DB_URL}"))


def _with(**changes):
    data = tiny_spec_dict()
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return data


MALFORMED = [
    (_with(colour="blue"), "unknown key 'colour'"),
    (_with(sampler={"kind": "bayes"}), "sampler.kind"),
    (_with(sampler={"kind": "tpe", "sed": 1}), "unknown key 'sampler.sed'; did you mean 'sampler.seed'?"),
    (_with(sampler={"kind": "tpe", "colour": 1}), "unknown key 'sampler.colour'; allowed here: kind, seed, startup_trials"),
    (_with(search={"no_such_coef": {}}), "unknown coefficient 'no_such_coef'"),
    (_with(search={"silence_cost": {"low": 2.0, "high": 1.0}}), "low (2) must be below high (1)"),
    (_with(search={"silence_cost": {"low": -1.0}}), "search.silence_cost.low = -1 is outside"),
    (_with(search={"silence_cost": {"log": True}}), "a log scale needs low > 0"),
    (_with(search={"mine_spacing": {"high": 5.5}}), "must be whole"),
    (_with(search={"silence_cost": 1.0}), "nothing to tune"),
    (_with(search={"silence_cost": "high"}), "give a number"),
    (_with(search={"silence_cost": {"lo": 1}}), "unknown key 'search.silence_cost.lo'; did you mean 'search.silence_cost.low'?"),
    (_with(search={"silence_cost": {}, "discount": 2.0}), "search.discount = 2 is out of bounds"),
    (_with(n_trials=0), "n_trials: input should be greater than or equal to 1"),
    (_with(n_trials="3"), "n_trials: input should be a valid integer"),
    (_with(n_trials=None), "missing key 'n_trials'"),
    # a mistyped key is named as the user wrote it, not as the missing one (issue 49)
    ({**_with(n_trials=None), "n_trails": 6}, "unknown key 'n_trails'; did you mean 'n_trials'?"),
    (_with(games_per_opponent=3), "must be even"),
    (_with(games_per_opponent=-2), "games_per_opponent: input should be greater than or equal to 2"),
    (_with(games_per_opponent=100), "needs 50 maps but seed_bank has 4"),
    (_with(seed_bank={"start": 2**63 - 2, "count": 5}), "signed 64-bit"),
    (_with(seed_bank={"start": 1, "count": 0}), "seed_bank.count"),
    (_with(validation={"seeds": {"start": 102, "count": 10}, "games": 4}), "overlap seed_bank"),
    (_with(panel=[]), "list at least one opponent"),
    (_with(panel=["chaser", "chaser"]), "listed twice"),
    (_with(panel=5), "give a panel name or a list of bot names"),
    (_with(name="two words"), "name: use 1-64 letters"),
    (_with(pruning={"alpha": 0.9}), "pruning.alpha"),
    (_with(trials_in_flight=True), "trials_in_flight: input should be a valid integer"),
    (_with(trials_in_flight=0), "trials_in_flight: input should be greater than or equal to 1"),
    (_with(batch_pairs=2.5), "batch_pairs: use a whole number of maps per batch"),
    (_with(batch_pairs="fast"), "batch_pairs: use a whole number of maps per batch (1 or more), or \"auto\""),
    (_with(batch_pairs=0), "batch_pairs: use a whole number"),
    (_with(games_per_opponent=0), "games_per_opponent: input should be greater than or equal to 2 (got 0)"),
    (_with(validation={"seeds": {"start": 5000, "count": 10}, "games": 0}),
     "validation.games: input should be greater than or equal to 2"),
    (_with(search={}), "nothing to tune"),
    (_with(storage=5), "storage: input should be a valid string"),
    (_with(sampler={"kind": "tpe", "startup_trials": -1}), "sampler.startup_trials"),
    (_with(time={"turn_ms": 0}), "time.turn_ms: input should be greater than or equal to 1 (got 0)"),
    (_with(time={"turn_ms": "5"}), "time.turn_ms: input should be a valid integer"),
    (_with(time={"first_turn_ms": 2.5}), "time.first_turn_ms: input should be a valid integer"),
    (_with(time={"turn": 5}), "unknown key 'time.turn'; did you mean 'time.turn_ms'?"),
    (_with(time={"colour": 5}), "unknown key 'time.colour'; allowed here: turn_ms, first_turn_ms"),
    (_with(time={"turn_ms": 5, "scale": 2.0}), "time: the limits' scale is the top-level key timeout_scale"),
    (_with(time=5), "time: input should be a valid dictionary"),
]


@pytest.mark.parametrize("data, words", MALFORMED)
def test_malformed_specs_give_one_line_naming_the_problem(data, words):
    with pytest.raises(SpecError) as info:
        parse_spec(data, source="s.toml")
    message = str(info.value)
    assert words in message
    assert "\n" not in message and message.startswith("s.toml: ")


def test_toml_syntax_errors_and_duplicate_keys_are_one_line(tmp_path):
    path = tmp_path / "dup.toml"
    path.write_text('name = "a"\nname = "b"\n')
    with pytest.raises(SpecError, match="not valid TOML") as info:
        load_spec(path)
    assert "\n" not in str(info.value)
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "missing.toml")


def test_the_shipped_studies_are_valid(monkeypatch):
    from pathlib import Path

    from tuning.study.opponents import resolve_panel

    monkeypatch.setenv("OCEAN_STORAGE", "postgresql+psycopg://lab@db:5432/ocean")
    monkeypatch.setenv("OCEAN_RAY_ADDRESS", "auto")
    root = Path(__file__).resolve().parents[3] / "studies"
    names = set()
    for name in ("quick", "default", "cluster", "quick-v2", "quick-v3", "selfplay-v3"):
        spec = load_spec(root / f"{name}.toml")
        assert spec.name == name
        assert resolve_panel(spec.panel)
        names.add(spec.name)
    assert load_spec(root / "quick-v2.toml").policy == "tunable-v2"
    assert load_spec(root / "quick-v3.toml").policy == "tunable-v3"
    assert load_spec(root / "selfplay-v3.toml").sampler.head_to_head
    cluster = load_spec(root / "cluster.toml")
    assert cluster.storage.startswith("postgresql+psycopg://")
    quick = load_spec(root / "quick.toml")
    # The quick study's budget (before pruning) stays at minutes on 2 cores (~300 games/s/core).
    budget = quick.n_trials * len(resolve_panel(quick.panel)) * 2 * quick.pairs_per_opponent
    assert budget <= 60_000


def test_the_example_c_bot_studies_differ_only_in_how_a_trial_is_scored():
    from pathlib import Path

    examples = Path(__file__).resolve().parents[3] / "studies" / "examples"
    panel, h2h = (load_spec(examples / f"mybotc-{kind}.toml") for kind in ("panel", "h2h"))
    assert (panel.name, h2h.name) == ("mybotc-panel", "mybotc-h2h")
    assert h2h.sampler.head_to_head and not panel.sampler.head_to_head
    assert panel.time_control == h2h.time_control and panel.time_control.turn_limit_ms == 20
    same = {k: v for k, v in panel.stored().items() if k not in ("name", "sampler", "pruning")}
    assert same == {k: v for k, v in h2h.stored().items() if k not in ("name", "sampler", "pruning")}


def test_the_time_table_gives_the_time_control_told_and_enforced():
    from ocean.timecontrol import DEFAULT_TIME, TimeControl

    assert parse_spec(tiny_spec_dict()).time_control == DEFAULT_TIME  # CodinGame's: 50 ms, 1000 ms
    spec = parse_spec(tiny_spec_dict(time={"turn_ms": 5}, timeout_scale=2.0))
    assert spec.time_control == TimeControl(5, 1000, 2.0)
    assert spec.time_control.turn_limit_ms == 10 and spec.time_control.values()["turn_ms"] == "5"
    stored = spec.stored()
    assert stored["time"] == {"turn_ms": 5, "first_turn_ms": 1000}
    assert parse_spec(stored).time_control == spec.time_control  # kept with the study
    old = {k: v for k, v in stored.items() if k != "time"}  # a study stored before [time] existed
    assert parse_spec(old).time_control == TimeControl(50, 1000, 2.0)


def test_the_shipped_tuned_v3_file_is_a_v3_set_validated_by_its_head_to_head_study():
    from ocean.bots import coefficients as C

    path = Path(__file__).resolve().parents[3] / "studies" / "tuned-v3.toml"
    policy, values = C.read_params_file(path)
    assert policy == C.V3
    provenance = tomllib.loads(path.read_text())["provenance"]
    assert provenance["study"] == "selfplay-v3" and provenance["verdict"] == "gain"
    assert provenance["head_to_head_low"] > 0  # above one half against the defaults
    moved = {k for k, v in values.items() if abs(v - C.defaults(C.V3)[k]) > 1e-9}
    assert moved == set(load_spec(path.parent / "selfplay-v3.toml").search)


@pytest.mark.parametrize("validation, message", [
    ({"elo0": 10.0, "elo1": 5.0}, r"validation: elo1 \(5\) must be above elo0 \(10\)"),
    ({"alpha": 0.6}, "alpha"),
    ({"beta": 0.0}, "beta"),
    ({"not_worse_elo": 0.0}, "not_worse_elo"),
    ({"not_worse_elo": 30, "elo": 5}, "elo"),  # a typo is refused, not ignored
])
def test_the_sequential_validation_keys_are_checked(validation, message):
    with pytest.raises(SpecError, match=message):
        parse_spec(tiny_spec_dict(validation={"seeds": {"start": 5000, "count": 10}, "games": 4, **validation}))


def test_the_sequential_validation_keys_have_defaults_and_the_old_margin_still_works(capsys):
    spec = parse_spec(tiny_spec_dict())
    v = spec.validation
    assert (v.elo0, v.elo1, v.alpha, v.beta, v.not_worse_elo, v.held_out_margin) == (0.0, 10.0, 0.025, 0.05, 30.0, None)
    assert "held_out_margin" not in spec.stored()["validation"]
    assert "held_out_margin" not in capsys.readouterr().err
    # the former default, stored with every study before the margin was in Elo: judged like a new study
    assert parse_spec(tiny_spec_dict(validation={"held_out_margin": 0.02})).validation.held_out_margin is None
    # another margin still works, with one line naming the new key
    older = parse_spec(tiny_spec_dict(validation={"held_out_margin": 0.05}), source="old.toml")
    assert older.validation.held_out_margin == 0.05
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "validation.not_worse_elo" in err and "old.toml" in err
