"""A ``tune test`` in the study database: its definition, the pairs its stored games make, and the
handle the driver, ``tune status`` and ``tune report`` open it by.

The games are ``ocean_games`` rows (``tuning.storage.gamestore`` writes them, workers included, with the
unique key that makes a retried or replayed batch store nothing twice), under the test's name,
phase "test", trial 0 for the new bot's games and 1 for the base bot's (a gauntlet); the leases
of its batches are ``ocean_trial_leases`` rows whose trial is the batch. Creation runs under the
name's create lock (the one ``tune launch`` takes), so a study and a test never share a name and
two drivers creating one test at once agree on its definition.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from tuning.errors import StudyNotFound, TuningError
from tuning.storage.database import Storage, open_storage, parse_url
from tuning.storage.gamestore import GameStore
from tuning.storage.kinds import TEST, refuse_other_kinds
from tuning.storage.locks import CREATE_LOCK, driver_id, hold
from tuning.storage.provenance import RUN_CODE, check_run_code, package_version
from tuning.storage.records import BotTestRecord, GameRecord
from tuning.study.testspec import TEST_PHASE, TestOptions, TestSpec, build_spec, mismatches

__all__ = ["PairRow", "BotTestStore", "TestHandle", "open_test", "is_test", "refuse_test_name"]


@dataclass(frozen=True)
class PairRow:
    """Both games of one map of one match, summed: the score (0 to 2), draws, and how many of the
    two games the bot (``a``) and its opponent (``b``) were disqualified in."""

    score: float
    draws: int
    a_errors: int
    b_errors: int


def _test_row(engine: sa.Engine, name: str) -> sa.Row | None:
    with engine.connect() as conn:
        row = conn.execute(sa.select(BotTestRecord.definition).where(BotTestRecord.name == name)).first()
    return None if row is None else row


def is_test(engine: sa.Engine, name: str) -> bool:
    """Whether the database holds a test named ``name``."""
    return _test_row(engine, name) is not None


def refuse_test_name(storage: Storage, name: str) -> None:
    """A study may not take a test's name (called by study creation, under the create lock)."""
    if is_test(storage.engine, name):
        raise TuningError(f"{name!r} is a bot test in {storage.masked} (tune test {name}); give the study another "
                          "name: a study and a test never share one")


def _study_exists(engine: sa.Engine, name: str) -> bool:
    with engine.connect() as conn:
        return conn.execute(sa.text("SELECT 1 FROM studies WHERE study_name = :name"), {"name": name}).first() \
            is not None


