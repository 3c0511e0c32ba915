"""A program's description: placeholders, rendering, and one-line errors."""
import pytest

from ocean.bots.external import ProgramSpec, absolute_cwd, format_value, render_params_file


def test_values_are_put_in_after_splitting_so_a_value_never_adds_arguments():
    p = ProgramSpec("./bot --name 'a {x}' --seed {game_seed}", env=(("DEPTH", "{depth}"),))
    argv, env = p.render({"x": 1.5, "depth": 3}, -5)
    assert argv == ["./bot", "--name", "a 1.5", "--seed", "-5"]
    assert env == {"DEPTH": "3"}
    assert p.parameter_names() == {"x", "depth"}


def test_numbers_read_back_exactly_and_integers_have_no_decimal_point():
    assert format_value(3) == "3"
    assert format_value(0.1) == "0.1" and float(format_value(1 / 3)) == 1 / 3
    assert render_params_file({"a": 2, "b": 0.25}, "toml") == "a = 2\nb = 0.25\n"
    assert render_params_file({"a": 2, "b": 0.25}, "json").strip() == '{"a": 2, "b": 0.25}'


def test_display_keeps_per_game_placeholders_and_quotes_only_where_a_shell_needs_it():
    p = ProgramSpec("python3 'my bot.py' --a {a} --seed {game_seed}")
    assert p.display({"a": 0.5}) == "python3 'my bot.py' --a 0.5 --seed {game_seed}"


@pytest.mark.parametrize("command, env, params_file, words", [
    ("", (), None, "command is empty"),
    ("./bot 'unclosed", (), None, "cannot be split"),
    ("./bot --a {a:.2f}", (), None, "plain parameter name"),
    ("./bot --a {1x}", (), None, "plain parameter name"),
    ("./bot --a {", (), None, "literal braces"),
    ("./bot --f {params_file}", (), None, "params_file is not set"),
    ("./bot", (("1BAD", "x"),), None, "not an environment variable name"),
    ("./bot", (), "yaml", "choose one of: toml, json"),
])
def test_bad_programs_are_one_line_errors(command, env, params_file, words):
    with pytest.raises(ValueError) as err:
        ProgramSpec(command, env=env, params_file=params_file)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_relative_cwd_starts_at_the_study_file_folder(tmp_path):
    assert absolute_cwd(None, tmp_path) == str(tmp_path.resolve())
    assert absolute_cwd("sub", tmp_path) == str((tmp_path / "sub").resolve())
    assert absolute_cwd("/abs", tmp_path) == "/abs"
