"""Our own tables, beside Optuna's in the same database (SQLAlchemy 2 declarative models).

- ``ocean_games``: one row per game played for a study, unique per (study, trial, phase,
  opponent, seed, side) so a retried or replayed batch can never store a game twice.
  "a" is the study's bot (the trial), "b" the panel opponent.
- ``ocean_trial_leases``: which driver owns a running trial, renewed by its heartbeat; a trial
  whose lease expired belongs to a dead driver and may be taken over by ``tune resume``.
- ``ocean_validations``: a trial's score on the held-out seeds (Optuna freezes a finished
  trial's attributes, so validation results need a table of their own).
- ``ocean_game_sums``: running totals of ``ocean_games`` per (study, trial, phase, opponent),
  kept by the statement that stores the games, counting only the rows it really inserted; and
  ``ocean_stored_rounds``: one row per such statement (when, how many games). Status, reports
  and resume read these instead of scanning millions of game rows.
- ``ocean_locks``: short study-wide critical sections (creating a study, creating a trial) held
  by one driver at a time, so several drivers never create more trials than the target. A row,
  not a database lock: it survives a database restart and works the same on SQLite.
- ``ocean_bot_tests``: the definition of each ``tune test`` (bots, hypotheses, seeds, batches);
  its games are ``ocean_games`` rows of phase "test" under the test's name (trial 0: the new bot,
  trial 1: the base bot in a gauntlet), and the leases of its batches ``ocean_trial_leases`` rows
  (trial: the batch). A study and a test never share a name in one database.
"""
from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import JSON, BigInteger, Float, Index, Integer, SmallInteger, String, UniqueConstraint
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = ["Base", "GameRecord", "GameSums", "StoredRound", "TrialLease", "StudyLock", "ValidationRecord",
           "BotTestRecord", "STATS", "PHASES", "SUMMED_STATS", "create_tables"]

# Per-player statistics of a game, as ``ocean.match.PairResults.rows`` names them.
# The duel statistics (first_damage, direct_hits, surfaces_under_fire) came later: a table from
# before gets them as nullable columns (``create_tables``), NULL in the rows it already held.
STATS = ("surfaces", "torpedoes", "torpedo_hits", "mines", "triggers", "silences", "sonars",
         "damage_dealt", "self_damage", "mine_damage_taken", "torpedo_damage_taken", "moves",
         "first_damage", "direct_hits", "surfaces_under_fire")
PHASES = ("train", "validate", "test")  # a trial's evaluation, held-out seeds, a ``tune test``

# SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL gets a 64-bit key.
_ID = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    pass


# a_<stat> and b_<stat> columns for every statistic, as a mixin so the list lives once (STATS).
_StatColumns = type("_StatColumns", (), {
    "__annotations__": {f"{p}_{s}": Mapped[int] for p in "ab" for s in STATS},
    **{f"{p}_{s}": mapped_column(Integer, nullable=False) for p in "ab" for s in STATS},
})


class GameRecord(_StatColumns, Base):
    """One game of a study."""

    __tablename__ = "ocean_games"
    __table_args__ = (
        UniqueConstraint("study", "trial", "phase", "opponent", "seed", "side", name="uq_ocean_games_game"),
        Index("ix_ocean_games_study_time", "study", "created_at"),
    )

    id: Mapped[int] = mapped_column(_ID, primary_key=True, autoincrement=True)
    study: Mapped[str] = mapped_column(String(64))
    trial: Mapped[int] = mapped_column(Integer)  # Optuna trial number
    phase: Mapped[str] = mapped_column(String(16))  # one of PHASES
    opponent: Mapped[str] = mapped_column(String(128))  # panel bot name
    seed: Mapped[int] = mapped_column(BigInteger)  # map seed (= game seed)
    side: Mapped[int] = mapped_column(SmallInteger)  # the study bot's player index, 0 or 1
    winner: Mapped[str] = mapped_column(String(4))  # 'a' (study bot), 'b' (opponent) or 'draw'
    score: Mapped[float] = mapped_column(Float)  # for the study bot: 1 win, 0.5 draw, 0 loss
    a_lives: Mapped[int] = mapped_column(Integer)  # lives left at the end, -1 if disqualified
    b_lives: Mapped[int] = mapped_column(Integer)
    turns: Mapped[int] = mapped_column(Integer)  # referee player-turns
    end_reason: Mapped[str] = mapped_column(String(16))
    duration_ms: Mapped[float] = mapped_column(Float)  # the batch's compute time per game
    created_at: Mapped[float] = mapped_column(Float)  # Unix time the batch was stored
    # Why a program was disqualified (the referee's reason, with our cause), None if it was not.
    a_error: Mapped[str | None] = mapped_column(String(400), nullable=True)
    b_error: Mapped[str | None] = mapped_column(String(400), nullable=True)
    # How many times the game was played again because the opponent lost it to its clock or a
    # crash (ocean.match.play_pairs), and 1 if it still did after the last replay: the game is
    # then set aside, its pair counts for nothing. None in rows stored before replays were kept.
    replays: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    set_aside: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)


