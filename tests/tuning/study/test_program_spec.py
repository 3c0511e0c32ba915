"""Study files of a program ([bot] table): its parameters are declared in the file and checked
as strictly as the in-process bot's coefficients, with one line per mistake."""
import textwrap

import pytest

from tuning.errors import SpecError
from tuning.study.space import build_space
from tuning.study.spec import load_spec

BASE = textwrap.dedent("""
    name = "mine"
    n_trials = 5
    panel = ["random"]
    seed_bank = { start = 1, count = 10 }
    [bot]
    command = "python3 mybot.py --aggression {aggression} --depth {depth} --seed {game_seed}"
    cwd = "."
    [search]
    aggression = { low = 0.0, high = 1.0 }
    depth = { low = 1, high = 4, integer = true, default = 2 }
""")


def _load(tmp_path, text):
    path = tmp_path / "study.toml"
    path.write_text(text)
    return load_spec(path)


def test_the_contract_form_loads_and_its_space_is_the_declared_one(tmp_path):
    spec = _load(tmp_path, BASE)
    assert spec.bot.cwd == str(tmp_path.resolve())  # relative to the study file's folder
    space = build_space(spec)
    assert space.program and set(space.distributions) == {"aggression", "depth"}
    assert space.reference_params() == {"aggression": 0.5, "depth": 2}  # the middle, the declared default
    params = space.full_params({"aggression": 0.25, "depth": 3})
    assert params == {"aggression": 0.25, "depth": 3} and isinstance(params["depth"], int)


def test_fixed_values_keep_their_type_and_env_and_params_file_count_as_reaching(tmp_path):
    text = BASE.replace('[search]', 'env = { MYBOT_DEPTH = "{depth}" }\n[search]').replace(
        "--depth {depth} ", "").replace("depth = { low = 1, high = 4, integer = true, default = 2 }", "depth = 3")
    spec = _load(tmp_path, text)
    assert build_space(spec).full_params({"aggression": 0.1}) == {"depth": 3, "aggression": 0.1}
    text = BASE.replace('cwd = "."', 'cwd = "."\nparams_file = "json"') + "extra = { low = 0.0, high = 2.0 }\n"
    assert "extra" in build_space(_load(tmp_path, text)).distributions


@pytest.mark.parametrize("change, words", [
    (("aggression = { low = 0.0, high = 1.0 }", "aggression = { low = 0.0 }"), "needs explicit bounds"),
    (("aggression = { low = 0.0, high = 1.0 }", "aggression = { low = 1.0, high = 0.0 }"), "must be below high"),
    (("aggression = { low = 0.0, high = 1.0 }", "aggression = { low = 0.0, high = 1.0, log = true }"),
     "log scale needs low > 0"),
    (("default = 2", "default = 9"), "outside [1, 4]"),
    (("default = 2", "default = 2.5"), "must be whole"),
    (("aggression = { low = 0.0, high = 1.0 }", "aggression = \"high\""), "give a number"),
    (("--depth {depth} ", ""), "search.depth never reaches the program"),
    (("--seed {game_seed}", "--seed {game_seed} --x {speed}"), "{speed} has no value"),
    (('cwd = "."', 'cwd = "nowhere"'), "does not exist"),
    (('cwd = "."', 'cwd = "."\nparams_file = "yaml"'), "params_file"),
    (('cwd = "."', 'cwd = "."\nshell = true'), "unknown key 'bot.shell'"),
    (("--seed {game_seed}", "--seed {game_seed:x}"), "plain parameter name"),
    (("--seed {game_seed}", "--file {params_file}"), "params_file is not set"),
    (('name = "mine"', 'game_seed = 3\nname = "mine"'), "unknown key 'game_seed'"),
    (("depth = {", "game_seed = {"), "filled in by the lab"),
    (("n_trials = 5", "n_trials = 5\ntimeout_scale = 0"), "timeout_scale"),
    (("default = 2 }", "default = 2 }\n[validation]\npanel = []"), "list at least one opponent"),
    # a fixed value that is not a number the program can read (issue 32, item 9)
    (("aggression = { low = 0.0, high = 1.0 }", "aggression = nan"), "aggression = nan: a fixed value must be finite"),
    (("aggression = { low = 0.0, high = 1.0 }", "aggression = inf"), "aggression = inf: a fixed value must be finite"),
    (("aggression = { low = 0.0, high = 1.0 }", "aggression = -inf"), "a fixed value must be finite"),
])
def test_each_mistake_is_one_line_naming_it(tmp_path, change, words):
    old, new = change
    assert old in BASE
    with pytest.raises(SpecError) as err:
        _load(tmp_path, BASE.replace(old, new, 1))
    message = str(err.value)
    assert words in message and "\n" not in message, message


def test_without_a_bot_table_a_program_style_entry_is_refused_by_the_registry(tmp_path):
    text = BASE.split("[bot]")[0] + "[search]\nsilence_cost = { default = 1.0 }\n"
    with pytest.raises(SpecError, match="only a program's parameters"):
        _load(tmp_path, text)
    text = BASE.split("[bot]")[0] + "[search]\naggression = { low = 0.0, high = 1.0 }\n"
    with pytest.raises(SpecError, match="a study with a \\[bot\\] table tunes a program"):
        _load(tmp_path, text)
