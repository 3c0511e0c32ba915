"""``tune test`` and ``tune learn`` carried on under other code (issue 32): refused in one line
naming both digests, as studies are, unless ``--allow-code-change``; then status says the test
spans two versions. Real processes and SQLite; the refusal comes before Ray is started."""
import sqlalchemy as sa

from tests.tuning.processes import run_tune
from tuning.results import testreport
from tuning.storage.learnstore import LearnRun, open_learn
from tuning.storage.provenance import RUN_CODE, code_digest, short
from tuning.storage.records import BotTestRecord
from tuning.storage.teststore import open_test
from tuning.study.testspec import TestOptions

OTHER = "d" * 64


def _as_if_other_code(url, model, name):
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        definition = conn.execute(sa.select(model.definition).where(model.name == name)).scalar_one()
        (record,) = definition[RUN_CODE]
        conn.execute(sa.update(model).where(model.name == name)
                     .values(definition={**definition, RUN_CODE: [{**record, "digest": OTHER}]}))
    engine.dispose()


def _refused(*args, cwd):
    done = run_tune(*args, cwd=cwd, check=False)
    line = done.stderr.strip()
    assert done.returncode == 2 and "Traceback" not in line and "\n" not in line, done.stderr
    assert short(OTHER) in line and short(code_digest()) in line and "--allow-code-change" in line, line
    return line


def test_a_test_carried_on_under_other_code_is_refused_unless_allowed(tmp_path, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "studies").mkdir()
    url = f"sqlite:///{tmp_path}/studies/t.db"
    handle = open_test("t", url, TestOptions(new="chaser", base="random", max_games=400))
    try:
        assert handle.store.check_code(allow_change=False)[0]["digest"] == code_digest()  # recorded at the start
        assert len(handle.store.check_code(allow_change=False)) == 1  # the same code: nothing more
    finally:
        handle.close()
    _as_if_other_code(url, BotTestRecord, "t")
    assert _refused("test", "t", cwd=tmp_path).startswith("error: test 't' was played under code ")
    handle = open_test("t", url)
    try:
        records = handle.store.check_code(allow_change=True)
        assert [r["digest"] for r in records] == [OTHER, code_digest()]
        assert testreport.test_status(handle)["code"].startswith(f"spans 2 code versions: {short(OTHER)} from game 0")
    finally:
        handle.close()


def test_a_learning_run_carried_on_under_other_code_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    (tmp_path / "studies").mkdir()
    url = f"sqlite:///{tmp_path}/studies/td.db"
    store = open_learn("td", url, create=True)
    try:
        from tuning.driver.learn import LearnOptions, starting_weights

        store.create_or_check(LearnOptions(games=100, start=starting_weights("zero")).definition(),
                              may_differ=("games",))
        assert [r["digest"] for r in store.check_code(allow_change=False)] == [code_digest()]
        assert RUN_CODE not in store.definition()  # the settings alone: a carried-on run reads them back
    finally:
        store.storage.close()
    _as_if_other_code(url, LearnRun, "td")
    line = _refused("learn", "td", "--games", "200", "--out", "w.toml", cwd=tmp_path)
    assert line.startswith("error: learning run 'td' was played under code ")
    assert not (tmp_path / "w.toml").exists()