# Per-game columns whose sums the report draws (the study bot's side, and the game's length).
SUMMED_STATS = ("turns", "a_surfaces", "a_mine_damage_taken", "a_torpedoes", "a_torpedo_hits")


class GameSums(Base):
    """Totals of the games stored for one (study, trial, phase, opponent)."""

    __tablename__ = "ocean_game_sums"

    study: Mapped[str] = mapped_column(String(64), primary_key=True)
    trial: Mapped[int] = mapped_column(Integer, primary_key=True)
    phase: Mapped[str] = mapped_column(String(16), primary_key=True)
    opponent: Mapped[str] = mapped_column(String(128), primary_key=True)
    games: Mapped[int] = mapped_column(BigInteger)
    score: Mapped[float] = mapped_column(Float)  # sum of the study bot's scores
    a_errors: Mapped[int] = mapped_column(BigInteger)  # games the study's bot was disqualified in
    b_errors: Mapped[int] = mapped_column(BigInteger)  # games the opponent was disqualified in
    first_a_error: Mapped[str | None] = mapped_column(String(400), nullable=True)  # first stored reason
    first_b_error: Mapped[str | None] = mapped_column(String(400), nullable=True)
    turns: Mapped[int] = mapped_column(BigInteger)
    a_surfaces: Mapped[int] = mapped_column(BigInteger)
    a_mine_damage_taken: Mapped[int] = mapped_column(BigInteger)
    a_torpedoes: Mapped[int] = mapped_column(BigInteger)
    a_torpedo_hits: Mapped[int] = mapped_column(BigInteger)
    # Games played again for the opponent's clock or crash, and games set aside (None: none
    # counted yet, in a table from before replays were kept).
    replayed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    set_aside: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class StoredRound(Base):
    """One statement that stored games: when (``GameRecord.created_at``) and how many."""

    __tablename__ = "ocean_stored_rounds"
    __table_args__ = (Index("ix_ocean_stored_rounds_study_time", "study", "created_at"),)

    id: Mapped[int] = mapped_column(_ID, primary_key=True, autoincrement=True)
    study: Mapped[str] = mapped_column(String(64))
    phase: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)


class TrialLease(Base):
    """The driver that owns a running trial, until ``expires_at`` unless renewed."""

    __tablename__ = "ocean_trial_leases"

    study: Mapped[str] = mapped_column(String(64), primary_key=True)
    trial: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner: Mapped[str] = mapped_column(String(128))  # host:pid:random of the driver
    heartbeat_at: Mapped[float] = mapped_column(Float)  # Unix time
    expires_at: Mapped[float] = mapped_column(Float)


class StudyLock(Base):
    """A named critical section of a study, held by ``owner`` until released or ``expires_at``."""

    __tablename__ = "ocean_locks"

    study: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(32), primary_key=True)  # e.g. "create", "ask"
    owner: Mapped[str] = mapped_column(String(128))  # host:pid:random of the driver
    expires_at: Mapped[float] = mapped_column(Float)  # Unix time; an expired lock is free


class ValidationRecord(Base):
    """A trial re-played on held-out seeds by ``tune validate``."""

    __tablename__ = "ocean_validations"

    study: Mapped[str] = mapped_column(String(64), primary_key=True)
    trial: Mapped[int] = mapped_column(Integer, primary_key=True)
    # The time control validated at, "turn/first x scale" (tuning.results.validation.time_key), so
    # a validation at the contest's time control keeps the one at the study's; "" in rows stored
    # before time controls were a setting (the study's own).
    time_control: Mapped[str] = mapped_column(String(32), primary_key=True, default="")
    games: Mapped[int] = mapped_column(Integer)  # per opponent
    score: Mapped[float] = mapped_column(Float)  # mean score over the panel
    low: Mapped[float] = mapped_column(Float)  # 95% interval
    high: Mapped[float] = mapped_column(Float)
    per_opponent: Mapped[dict] = mapped_column(JSON)  # name -> {mean, low, high, games}
    diff: Mapped[float | None] = mapped_column(Float)  # paired difference to the defaults (trial 0)
    diff_low: Mapped[float | None] = mapped_column(Float)
    diff_high: Mapped[float | None] = mapped_column(Float)
    seeds: Mapped[str] = mapped_column(String(64))  # held-out seed range, "start..end"
    # Mean over the held-out opponents ([validation] panel) when the study has some, else None.
    heldout_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    heldout_low: Mapped[float | None] = mapped_column(Float, nullable=True)
    heldout_high: Mapped[float | None] = mapped_column(Float, nullable=True)
    params: Mapped[dict] = mapped_column(JSON)  # the full coefficient set played
    updated_at: Mapped[float] = mapped_column(Float)
    # The code that played these games (tuning.storage.provenance.code_digest); None before it was kept.
    code_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # Since the three-part verdict (tuning.results.verdict): the score on the half of the held-out
    # maps the best is chosen on (``score`` is on the other half, where it is judged), whether
    # this trial was the one chosen, and, for the chosen one, the verdict and its parts. None in
    # rows from before.
    selection_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    chosen: Mapped[int | None] = mapped_column(SmallInteger, nullable=True)
    verdict: Mapped[dict | None] = mapped_column(JSON, nullable=True)