class BotTestStore:
    """A test's definition and game reads; writes of games and leases go through ``games``."""

    def __init__(self, storage: Storage, name: str) -> None:
        self.storage = storage
        self.name = name
        self.games = GameStore(storage.engine, name)

    def load(self) -> TestSpec | None:
        row = _test_row(self.storage.engine, self.name)
        return None if row is None else TestSpec.from_json(self.name, row.definition)

    def create_or_check(self, options: TestOptions) -> tuple[TestSpec, bool]:
        """The test's definition: created from ``options`` if the test is new (True), else the
        stored one (False), which the options given must not contradict (one-line error naming
        each difference)."""

        with hold(self.games, CREATE_LOCK, driver_id()):
            stored = self.load()
            if stored is not None:
                differ = mismatches(stored, options)
                if differ:
                    raise TuningError(f"test {self.name!r} exists with other settings: {'; '.join(differ)}; carry it "
                                      f"on with  tune test {self.name}  or give the new test another name")
                return stored, False
            if _study_exists(self.storage.engine, self.name):
                raise TuningError(f"{self.name!r} is a study in {self.storage.masked}; give the test another name: "
                                  "a study and a test never share one")
            refuse_other_kinds(self.storage.engine, self.storage.masked, self.name, TEST)  # nor a learning run
            spec = build_spec(self.name, options)
            with self.storage.engine.begin() as conn:
                conn.execute(sa.insert(BotTestRecord).values(name=self.name, definition=spec.to_json(),
                                                             created_at=time.time(), package_version=package_version()))
            return spec, True

    def code(self) -> list[dict]:
        """The code versions the test's games were played under, oldest first (``provenance``)."""
        row = _test_row(self.storage.engine, self.name)
        return [] if row is None else list(row.definition.get(RUN_CODE) or [])

    def check_code(self, *, allow_change: bool) -> list[dict]:
        """Refuse to carry the test on under code other than its latest (one line), unless
        ``allow_change``; record the running code when it is new to the test."""
        records = self.code()
        since = self.games.count_games(phase=TEST_PHASE)
        new = check_run_code(records, kind="test", name=self.name, allow_change=allow_change,
                             command=f"tune test {self.name}", since=since)
        if new is None:
            return records
        with self.storage.engine.begin() as conn:
            definition = conn.execute(sa.select(BotTestRecord.definition)
                                      .where(BotTestRecord.name == self.name)).scalar_one()
            conn.execute(sa.update(BotTestRecord).where(BotTestRecord.name == self.name)
                         .values(definition={**definition, RUN_CODE: new}))
        return new

    def pairs(self, since_seed: int) -> dict[tuple[int, str, int], PairRow]:
        """(trial, opponent, seed) -> the pair, for every map from ``since_seed`` on whose two
        games are both stored."""
        g = GameRecord
        stmt = (sa.select(g.trial, g.opponent, g.seed, sa.func.sum(g.score),
                          sa.func.sum(sa.case((g.winner == "draw", 1), else_=0)), sa.func.count(g.a_error),
                          sa.func.count(g.b_error))
                .where(g.study == self.name, g.phase == TEST_PHASE, g.seed >= since_seed)
                .group_by(g.trial, g.opponent, g.seed)
                .having(sa.func.count() == 2))
        with self.storage.engine.connect() as conn:
            return {(int(t), o, int(s)): PairRow(float(score), int(draws), int(a), int(b))
                    for t, o, s, score, draws, a, b in conn.execute(stmt)}

    def stored_games(self, first_seed: int, last_seed: int) -> set[tuple[int, str, int, int]]:
        """(trial, opponent, seed, side) of the games stored on maps ``first_seed..last_seed``."""
        g = GameRecord
        stmt = sa.select(g.trial, g.opponent, g.seed, g.side).where(
            g.study == self.name, g.phase == TEST_PHASE, g.seed >= first_seed, g.seed <= last_seed)
        with self.storage.engine.connect() as conn:
            return {(int(t), o, int(s), int(side)) for t, o, s, side in conn.execute(stmt)}

    def failure_reasons(self, trial: int, side: str, before_seed: int) -> dict[str, int]:
        """reason -> games, of the disqualifications of the bot (``side`` "a") or its opponent
        ("b") in ``trial``'s games on the maps below ``before_seed``."""
        g = GameRecord
        column = g.a_error if side == "a" else g.b_error
        stmt = (sa.select(column, sa.func.count())
                .where(g.study == self.name, g.phase == TEST_PHASE, g.trial == trial, g.seed < before_seed,
                       column.is_not(None))
                .group_by(column))
        with self.storage.engine.connect() as conn:
            return {str(reason): int(n) for reason, n in conn.execute(stmt)}

    def first_error(self, trial: int, side: str) -> str | None:
        """The first stored disqualification of the bot (``side`` "a") or its opponent ("b") in
        ``trial``'s games, as "seed S against OPPONENT: reason"."""
        g = GameRecord
        column = g.a_error if side == "a" else g.b_error
        stmt = (sa.select(g.seed, g.opponent, column)
                .where(g.study == self.name, g.phase == TEST_PHASE, g.trial == trial, column.is_not(None))
                .order_by(g.id).limit(1))
        with self.storage.engine.connect() as conn:
            row = conn.execute(stmt).first()
        return None if row is None else f"seed {row[0]} against {row[1]}: {row[2]}"


@dataclass
class TestHandle:
    """An open test: its definition, database and store."""

    __test__ = False

    spec: TestSpec
    storage: Storage
    store: BotTestStore
    created: bool = False  # by this opening

    @property
    def name(self) -> str:
        return self.spec.name

    def batch_store(self) -> tuple[str, str] | None:
        """(URL, test) for a pool whose workers store their own games (PostgreSQL), else None."""
        from tuning.storage.batchstore import worker_stores

        return (self.storage.url, self.name) if worker_stores(self.storage.url) else None

    def close(self) -> None:
        self.storage.close()


def open_test(name: str, url: str, options: TestOptions | None = None) -> TestHandle:
    """Open the test ``name`` at ``url``. With ``options`` naming its bots a missing test is
    created (a missing SQLite file with it, once the options are known to be good); other options
    given must match a stored test."""
    options = options or TestOptions()
    bots_given = options.new is not None or options.base is not None
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database).exists():
        if not bots_given:
            raise StudyNotFound(f"no test named {name!r}: there is no database at {parsed.database}; create the "
                                f"test with  tune test {name} --new BOT --base BOT  (or give --storage)")
        build_spec(name, options)  # every mistake is found before a file is written
    storage = open_storage(url, must_exist=not bots_given)
    try:
        store = BotTestStore(storage, name)
        stored = store.load()
        if stored is None and not bots_given:
            raise StudyNotFound(f"no test named {name!r} in {storage.masked}; create it with  tune test {name} "
                                "--new BOT --base BOT")
        # Only a creation, or options to check, take the name's lock: reading a test writes nothing.
        spec, created = (stored, False) if stored is not None and not options.given() \
            else store.create_or_check(options)
    except Exception:
        storage.close()
        raise
    return TestHandle(spec, storage, store, created)
