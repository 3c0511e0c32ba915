"""User-given names are plain names, never paths (issue 32, item 7): a study, a test or a learning
run named ``../x``, ``a/b``, ``.hidden``, empty or longer than the database's column is refused in
one line before any database is opened or created; and a study, a test and a learning run never
share a name, so ``tune status NAME`` / ``tune report NAME`` always mean one thing."""
from __future__ import annotations

import textwrap

import pytest
from typer.testing import CliRunner

from tests.tuning.fakes import tiny_spec_dict
from tuning.cli import app
from tuning.errors import TuningError
from tuning.storage.handle import create_study
from tuning.storage.learnstore import open_learn
from tuning.storage.teststore import open_test
from tuning.study.spec import parse_spec
from tuning.study.testspec import TestOptions

NOWHERE = "127.0.0.1:9"  # a Ray address nothing listens on: a command that got that far fails after creating


def _one_line_refusal(result, *words) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    work = tmp_path / "lab" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    return work


@pytest.mark.parametrize("name", ["../x", "../../x/run", "a/b", ".hidden", "", "x" * 65])
@pytest.mark.parametrize("command", [
    ["learn", "{name}", "--games", "30", "--out", "w.toml", "--ray-address", NOWHERE],
    ["test", "{name}", "--new", "random", "--base", "chaser", "--ray-address", NOWHERE],
    ["status", "{name}"], ["report", "{name}"], ["resume", "{name}"], ["validate", "{name}"],
], ids=["learn", "test", "status", "report", "resume", "validate"])
def test_a_name_that_is_not_plain_is_refused_in_one_line(workdir, name, command):
    result = CliRunner().invoke(app, [a.format(name=name) for a in command])
    _one_line_refusal(result, repr(name))
    assert not [p for p in workdir.parents[1].rglob("*") if p.suffix in (".db", ".toml")], "something was created"


@pytest.mark.parametrize("name", ["../x", "x" * 65])
def test_a_study_file_naming_a_path_is_refused_at_launch(workdir, name):
    (workdir / "s.toml").write_text(textwrap.dedent(f"""\
        name = "{name}"
        n_trials = 2
        panel = ["random"]
        games_per_opponent = 2
        [search]
        silence_cost = {{}}
        """))
    result = CliRunner().invoke(app, ["launch", "s.toml", "--ray-address", NOWHERE])
    _one_line_refusal(result, "name")
    assert not list(workdir.parents[1].rglob("*.db"))


def test_a_name_longer_than_the_column_on_postgresql_is_one_line(pg_url, workdir):
    for command in (["learn", "y" * 65, "--games", "30", "--out", "w.toml"],
                    ["test", "y" * 65, "--new", "random", "--base", "chaser"]):
        result = CliRunner().invoke(app, [*command, "--storage", pg_url, "--ray-address", NOWHERE])
        _one_line_refusal(result, "65 characters long, more than 64")


def test_a_study_a_test_and_a_learning_run_never_share_a_name(tmp_path):
    url = f"sqlite:///{tmp_path}/lab.db"
    run = open_learn("run", url, create=True)
    run.create_or_check({"games": 30})
    run.storage.close() if hasattr(run.storage, "close") else None
    with pytest.raises(TuningError, match="'run' is a learning run in .*tune learn run.*give the study another name"):
        create_study(parse_spec(tiny_spec_dict(name="run")), url)
    with pytest.raises(TuningError, match="'run' is a learning run in .*give the bot test another name"):
        open_test("run", url, TestOptions(new="random", base="chaser"))
    create_study(parse_spec(tiny_spec_dict(name="tiny")), url).close()
    open_test("check", url, TestOptions(new="random", base="chaser")).close()
    for taken, what in (("tiny", "a study"), ("check", "a bot test")):
        with pytest.raises(TuningError, match=f"'{taken}' is {what} in .*give the learning run another name"):
            open_learn(taken, url, create=True).create_or_check({"games": 30})
    assert open_learn("run", url, create=False).create_or_check({"games": 30})[1] is False  # its own name: fine
