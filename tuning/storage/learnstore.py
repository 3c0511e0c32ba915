"""A ``tune learn`` run in the study database: its definition, every checkpoint of weights with
the self-play games it took, and the checkpoints' scores against the yardstick bots.

Three tables of their own (SQLAlchemy 2 models on a base of their own, created on first use, so
a study database gains them only when a run is stored there):

- ``ocean_learn_runs``: one row per run name: its definition (JSON: options, starting weights,
  seeds), when it was created, the package version;
- ``ocean_learn_checkpoints``: the weights after each round, unique per (run, round), with the
  self-play games played so far, the round's summed squared TD error, player-turns and seconds;
- ``ocean_learn_scores``: a checkpoint's score against one yardstick bot on the held-out maps,
  unique per (run, round, opponent);
- ``ocean_learn_trust``: the trust step after a checkpoint (``tuning.driver.trust``): each rung's
  self-play match (a scale of ``v3_regret`` against the best scale so far) and the trusted
  weights' yardstick scores, unique per (run, round, scale, opponent, maps).

A row is written once: storing a checkpoint or score that is already there (a resumed run that
reached the same round) changes nothing, so every round is idempotent. That is also what lets
every database call of the store go through ``tuning.storage.retry`` (as a study's and a test's
do): an outage is ridden out, and one that outlasts the patience stops the run with one line
naming the command that carries it on, every stored checkpoint kept.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

import sqlalchemy as sa
from sqlalchemy import JSON, BigInteger, Float, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from tuning.errors import StudyNotFound, TuningError
from tuning.storage.database import Storage, open_storage, parse_url
from tuning.storage.kinds import LEARN, refuse_other_kinds
from tuning.storage.provenance import RUN_CODE, check_run_code, package_version
from tuning.storage.retry import Retry

__all__ = ["LearnRun", "LearnCheckpoint", "LearnScore", "LearnTrust", "Checkpoint", "Score", "TrustRow", "LearnStore",
           "ladder_scale", "open_learn", "rung_name"]

_ID = BigInteger().with_variant(Integer, "sqlite")
T = TypeVar("T")


_WRITTEN = "written"  # key of the run's definition: what --out last received (``LearnStore.written``)


class _LearnBase(DeclarativeBase):
    pass


class LearnRun(_LearnBase):
    """One ``tune learn`` run."""

    __tablename__ = "ocean_learn_runs"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    definition: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float)
    package_version: Mapped[str] = mapped_column(String(64))


class LearnCheckpoint(_LearnBase):
    """The weights after one round of self-play."""

    __tablename__ = "ocean_learn_checkpoints"
    __table_args__ = (UniqueConstraint("run", "round", name="uq_ocean_learn_checkpoint"),)

    id: Mapped[int] = mapped_column(_ID, primary_key=True, autoincrement=True)
    run: Mapped[str] = mapped_column(String(64), sa.ForeignKey("ocean_learn_runs.name", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)  # 0: the starting weights
    games: Mapped[int] = mapped_column(BigInteger)  # self-play games played up to this checkpoint
    weights: Mapped[dict] = mapped_column(JSON)  # coefficient name -> value
    td_error: Mapped[float] = mapped_column(Float)  # the round's squared TD errors per player-turn
    player_turns: Mapped[int] = mapped_column(BigInteger)  # the round's
    seconds: Mapped[float] = mapped_column(Float)  # the round's wall time (reported, never used to decide)
    created_at: Mapped[float] = mapped_column(Float)


class LearnScore(_LearnBase):
    """A checkpoint's score against one yardstick bot on the held-out maps (paired games)."""

    __tablename__ = "ocean_learn_scores"
    __table_args__ = (UniqueConstraint("run", "round", "opponent", name="uq_ocean_learn_score"),)

    id: Mapped[int] = mapped_column(_ID, primary_key=True, autoincrement=True)
    run: Mapped[str] = mapped_column(String(64), sa.ForeignKey("ocean_learn_runs.name", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(BigInteger)  # self-play games of the checkpoint
    opponent: Mapped[str] = mapped_column(String(128))
    maps: Mapped[int] = mapped_column(Integer)  # each played twice, sides swapped
    score: Mapped[float] = mapped_column(Float)
    low: Mapped[float] = mapped_column(Float)  # 95% interval over the pairs
    high: Mapped[float] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float)


class LearnTrust(_LearnBase):
    """One match of the trust step after a checkpoint: a rung of the ladder (``opponent`` "x2":
    the scale it was played against, on learning maps) or the trusted weights against a
    yardstick bot (held-out maps)."""

    __tablename__ = "ocean_learn_trust"
    __table_args__ = (UniqueConstraint("run", "round", "scale", "opponent", "maps", name="uq_ocean_learn_trust"),)

    id: Mapped[int] = mapped_column(_ID, primary_key=True, autoincrement=True)
    run: Mapped[str] = mapped_column(String(64), sa.ForeignKey("ocean_learn_runs.name", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)  # the checkpoint's
    games: Mapped[int] = mapped_column(BigInteger)  # the checkpoint's self-play games
    scale: Mapped[float] = mapped_column(Float)  # v3_regret's weight multiplied by this
    opponent: Mapped[str] = mapped_column(String(128))
    maps: Mapped[int] = mapped_column(Integer)  # each played twice, sides swapped
    score: Mapped[float] = mapped_column(Float)
    low: Mapped[float] = mapped_column(Float)
    high: Mapped[float] = mapped_column(Float)
    created_at: Mapped[float] = mapped_column(Float)


@dataclass(frozen=True)
class Checkpoint:
    round: int
    games: int
    weights: dict[str, float]
    td_error: float
    player_turns: int
    seconds: float


@dataclass(frozen=True)
class Score:
    round: int
    games: int
    opponent: str
    maps: int
    score: float
    low: float
    high: float


@dataclass(frozen=True)
class TrustRow:
    round: int
    games: int
    scale: float
    opponent: str  # "x2": a rung, played against that scale; else a yardstick bot's name
    maps: int
    score: float
    low: float
    high: float

    @property
    def rung(self) -> bool:
        """A match of the ladder (not a yardstick's score of the trusted weights)."""
        return self.opponent.startswith("x")

    @property
    def against(self) -> float:
        """The scale a rung was played against."""
        return float(self.opponent[1:])


def rung_name(scale: float) -> str:
    """``TrustRow.opponent`` of a rung played against ``scale``."""
    return f"x{scale:g}"


def ladder_scale(rows) -> float:
    """Where a trust step's ladder stands after ``rows`` (its matches in the order played): 1,
    moved to each rung's scale that won (scored above one half)."""
    best = 1.0
    for row in rows:
        if row.rung and row.score > 0.5:
            best = row.scale
    return best


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class LearnStore:
    """One run's rows: the only place that writes them. Every database call goes through
    ``self.retry`` (``tuning.storage.retry``); ``resume`` is the command its outage message names
    (``tune learn NAME`` unless the caller gives the options carrying on needs)."""

    def __init__(self, storage: Storage, name: str, *, resume: str | None = None) -> None:
        self.storage = storage
        self.name = name
        self.retry = Retry(storage.url, name=name, log=_stderr, resume=resume or f"tune learn {name}")
        self._db(lambda: _LearnBase.metadata.create_all(storage.engine))

    def _db(self, fn: Callable[[], T]) -> T:
        """``fn()`` with the database retried through an outage (each call here is idempotent)."""
        return self.retry.call(fn)

    def _stored(self) -> dict | None:
        def read():
            with self.storage.engine.connect() as conn:
                return conn.execute(sa.select(LearnRun.definition).where(LearnRun.name == self.name)).first()

        row = self._db(read)
        return None if row is None else dict(row[0])

    def definition(self) -> dict | None:
        """The run's settings (its code records apart: ``code``)."""
        stored = self._stored()
        return None if stored is None else {k: v for k, v in stored.items() if k not in (RUN_CODE, _WRITTEN)}

    def create_or_check(self, definition: dict, *, may_differ: tuple[str, ...] = ()) -> tuple[dict, bool]:
        """The run's definition: stored from ``definition`` if the run is new (True), else the
        stored one (False), which ``definition`` must match but for the keys ``may_differ``
        (one-line error naming each difference)."""
        return self._db(lambda: self._create_or_check(definition, may_differ))

    def _create_or_check(self, definition: dict, may_differ: tuple[str, ...]) -> tuple[dict, bool]:
        stored = self.definition()
        if stored is None:
            refuse_other_kinds(self.storage.engine, self.storage.masked, self.name, LEARN)
            try:
                with self.storage.engine.begin() as conn:
                    conn.execute(sa.insert(LearnRun).values(name=self.name, definition=definition,
                                                            created_at=time.time(),
                                                            package_version=package_version()))
                return dict(definition), True
            except sa.exc.IntegrityError:  # another driver created it first: check against its definition
                stored = self.definition()
        differ = [f"{key} is {stored.get(key)!r}, not {definition.get(key)!r}" for key in sorted(definition)
                  if key not in may_differ and stored.get(key) != definition.get(key)]
        if differ:
            raise TuningError(f"learning run {self.name!r} exists with other settings: {'; '.join(differ)}; carry it "
                              f"on with the same options or give the new run another name")
        return stored, False

    def code(self) -> list[dict]:
        """The code versions the run's games were played under, oldest first (``provenance``)."""
        return list((self._stored() or {}).get(RUN_CODE) or [])

    def check_code(self, *, allow_change: bool) -> list[dict]:
        """Refuse to carry the run on under code other than its latest (one line), unless
        ``allow_change``: a feature whose meaning changed under the same name is caught by the
        digest. Records the running code when it is new to the run (from its last round)."""
        records = self.code()
        last = self.last_checkpoint()
        new = check_run_code(records, kind="learning run", name=self.name, allow_change=allow_change,
                             command=f"tune learn {self.name}", since=0 if last is None else last.round)
        if new is None:
            return records
        self._update_definition({RUN_CODE: new})
        return new

    def written(self) -> dict:
        """What ``--out`` last received: ``round``, ``maps`` (a rung's, of the trust step it came
        from; None: the TD weights) and ``out``; empty before any write."""
        return dict((self._stored() or {}).get(_WRITTEN) or {})

    def note_written(self, round_: int, maps: int | None, out: str) -> None:
        self._update_definition({_WRITTEN: {"round": round_, "maps": maps, "out": str(out)}})

    def _update_definition(self, changes: dict) -> None:
        """Set keys of the stored definition (the same value again when a lost commit is repeated)."""
        def update():
            with self.storage.engine.begin() as conn:
                conn.execute(sa.update(LearnRun).where(LearnRun.name == self.name)
                             .values(definition={**self._stored(), **changes}))

        self._db(update)

    def checkpoints(self) -> list[Checkpoint]:
        c = LearnCheckpoint
        stmt = sa.select(c.round, c.games, c.weights, c.td_error, c.player_turns, c.seconds).where(
            c.run == self.name).order_by(c.round)
        return [Checkpoint(int(r), int(g), {k: float(v) for k, v in w.items()}, float(e), int(t), float(s))
                for r, g, w, e, t, s in self._rows(stmt)]

    def last_checkpoint(self) -> Checkpoint | None:
        c = LearnCheckpoint
        stmt = sa.select(sa.func.max(c.round)).where(c.run == self.name)
        last = self._db(lambda: self._scalar(stmt))
        if last is None:
            return None
        return next(cp for cp in self.checkpoints() if cp.round == last)

    def add_checkpoint(self, cp: Checkpoint) -> None:
        """Store ``cp`` (nothing if its round is stored already)."""
        values = dict(run=self.name, round=cp.round, games=cp.games, weights=dict(cp.weights), td_error=cp.td_error,
                      player_turns=cp.player_turns, seconds=cp.seconds, created_at=time.time())
        self._insert_once(LearnCheckpoint, values)

    def scores(self) -> list[Score]:
        s = LearnScore
        stmt = sa.select(s.round, s.games, s.opponent, s.maps, s.score, s.low, s.high).where(
            s.run == self.name).order_by(s.round, s.opponent)
        return [Score(int(r), int(g), o, int(m), float(sc), float(lo), float(hi))
                for r, g, o, m, sc, lo, hi in self._rows(stmt)]

    def add_score(self, score: Score) -> None:
        """Store ``score`` (nothing if that round's score against that opponent is stored already)."""
        self._insert_once(LearnScore, dict(run=self.name, round=score.round, games=score.games,
                                           opponent=score.opponent, maps=score.maps, score=score.score,
                                           low=score.low, high=score.high, created_at=time.time()))

    def trust_rows(self, round_: int | None = None) -> list[TrustRow]:
        """The trust step's matches (after checkpoint ``round_``, or every checkpoint's), in the order played."""
        t = LearnTrust
        stmt = sa.select(t.round, t.games, t.scale, t.opponent, t.maps, t.score, t.low, t.high).where(
            t.run == self.name)
        if round_ is not None:
            stmt = stmt.where(t.round == round_)
        return [TrustRow(int(r), int(g), float(sc), o, int(m), float(s), float(lo), float(hi))
                for r, g, sc, o, m, s, lo, hi in self._rows(stmt.order_by(t.round, t.id))]

    def add_trust_row(self, row: TrustRow) -> None:
        """Store ``row`` (nothing if that match is stored already)."""
        self._insert_once(LearnTrust, dict(run=self.name, round=row.round, games=row.games, scale=row.scale,
                                           opponent=row.opponent, maps=row.maps, score=row.score, low=row.low,
                                           high=row.high, created_at=time.time()))

    def _rows(self, stmt) -> list:
        def read():
            with self.storage.engine.connect() as conn:
                return list(conn.execute(stmt))

        return self._db(read)

    def _scalar(self, stmt):
        with self.storage.engine.connect() as conn:
            return conn.execute(stmt).scalar()

    def _insert_once(self, model, values: dict) -> None:
        def insert():
            try:
                with self.storage.engine.begin() as conn:
                    conn.execute(sa.insert(model).values(**values))
            except sa.exc.IntegrityError:
                pass  # written by an earlier run of the same round (or a commit lost with the connection)

        self._db(insert)


def open_learn(name: str, url: str, *, create: bool, resume: str | None = None) -> LearnStore:
    """The store of learning run ``name`` at ``url``; without ``create``, a missing database or
    run is ``StudyNotFound`` (one line saying how to start one). ``resume``: the command a
    database outage's message names to carry the run on (default ``tune learn NAME``)."""
    parsed = parse_url(url)
    if not create and parsed.get_backend_name() == "sqlite" and not parsed.database:
        raise StudyNotFound(f"no learning run named {name!r}: give --storage")
    if not create and parsed.get_backend_name() == "sqlite" and not Path(parsed.database).exists():
        raise StudyNotFound(f"no learning run named {name!r}: there is no database at {parsed.database}; start one "
                            f"with  tune learn {name} --games N --out FILE  (or give --storage)")
    storage = open_storage(url, must_exist=False)
    store = LearnStore(storage, name, resume=resume)
    if not create and store.definition() is None:
        storage.close()
        raise StudyNotFound(f"no learning run named {name!r} in {storage.masked}; start one with  tune learn {name} "
                            "--games N --out FILE")
    return store
