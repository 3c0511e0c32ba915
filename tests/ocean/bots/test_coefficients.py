"""The coefficient registry: one source of truth, strict files, exact round trips."""
import math

import pytest

from ocean.bots import coefficients as C


def _load_params(path):
    """A coefficient file's coefficients, without the bot it names."""
    return C.read_params_file(path)[1]


def _from_vector(vec, policy=C.V1):
    """Names for a vector in registry order: the inverse of ``C.vector``."""
    assert len(vec) == C.VECTOR_SIZE
    return {c.name: (int(v) if c.integer else float(v)) for c, v in zip(C.registry(policy), vec)}


@pytest.mark.parametrize("policy", [C.V1, C.V2])
def test_registry_entries_are_sane(policy):
    names = C.names(policy)
    assert len(set(names)) == len(names) <= C.VECTOR_SIZE
    for c in C.registry(policy):
        assert c.low <= c.default <= c.high, c.name
        assert c.meaning and c.name.islower()
        if c.log:
            assert c.low > 0
        if c.integer:
            assert float(c.default).is_integer()
    required = {"silence_cost", "surface_cost", "torpedo_hit_threshold", "trigger_hit_threshold", "stealth_weight",
                "space_weight", "mine_danger_weight", "retaliation_weight", "discount", "mine_spacing",
                "sonar_window", "engage_distance"}
    assert required <= set(names)


def test_save_and_load_round_trip_exactly(tmp_path):
    values = {c.name: c.low + (c.high - c.low) / 3 if not c.integer else int(c.high) for c in C.COEFFICIENTS}
    path = tmp_path / "bot.toml"
    C.save_params(values, path, provenance={"study": "x \"quoted\"", "trial": 3, "ci95": [0.5, 0.6]})
    loaded = _load_params(path)
    assert loaded == C.validate(values)
    assert list(C.vector(loaded)) == [loaded[n] for n in C.NAMES] + [0.0] * (C.VECTOR_SIZE - len(C.NAMES))
    assert _from_vector(C.vector(loaded)) == loaded


def test_v2_files_say_their_bot_and_round_trip(tmp_path):
    values = {c.name: c.low + (c.high - c.low) / 3 if not c.integer else int(c.high) for c in C.COEFFICIENTS_V2}
    path = tmp_path / "bot.toml"
    C.save_params(values, path, provenance={"study": "s"}, policy=C.V2)
    assert 'bot = "tunable-v2"' in path.read_text()
    policy, loaded = C.read_params_file(path)
    assert policy == C.V2 and loaded == C.validate(values, policy=C.V2)
    assert _from_vector(C.vector(loaded, C.V2), C.V2) == loaded
    # the v2 registry names the numbers that were hidden constants of v1
    assert {"opponent_unready_factor", "retaliation_radius", "exact_retaliation_cells", "retaliation_estimate",
            "space_horizon"} <= set(C.names(C.V2))
    assert C.registry(C.V2)[C.INDEX_V2["opponent_unready_factor"]].default == 0.35


def test_a_file_without_a_bot_line_is_a_v1_file(tmp_path):
    path = tmp_path / "old.toml"
    C.save_params(C.defaults(), path)
    text = "\n".join(line for line in path.read_text().splitlines() if not line.startswith("bot ="))
    path.write_text(text)
    assert C.read_params_file(path) == (C.V1, C.defaults())
    # a v1 file's coefficients are not a v2 set, and a v2 file wants v2 names
    path.write_text('bot = "tunable-v2"\n' + text)
    with pytest.raises(C.ParamsError, match="unknown coefficient 'torpedo_hit_threshold_before'; known: .* of bot tunable-v2"):
        C.read_params_file(path)
    path.write_text('bot = "hunter"\n' + text)
    with pytest.raises(C.ParamsError, match="bot = 'hunter' is not a tunable bot"):
        C.read_params_file(path)


@pytest.mark.parametrize("table, words", [
    ({"silence_costt": 1.0}, "unknown coefficient 'silence_costt'"),
    ({"discount": 2.0}, "discount = 2 is out of bounds"),
    ({"discount": float("nan")}, "out of bounds"),
    ({"discount": "high"}, "not a number"),
    ({"discount": True}, "not a number"),
    ({"mine_spacing": 2.5}, "not whole"),
])
def test_bad_values_are_refused_with_the_key_and_the_range(tmp_path, table, words):
    values = dict(C.defaults())
    values.update(table)
    if "silence_costt" in table:
        values.pop("silence_cost")
    with pytest.raises(C.ParamsError) as err:
        C.validate(values, where="bot.toml")
    message = str(err.value)
    assert words in message and "\n" not in message and message.startswith("bot.toml: ")
    if "bounds" in words or "number" in words:
        assert "[" in message and "]" in message


def test_files_missing_a_coefficient_or_the_table_are_refused(tmp_path):
    values = C.defaults()
    path = tmp_path / "bot.toml"
    C.save_params(values, path)
    text = path.read_text().replace("discount = ", "# discount = ")
    path.write_text(text)
    with pytest.raises(C.ParamsError, match="missing coefficient 'discount'"):
        _load_params(path)
    path.write_text("discount = 0.9\n")
    with pytest.raises(C.ParamsError, match=r"no \[coefficients\] table"):
        _load_params(path)
    path.write_text("[coefficients\n")
    with pytest.raises(C.ParamsError, match="not valid TOML"):
        _load_params(path)
    with pytest.raises(C.ParamsError, match="cannot read"):
        _load_params(tmp_path / "nope.toml")


def test_partial_sets_take_defaults_only_when_asked():
    full = C.validate({"discount": 0.9}, partial=True)
    assert full["discount"] == 0.9 and full["silence_cost"] == C.defaults()["silence_cost"]
    assert math.isclose(sum(full.values()) - 0.9, sum(C.defaults().values()) - C.defaults()["discount"])


def test_v1_files_play_the_v1_bot_and_v2_files_the_v2_bot(tmp_path):
    from ocean.bots import resolve_bot

    old = tmp_path / "old.toml"
    C.save_params(dict(C.defaults(), silence_cost=1.0), old)
    old.write_text("\n".join(line for line in old.read_text().splitlines() if not line.startswith("bot =")))
    bot = resolve_bot(f"params:{old}")
    assert bot.policy == "tunable" and bot.kind == resolve_bot("tunable").kind
    assert list(bot.vector()) == list(C.vector(dict(C.defaults(), silence_cost=1.0)))
    new = tmp_path / "new.toml"
    C.save_params(dict(C.defaults(C.V2), kill_bonus=1.0), new, policy=C.V2)
    bot = resolve_bot(f"params:{new}")
    assert bot.policy == "tunable-v2" and bot.kind == resolve_bot("tunable-v2").kind
    assert bot.vector()[C.INDEX_V2["kill_bonus"]] == 1.0
