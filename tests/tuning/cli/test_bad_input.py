"""Bad input never half-starts a study: each malformed study file gives one line on stderr
naming the problem and what would be right, exit code 2, and nothing in any database; a
storage that is unreachable or not a study database is one line too, never a traceback."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from ocean.bots.registry import STUDY_POLICIES

from tests.databases import fresh_database
from tuning.cli import app

GOOD = textwrap.dedent("""\
    name = "bad"
    n_trials = 3
    trials_in_flight = 2
    panel = ["random", "chaser"]
    seed_bank = { start = 100, count = 4 }
    games_per_opponent = 8
    batch_pairs = 2

    [sampler]
    kind = "random"
    seed = 1

    [search]
    silence_cost = {}
    stealth_weight = { low = 0.01, log = true }

    [pruning]
    enabled = true
    alpha = 0.05

    [validation]
    seeds = { start = 9000, count = 10 }
    games = 4
    top_k = 1
    """)


def _set(line_start: str, new: str) -> str:
    """GOOD with the line starting ``line_start`` replaced (or removed if ``new`` is empty)."""
    lines = GOOD.splitlines()
    hits = [i for i, line in enumerate(lines) if line.startswith(line_start)]
    assert len(hits) == 1, line_start
    lines[hits[0]] = new
    return "\n".join(lines) + "\n"


def test_the_good_file_is_good():
    from tuning.study.spec import parse_spec

    import tomllib

    assert parse_spec(tomllib.loads(GOOD)).n_trials == 3  # every case below breaks exactly one thing


# (study file, words the one line must contain). The words name the key and what is allowed.
MALFORMED = [
    pytest.param(_set("silence_cost", "silense_cost = {}"), "unknown coefficient 'silense_cost'; known:",
                 id="unknown-coefficient"),
    pytest.param(_set("silence_cost", "silence_cost = { low = 1.0, high = 0.5 }"),
                 "low (1) must be below high (0.5)", id="inverted-bounds"),
    pytest.param(_set("silence_cost", "silence_cost = { low = -3.0 }"),
                 "search.silence_cost.low = -3 is outside the coefficient's range; expected", id="out-of-range-bound"),
    pytest.param(_set("stealth_weight", "stealth_weight = { low = 0.0, log = true }"),
                 "a log scale needs low > 0", id="log-scale-from-zero"),
    pytest.param(_set("silence_cost", "silence_cost = { low = 1.0 }"),
                 "search.silence_cost: the range [1, 3] must hold tunable's default 0.45 (trial 0 plays the defaults)",
                 id="range-without-the-default"),
    pytest.param(_set("silence_cost", "silence_cost = 0.5").replace("stealth_weight = { low = 0.01, log = true }", ""),
                 "nothing to tune; give at least one coefficient a range", id="only-fixed-values"),
    pytest.param(GOOD.replace("silence_cost = {}\nstealth_weight = { low = 0.01, log = true }\n", ""),
                 "nothing to tune", id="empty-search-table"),
    pytest.param(_set("games_per_opponent", "games_per_opponent = 0"),
                 "games_per_opponent: input should be greater than or equal to 2 (got 0)", id="zero-games"),
    pytest.param(_set("games_per_opponent", "games_per_opponent = -4"),
                 "games_per_opponent: input should be greater than or equal to 2 (got -4)", id="negative-games"),
    pytest.param(_set("games_per_opponent", "games_per_opponent = 7"), "must be even", id="odd-games"),
    pytest.param(_set("games_per_opponent", "games_per_opponent = 20"), "needs 10 maps but seed_bank has 4",
                 id="more-games-than-maps"),
    pytest.param(_set("games = 4", "games = 0"), "validation.games: input should be greater than or equal to 2",
                 id="zero-validation-games"),
    pytest.param(_set("n_trials", "n_trials = -1"), "n_trials: input should be greater than or equal to 1",
                 id="negative-trials"),
    pytest.param(_set("n_trials", 'n_trials = "many"'), "n_trials: input should be a valid integer (got 'many')",
                 id="trials-wrong-type"),
    pytest.param(_set("batch_pairs", "batch_pairs = 1.5"), "batch_pairs: use a whole number of maps per batch",
                 id="batch-pairs-wrong-type"),
    pytest.param(_set("trials_in_flight", "trials_in_flight = 0"),
                 "trials_in_flight: input should be greater than or equal to 1", id="zero-in-flight"),
    pytest.param(_set("panel", 'panel = ["random", "nobody"]'), "unknown bot 'nobody'", id="unknown-panel-bot"),
    pytest.param(_set("panel", 'panel = "no-such-panel"'), "unknown panel 'no-such-panel'; known panels:",
                 id="unknown-panel"),
    pytest.param(_set("panel", "panel = []"), "list at least one opponent", id="empty-panel"),
    pytest.param(_set("panel", "panel = 3"), "give a panel name or a list of bot names", id="panel-wrong-type"),
    pytest.param(GOOD.replace('name = "bad"', 'name = "bad"\nname = "twice"'), "not valid TOML",
                 id="duplicate-key"),
    pytest.param(GOOD.replace("[sampler]", "[pruning]"), "not valid TOML", id="duplicate-table"),
    pytest.param(_set("alpha", "alpha = 0.9"), "pruning.alpha: input should be less than 0.5",
                 id="alpha-out-of-range"),
    pytest.param(_set("seeds =", "seeds = { start = 102, count = 10 }"),
                 "validation.seeds (102..111) overlap seed_bank (100..103); held-out seeds must be unseen",
                 id="validation-overlaps-bank"),
    pytest.param(_set("seed_bank", "seed_bank = { start = 100, count = 0 }"),
                 "seed_bank.count: input should be greater than or equal to 1", id="empty-seed-bank"),
    pytest.param(_set("kind", 'kind = "annealing"'), "sampler.kind: input should be 'tpe', 'cmaes', 'gp', 'random' or 'spsa'",
                 id="unknown-sampler"),
    pytest.param(_set("batch_pairs", 'batch_pairs = 2\npolicy = "tunable-v1"'),
                 "policy: input should be " + ", ".join(f"'{p}'" for p in STUDY_POLICIES[:-1]) + f" or '{STUDY_POLICIES[-1]}'",
                 id="policy-not-tuned"),
    pytest.param(GOOD + "colour = 1\n", "unknown key 'validation.colour'; allowed here: seeds, games, top_k",
                 id="unknown-key"),
    pytest.param(_set("name", 'name = "two words"'), "name: use 1-64 letters", id="bad-name"),
    pytest.param(_set("name", "").replace("n_trials = 3\n", ""), "missing key", id="missing-keys"),
    pytest.param("this is [not toml\n", "not valid TOML", id="not-toml"),
]

BAD_STORAGE = [
    pytest.param('storage = "mysql://root@localhost/x"\n' + GOOD, "unsupported database 'mysql'; use sqlite or postgresql",
                 id="unsupported-database"),
    pytest.param('storage = "not a url"\n' + GOOD, "bad storage URL 'not a url'; expected e.g.", id="bad-url"),
    pytest.param('storage = "sqlite:///:memory:"\n' + GOOD, "in-memory SQLite database would vanish",
                 id="in-memory-sqlite"),
    pytest.param('storage = "${OCEAN_TEST_UNSET_DB}"\n' + GOOD, "environment variable OCEAN_TEST_UNSET_DB is not set",
                 id="unset-variable"),
]


def _launch(tmp_path, monkeypatch, text, *extra):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OCEAN_STORAGE", raising=False)
    monkeypatch.delenv("OCEAN_TEST_UNSET_DB", raising=False)
    (tmp_path / "bad.toml").write_text(text)
    return CliRunner().invoke(app, ["launch", "bad.toml", *extra])


def _one_line(result, words):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and words in lines[0], lines[0]
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text, words", MALFORMED + BAD_STORAGE)
def test_a_malformed_study_file_is_one_line_exit_2_and_no_database_file(tmp_path, monkeypatch, text, words):
    _one_line(_launch(tmp_path, monkeypatch, text), words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]  # no studies/, no .db anywhere


@pytest.fixture(scope="module")
def empty_pg(pg_admin):
    """One PostgreSQL database for the module, which must stay empty (no table at all)."""
    with fresh_database(pg_admin, "ocean_bad") as url:
        yield url


def _tables(url: str) -> list[str]:
    engine = sa.create_engine(url)
    try:
        return sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


@pytest.mark.parametrize("text, words", MALFORMED)
def test_a_malformed_study_file_writes_nothing_to_postgres(tmp_path, monkeypatch, empty_pg, text, words):
    _one_line(_launch(tmp_path, monkeypatch, text, "--storage", empty_pg), words)
    assert _tables(empty_pg) == []


def test_bad_options_are_one_line_and_write_nothing(tmp_path, monkeypatch, empty_pg):
    # the option the user typed is named, beside the key it sets (issue 49)
    for extra, words in ((["--games", "0"], "--games 0: games_per_opponent: input should be greater than or equal to 2"),
                         (["--games", "-10"], "error: --games -10: games_per_opponent: input should be greater than"),
                         (["--games", "5"], "--games 5: games_per_opponent = 5 must be even"),
                         (["--trials", "0"], "--trials 0: n_trials: input should be greater than or equal to 1")):
        _one_line(_launch(tmp_path, monkeypatch, GOOD, "--storage", empty_pg, *extra), words)
    assert _tables(empty_pg) == []


# --- storages that cannot serve a study: real processes, one line, no traceback -------------------------

def _tune(cwd, *args):
    result = subprocess.run([sys.executable, "-m", "tuning", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 2, (args, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_storages_that_are_not_study_databases_are_one_line_and_left_untouched(tmp_path, empty_pg):
    other = tmp_path / "other.db"  # another program's SQLite database
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE contacts (name TEXT)")
        conn.execute("INSERT INTO contacts VALUES ('ada')")
    before = other.read_bytes()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all " * 200)
    (tmp_path / "good.toml").write_text(GOOD)

    line = _tune(tmp_path, "resume", "bad", "--storage", f"sqlite:///{other}")
    assert "is not a study database" in line and "check --storage" in line
    line = _tune(tmp_path, "status", "bad", "--storage", empty_pg)
    assert "is not a study database (it holds no Optuna studies)" in line
    line = _tune(tmp_path, "launch", "good.toml", "--storage", f"sqlite:///{junk}")
    assert "cannot open the study database" in line and "not a database" in line
    line = _tune(tmp_path, "launch", "good.toml", "--storage", "postgresql+psycopg://lab:pw-9z@127.0.0.1:1/nowhere")
    assert "cannot open the study database postgresql+psycopg://lab:***@127.0.0.1:1/nowhere" in line
    assert "pw-9z" not in line

    assert other.read_bytes() == before and not (tmp_path / "other.db-wal").exists()  # not even switched to WAL
    assert _tables(empty_pg) == []
    assert not (tmp_path / "studies").exists()