class ValidationRun(Base):
    """Every validation result as it was saved, never replaced: ``ocean_validations`` keeps a
    trial's latest, this keeps the history (earlier runs, other settings, other code)."""

    __tablename__ = "ocean_validation_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    study: Mapped[str] = mapped_column(String(64), index=True)
    trial: Mapped[int] = mapped_column(Integer)
    saved_at: Mapped[float] = mapped_column(Float)  # Unix time
    record: Mapped[dict] = mapped_column(JSON)  # the ocean_validations row's fields, as saved


class BotTestRecord(Base):
    """A ``tune test``: its settings as given when it was created (``tuning.study.testspec``)."""

    __tablename__ = "ocean_bot_tests"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    definition: Mapped[dict] = mapped_column(JSON)  # bots, panel, hypotheses, seeds, batches, time control
    created_at: Mapped[float] = mapped_column(Float)  # Unix time
    package_version: Mapped[str] = mapped_column(String(64))


def create_tables(engine: Engine) -> None:
    """Create our tables if missing (Optuna creates its own), and add the nullable columns a
    newer version introduced to tables an older one created (rows already stored stay). A
    database from before the summary tables gets them created and filled from its game rows
    in one transaction (a driver killed meanwhile leaves no half-filled summary behind)."""
    inspector = sa.inspect(engine)
    had = set(inspector.get_table_names())
    if ValidationRecord.__tablename__ in had and "time_control" not in {
            c["name"] for c in inspector.get_columns(ValidationRecord.__tablename__)}:
        _key_validations_by_time(engine)
        inspector = sa.inspect(engine)
    for table in Base.metadata.sorted_tables:
        if table.name not in had:
            continue
        have = {c["name"] for c in inspector.get_columns(table.name)}
        missing = [c for c in table.columns if c.name not in have]
        if not missing:
            continue
        with engine.begin() as conn:
            for column in missing:
                kind = column.type.compile(engine.dialect)
                conn.execute(sa.text(f'ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}'))
    if GameRecord.__tablename__ in had and GameSums.__tablename__ not in had:
        with engine.begin() as conn:
            for model in (GameSums, StoredRound):
                model.__table__.create(conn, checkfirst=True)
            _fill_summaries(conn)
    Base.metadata.create_all(engine)


def _key_validations_by_time(engine: Engine) -> None:
    """Rebuild ``ocean_validations`` with ``time_control`` in its primary key (a column added by
    ALTER could not join the key): the new table is built under another name, filled with the
    stored rows ("" = the study's time control), and takes the old one's place, in one
    transaction."""
    name = ValidationRecord.__tablename__
    new = ValidationRecord.__table__.to_metadata(sa.MetaData(), name=f"{name}_by_time")
    columns = [c.name for c in ValidationRecord.__table__.columns if c.name != "time_control"]
    listed = ", ".join(columns)
    with engine.begin() as conn:
        new.create(conn)
        conn.execute(sa.text(f"INSERT INTO {new.name} ({listed}, time_control) SELECT {listed}, '' FROM {name}"))
        conn.execute(sa.text(f"DROP TABLE {name}"))
        conn.execute(sa.text(f"ALTER TABLE {new.name} RENAME TO {name}"))


def _fill_summaries(conn: sa.Connection) -> None:
    """The summary tables of the games already stored (one pass over them)."""
    g = GameRecord
    key = (g.study, g.trial, g.phase, g.opponent)
    sums = sa.select(*key, sa.func.count(), sa.func.sum(g.score), sa.func.count(g.a_error),
                     sa.func.count(g.b_error), *(sa.func.sum(getattr(g, c)) for c in SUMMED_STATS)).group_by(*key)
    names = ("study", "trial", "phase", "opponent", "games", "score", "a_errors", "b_errors", *SUMMED_STATS)
    conn.execute(sa.insert(GameSums).from_select(names, sums))
    for column, target in ((g.a_error, GameSums.first_a_error), (g.b_error, GameSums.first_b_error)):
        firsts = sa.select(*key, sa.func.min(g.id)).where(column.is_not(None)).group_by(*key)
        for study, trial, phase, opponent, row_id in conn.execute(firsts).all():
            text = conn.execute(sa.select(column).where(g.id == row_id)).scalar_one()
            conn.execute(sa.update(GameSums).where(
                GameSums.study == study, GameSums.trial == trial, GameSums.phase == phase,
                GameSums.opponent == opponent).values({target.key: text}))
    rounds = sa.select(g.study, g.phase, g.created_at, sa.func.count()).group_by(g.study, g.phase, g.created_at)
    conn.execute(sa.insert(StoredRound).from_select(("study", "phase", "created_at", "games"), rounds))
