"""Reads and writes of our tables for one study; the only place that commits them.

Writes are idempotent: a game row that exists is left alone (``ON CONFLICT DO NOTHING`` on its
unique key), so a retried batch, a resumed trial or a second driver never duplicates a game,
and any call may be repeated after a lost connection (``tuning.storage.retry``).
"""
from __future__ import annotations

import json
import math
import time
from contextlib import contextmanager
from typing import Iterable, Iterator, Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from tuning.storage.records import (
    STATS, SUMMED_STATS, GameRecord, GameSums, StoredRound, StudyLock, TrialLease, ValidationRecord, ValidationRun,
)
from tuning.storage.database import SQLITE_BUSY_SECONDS, storage_error
from tuning.storage.provenance import code_digest

__all__ = ["GameStore"]

_SCORE = {"a": 1.0, "b": 0.0, "draw": 0.5}


_GAME_KEY = ("study", "trial", "phase", "opponent", "seed", "side")  # uq_ocean_games_game
_STAT_COLUMNS = tuple(f"{p}_{stat}" for p in "ab" for stat in STATS)
_BULK_COLUMNS = (*_GAME_KEY, "winner", "score", "a_lives", "b_lives", "turns", "end_reason", "duration_ms",
                 "created_at", "a_error", "b_error", "replays", "set_aside", *_STAT_COLUMNS)


_SUMS_KEY = ("study", "trial", "phase", "opponent")  # ocean_game_sums' primary key
# What the insert returns of each row it really stored, for the summary tables.
_RETURNED = ("id", "trial", "phase", "opponent", "score", "a_error", "b_error", "created_at", "replays", "set_aside",
             *SUMMED_STATS)


def _json_ready(fields: dict) -> dict:
    """A validation's fields as JSON keeps them (numbers, strings, dicts; NaN as None)."""

    def clean(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {str(k): clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v

    return json.loads(json.dumps(clean(fields), default=float))


def _clip(text: str | None) -> str | None:
    return None if text is None else text[:400]


@contextmanager
def _lock_wait(session: Session, seconds: float | None) -> Iterator[None]:
    """Wait at most ``seconds`` (None: the database's usual patience) for another writer's lock
    in the body, which runs in ``session``'s transaction."""
    if seconds is None:
        yield
        return
    ms = max(1, int(seconds * 1000))
    if session.get_bind().dialect.name == "postgresql":
        session.execute(sa.text(f"SET LOCAL lock_timeout = {ms}"))  # ends with the transaction
        yield
        return
    # SQLite's busy timeout belongs to the connection, which goes back to the pool: put it back.
    raw = session.connection().connection.dbapi_connection
    raw.execute(f"PRAGMA busy_timeout = {ms}")
    try:
        yield
    finally:
        raw.execute(f"PRAGMA busy_timeout = {int(SQLITE_BUSY_SECONDS * 1000)}")


class GameStore:
    """Games, leases and validations of the study ``study`` in ``engine``'s database."""

    def __init__(self, engine: Engine, study: str) -> None:
        self.engine = engine
        self.study = study
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
        self._bulk: sa.TextClause | None = None  # PostgreSQL's bulk insert, built once

    @contextmanager
    def _session(self) -> Iterator[Session]:
        session = self._sessions()
        try:
            yield session
            session.commit()
        except sa.exc.SQLAlchemyError as exc:
            session.rollback()
            raise storage_error(exc, self.engine.url.render_as_string(hide_password=False),
                                "database error on") from exc
        finally:
            session.close()

    # --- games ------------------------------------------------------------------------------

    def add_games(self, *, trial: int, phase: str, opponent: str, rows: Sequence[dict],
                  seconds: float) -> None:
        """Store a finished batch (``PairResults.rows()`` dicts); games already stored stay as
        they are."""
        self.add_batches([(trial, phase, opponent, rows, seconds)])

    def add_batches(self, batches: Sequence[tuple[int, str, str, Sequence[dict], float]]) -> int:
        """Store finished batches, each (trial, phase, opponent, rows, seconds), in one
        transaction; games already stored stay as they are. Returns the rows given.

        The games go in with one statement (PostgreSQL: ``INSERT ... SELECT FROM unnest(column
        arrays) ON CONFLICT DO NOTHING``, a fixed statement whatever the number of rows, one
        round trip; SQLite: an ``executemany``) that returns the rows it really inserted; the
        same transaction adds those, and only those, to the summary tables (a retried batch
        adds nothing twice)."""
        columns = self._columns(batches)
        n = len(columns["seed"])
        if not n:
            return 0
        with self._session() as session:
            if self.engine.dialect.name == "postgresql":
                inserted = session.execute(self._bulk_statement(), columns).all()
            else:
                stmt = (self._insert(GameRecord).on_conflict_do_nothing(index_elements=list(_GAME_KEY))
                        .returning(*(GameRecord.__table__.c[c] for c in _RETURNED)))
                inserted = session.execute(stmt, [{k: v[i] for k, v in columns.items()} for i in range(n)]).all()
            self._add_to_sums(session, inserted)
        return n

    def _add_to_sums(self, session: Session, inserted: Sequence[sa.Row]) -> None:
        """Add the games just inserted (rows of ``_RETURNED``) to ``ocean_game_sums`` and log the
        round in ``ocean_stored_rounds``, keys in order (concurrent writers lock them in the same
        order, so they never deadlock)."""
        if not inserted:
            return
        sums: dict[tuple, dict] = {}
        rounds: dict[str, list] = {}
        for row in sorted(inserted, key=lambda r: r.id):
            key = (row.trial, row.phase, row.opponent)
            total = sums.get(key)
            if total is None:
                total = sums[key] = {"study": self.study, "trial": row.trial, "phase": row.phase,
                                     "opponent": row.opponent, "games": 0, "score": 0.0, "a_errors": 0, "b_errors": 0,
                                     "first_a_error": None, "first_b_error": None, "replayed": 0, "set_aside": 0,
                                     **dict.fromkeys(SUMMED_STATS, 0)}
            total["games"] += 1
            total["score"] += row.score
            total["replayed"] += 1 if row.replays else 0
            total["set_aside"] += 1 if row.set_aside else 0
            for side in "ab":
                error = getattr(row, f"{side}_error")
                if error is not None:
                    total[f"{side}_errors"] += 1
                    if total[f"first_{side}_error"] is None:
                        total[f"first_{side}_error"] = error
            for stat in SUMMED_STATS:
                total[stat] += getattr(row, stat)
            last = rounds.setdefault(row.phase, [0.0, 0])
            last[0] = max(last[0], row.created_at)
            last[1] += 1
        values = [sums[key] for key in sorted(sums)]
        insert = self._insert(GameSums).values(values)
        added = {c: getattr(GameSums, c) + getattr(insert.excluded, c)
                 for c in ("games", "score", "a_errors", "b_errors", *SUMMED_STATS)}
        # counted only since replays were kept: a row from before holds NULL
        added.update({c: sa.func.coalesce(getattr(GameSums, c), 0) + getattr(insert.excluded, c)
                      for c in ("replayed", "set_aside")})
        kept = {c: sa.func.coalesce(getattr(GameSums, c), getattr(insert.excluded, c))
                for c in ("first_a_error", "first_b_error")}
        session.execute(insert.on_conflict_do_update(index_elements=list(_SUMS_KEY), set_={**added, **kept}))
        session.execute(sa.insert(StoredRound), [{"study": self.study, "phase": phase, "created_at": at_, "games": k}
                                                 for phase, (at_, k) in sorted(rounds.items())])

    def _columns(self, batches) -> dict[str, list]:
        """The rows of ``batches`` as one list per column of ``ocean_games``."""
        now = time.time()
        cols: dict[str, list] = {name: [] for name in _BULK_COLUMNS}
        for trial, phase, opponent, rows, seconds in batches:
            k = len(rows)
            if not k:
                continue
            for name, value in (("study", self.study), ("trial", trial), ("phase", phase),
                                ("opponent", opponent), ("duration_ms", 1000.0 * seconds / k), ("created_at", now)):
                cols[name].extend([value] * k)
            cols["seed"].extend(r["seed"] for r in rows)
            cols["side"].extend(r["a_side"] for r in rows)
            cols["winner"].extend(r["winner"] for r in rows)
            cols["score"].extend(_SCORE[r["winner"]] for r in rows)
            cols["a_lives"].extend(r["a_lives"] for r in rows)
            cols["b_lives"].extend(r["b_lives"] for r in rows)
            cols["turns"].extend(r["turns"] for r in rows)
            cols["end_reason"].extend(r["end"] for r in rows)
            cols["a_error"].extend(_clip(r.get("a_error")) for r in rows)
            cols["b_error"].extend(_clip(r.get("b_error")) for r in rows)
            cols["replays"].extend(int(r.get("replays") or 0) for r in rows)
            cols["set_aside"].extend(int(bool(r.get("set_aside"))) for r in rows)
            for stat in _STAT_COLUMNS:
                cols[stat].extend(r[stat] for r in rows)
        return cols

    def _bulk_statement(self) -> sa.TextClause:
        if self._bulk is None:
            dialect = self.engine.dialect
            table = GameRecord.__table__
            arrays = ", ".join(f"CAST(:{name} AS {table.c[name].type.compile(dialect)}[])" for name in _BULK_COLUMNS)
            self._bulk = sa.text(
                f"INSERT INTO {table.name} ({', '.join(_BULK_COLUMNS)}) SELECT * FROM unnest({arrays}) "
                f"ON CONFLICT ({', '.join(_GAME_KEY)}) DO NOTHING RETURNING {', '.join(_RETURNED)}")
        return self._bulk

    def pair_scores(self, trial: int, phase: str) -> dict[tuple[str, int], float]:
        """(opponent, seed) -> pair score, for the pairs whose two games are both stored and
        count (no game set aside for the opponent's clock or crash: ``set_aside_pairs``)."""
        g = GameRecord
        stmt = (sa.select(g.opponent, g.seed, sa.func.sum(g.score))
                .where(g.study == self.study, g.trial == trial, g.phase == phase)
                .group_by(g.opponent, g.seed)
                .having(sa.func.count() == 2, sa.func.coalesce(sa.func.sum(g.set_aside), 0) == 0))
        with self._session() as session:
            return {(opp, seed): total / 2.0 for opp, seed, total in session.execute(stmt)}

    def set_aside_pairs(self, trial: int, phase: str) -> set[tuple[str, int]]:
        """(opponent, seed) of the pairs played in full whose opponent failed a game on its clock
        or by a crash however often it was replayed: done (never played again), not counted."""
        g = GameRecord
        stmt = (sa.select(g.opponent, g.seed)
                .where(g.study == self.study, g.trial == trial, g.phase == phase)
                .group_by(g.opponent, g.seed)
                .having(sa.func.count() == 2, sa.func.coalesce(sa.func.sum(g.set_aside), 0) > 0))
        with self._session() as session:
            return {(opp, int(seed)) for opp, seed in session.execute(stmt)}

    def done_pairs(self, trial: int, phase: str) -> set[tuple[str, int]]:
        """Every (opponent, seed) whose two games are stored, counted or set aside."""
        return set(self.pair_scores(trial, phase)) | self.set_aside_pairs(trial, phase)

    def games(self, *, trial: int | None = None, phase: str | None = None) -> list[GameRecord]:
        """Stored game rows (for reports and tests), oldest first."""
        stmt = sa.select(GameRecord).where(GameRecord.study == self.study).order_by(GameRecord.id)
        if trial is not None:
            stmt = stmt.where(GameRecord.trial == trial)
        if phase is not None:
            stmt = stmt.where(GameRecord.phase == phase)
        with self._session() as session:
            return list(session.scalars(stmt))

    def count_games(self, *, phase: str | None = None) -> int:
        """Games stored for the study (in ``phase``), from the summary table."""
        stmt = sa.select(sa.func.sum(GameSums.games)).where(GameSums.study == self.study)
        if phase is not None:
            stmt = stmt.where(GameSums.phase == phase)
        with self._session() as session:
            return int(session.scalar(stmt) or 0)

    def games_by_trial(self, phase: str) -> dict[int, int]:
        """Trial number -> games stored in ``phase``."""
        s = GameSums
        stmt = sa.select(s.trial, sa.func.sum(s.games)).where(s.study == self.study, s.phase == phase).group_by(s.trial)
        with self._session() as session:
            return {int(t): int(n) for t, n in session.execute(stmt)}

    def trial_sums(self, phase: str) -> dict[int, dict[str, float]]:
        """Trial number -> games and the sums of turns and of the study bot's surfaces, mine
        damage taken, torpedoes and torpedo hits over its games in ``phase`` (one query over
        the summary table)."""
        s = GameSums
        stmt = (sa.select(s.trial, sa.func.sum(s.games), *(sa.func.sum(getattr(s, c)) for c in SUMMED_STATS))
                .where(s.study == self.study, s.phase == phase).group_by(s.trial))
        with self._session() as session:
            return {int(row[0]): {"games": int(row[1]), **{c: float(v or 0) for c, v in zip(SUMMED_STATS, row[2:])}}
                    for row in session.execute(stmt)}

    def duel_sums(self, trials: Sequence[int], phase: str) -> dict[tuple[int, str], dict[str, dict[str, int]]]:
        """(trial, opponent) -> {"a": sums, "b": sums}: each side's duel sums (``ocean.duel.DUEL_SUMS``)
        over the games of ``trials`` in ``phase`` that count (none set aside) and carry the duel
        statistics (rows stored before them hold NULL). Summed in the database, over the few
        trials asked for (the game key's index)."""
        g = GameRecord
        won, lost = g.score == 1.0, g.score == 0.0

        def count(*conditions):
            return sa.func.sum(sa.case((sa.and_(*conditions), 1), else_=0))

        sides = {"a": (g.a_first_damage, g.b_first_damage, won, lost, "a", "b"),
                 "b": (g.b_first_damage, g.a_first_damage, lost, won, "b", "a")}
        columns, names = [], []
        for side, (mine, theirs, i_won, i_lost, me, them) in sides.items():
            parts = {"first": sa.func.sum(mine), "first_won": count(mine == 1, i_won),
                     "first_taken": sa.func.sum(theirs), "first_taken_lost": count(theirs == 1, i_lost),
                     "torpedoes": sa.func.sum(getattr(g, f"{me}_torpedoes")),
                     "direct_hits": sa.func.sum(getattr(g, f"{me}_direct_hits")),
                     "torpedo_damage_dealt": sa.func.sum(getattr(g, f"{them}_torpedo_damage_taken")),
                     "mine_damage_dealt": sa.func.sum(getattr(g, f"{them}_mine_damage_taken")),
                     "mine_damage_taken": sa.func.sum(getattr(g, f"{me}_mine_damage_taken")),
                     "surfaces_under_fire": sa.func.sum(getattr(g, f"{me}_surfaces_under_fire"))}
            columns += parts.values()
            names += [(side, k) for k in parts]
        stmt = (sa.select(g.trial, g.opponent, sa.func.count(), *columns)
                .where(g.study == self.study, g.trial.in_(list(trials)), g.phase == phase,
                       g.a_first_damage.is_not(None), sa.func.coalesce(g.set_aside, 0) == 0)
                .group_by(g.trial, g.opponent))
        out: dict[tuple[int, str], dict[str, dict[str, int]]] = {}
        with self._session() as session:
            for trial, opponent, games, *values in session.execute(stmt):
                sides_sums = {"a": {"games": int(games)}, "b": {"games": int(games)}}
                for (side, key), value in zip(names, values):
                    sides_sums[side][key] = int(value or 0)
                out[(int(trial), opponent)] = sides_sums
        return out

    def recent_seconds_per_pair(self, phase: str, games: int = 1000) -> float | None:
        """Compute seconds per map (two games) over the last ``games`` games stored in ``phase``
        (their batches' time per game); None before the first."""
        g = GameRecord
        recent = (sa.select(g.duration_ms).where(g.study == self.study, g.phase == phase)
                  .order_by(g.id.desc()).limit(games).subquery())
        with self._session() as session:
            ms = session.scalar(sa.select(sa.func.avg(recent.c.duration_ms)))
        return None if ms is None else 2 * float(ms) / 1000

    def batch_times(self, phase: str) -> list[tuple[float, int]]:
        """(storage time, games) of every stored round of ``phase`` (the batches stored by one
        statement share a time), oldest first."""
        r = StoredRound
        stmt = (sa.select(r.created_at, sa.func.sum(r.games)).where(r.study == self.study, r.phase == phase)
                .group_by(r.created_at).order_by(r.created_at))
        with self._session() as session:
            return [(float(t), int(n)) for t, n in session.execute(stmt)]

    def recent_rate(self, window: float = 300.0) -> tuple[float | None, float | None]:
        """(games per second over the last ``window`` seconds of activity, time of the last
        stored batch); (None, None) before the first batch.

        The rate counts the games of every batch stored in the window after its first one, over
        the time since that first one: a study paused for a day does not dilute it."""
        r = StoredRound
        with self._session() as session:
            last = session.scalar(sa.select(sa.func.max(r.created_at)).where(r.study == self.study))
            if last is None:
                return None, None
            times = list(session.execute(
                sa.select(r.created_at, sa.func.sum(r.games))
                .where(r.study == self.study, r.created_at >= last - window)
                .group_by(r.created_at).order_by(r.created_at)))
        if len(times) < 2:
            return None, float(last)
        span = times[-1][0] - times[0][0]
        games = sum(n for _, n in times[1:])
        return (games / span if span > 0 else None), float(last)

    # --- leases: which driver owns a running trial --------------------------------------------

    def claim(self, trial: int, owner: str, ttl: float) -> bool:
        """Take the lease of a trial if it is free or expired; True if ``owner`` now holds it."""
        now = time.time()
        return self._take(TrialLease, {"trial": trial}, owner, ttl, heartbeat_at=now) == owner

    def _take(self, model, key: dict, owner: str, ttl: float, **values) -> str | None:
        """The one way a driver takes a row it must hold alone (a trial's lease, a study lock):
        update it if it expired or is ``owner``'s already, else insert it unless another driver
        just did; returns the holder afterwards. Atomic on SQLite and PostgreSQL alike."""
        now = time.time()
        where = [model.study == self.study, *(getattr(model, k) == v for k, v in key.items())]
        with self._session() as session:
            taken = session.execute(sa.update(model)
                                    .where(*where, sa.or_(model.expires_at < now, model.owner == owner))
                                    .values(owner=owner, expires_at=now + ttl, **values))
            if taken.rowcount == 0:
                session.execute(self._insert(model).values(
                    study=self.study, **key, owner=owner, expires_at=now + ttl, **values,
                ).on_conflict_do_nothing(index_elements=["study", *key]))
            return session.scalar(sa.select(model.owner).where(*where))

    def renew(self, owner: str, trials: Iterable[int], ttl: float) -> set[int]:
        """Heartbeat: extend the leases ``owner`` holds on ``trials``; returns the trials it
        still holds (one whose lease ran out and was adopted by another driver is not)."""
        trials = list(trials)
        if not trials:
            return set()
        now = time.time()
        lease = TrialLease
        with self._session() as session:
            session.execute(sa.update(lease)
                            .where(lease.study == self.study, lease.owner == owner, lease.trial.in_(trials))
                            .values(heartbeat_at=now, expires_at=now + ttl))
            held = session.scalars(sa.select(lease.trial).where(
                lease.study == self.study, lease.owner == owner, lease.trial.in_(trials)))
            return {int(t) for t in held}

    def release(self, trial: int, owner: str, *, wait: float | None = None) -> None:
        """Drop a lease once its trial is told (finished, pruned or failed). ``wait``: give up
        (a ``StorageError``) after that many seconds waiting for another writer's lock, rather
        than the database's usual patience (a driver stopping must not hang on a lock)."""
        lease = TrialLease
        with self._session() as session, _lock_wait(session, wait):
            session.execute(sa.delete(lease).where(lease.study == self.study, lease.trial == trial,
                                                   lease.owner == owner))

    def leases(self, trials: Iterable[int]) -> dict[int, tuple[str, float]]:
        """Trial number -> (owner, expires_at) for the given trials that have a lease."""
        trials = sorted(set(trials))
        if not trials:
            return {}
        lease = TrialLease
        with self._session() as session:
            rows = session.execute(sa.select(lease.trial, lease.owner, lease.expires_at).where(
                lease.study == self.study, lease.trial.in_(trials)))
            return {int(t): (owner, float(expires)) for t, owner, expires in rows}

    def drop_leases(self, trials: Iterable[int]) -> int:
        """Remove whatever leases remain on ``trials`` (finished ones: a driver that died between
        telling a trial and releasing it leaves such a row behind); returns how many."""
        trials = sorted(set(trials))
        if not trials:
            return 0
        lease = TrialLease
        with self._session() as session:
            return session.execute(sa.delete(lease).where(lease.study == self.study,
                                                          lease.trial.in_(trials))).rowcount

    # --- study locks: short critical sections between drivers (``tuning.storage.locks.hold``) ---------

    def try_lock(self, name: str, owner: str, ttl: float) -> str | None:
        """Take the lock ``name`` if it is free, expired or already ``owner``'s; returns the
        holder afterwards (``owner`` on success)."""
        return self._take(StudyLock, {"name": name}, owner, ttl)

    def unlock(self, name: str, owner: str) -> None:
        """Release the lock ``name`` if ``owner`` holds it."""
        lock = StudyLock
        with self._session() as session:
            session.execute(sa.delete(lock).where(lock.study == self.study, lock.name == name,
                                                  lock.owner == owner))

    def break_lock(self, name: str, holder: str) -> None:
        """Free the lock ``name`` held by ``holder``, a driver known to be dead."""
        self.unlock(name, holder)

    def bot_errors(self, trial: int, phase: str) -> tuple[int, int, str | None]:
        """(games stored, games the study's bot was disqualified in, the first reason) of a trial."""
        g = GameRecord
        where = (g.study == self.study, g.trial == trial, g.phase == phase)
        with self._session() as session:
            games, errors = session.execute(sa.select(sa.func.count(), sa.func.count(g.a_error)).where(*where)).one()
            first = session.execute(sa.select(g.seed, g.opponent, g.a_error).where(*where, g.a_error.is_not(None))
                                    .order_by(g.id).limit(1)).first()
        text = None if first is None else f"seed {first[0]} against {first[1]}: {first[2]}"
        return games, errors, text

    def trial_faults(self, trial: int, phase: str) -> tuple[int, int]:
        """(games played again because the opponent lost them to its clock or a crash, games set
        aside) of a trial's games in ``phase``, from the summary table."""
        s = GameSums
        stmt = (sa.select(sa.func.sum(s.replayed), sa.func.sum(s.set_aside))
                .where(s.study == self.study, s.trial == trial, s.phase == phase))
        with self._session() as session:
            replayed, aside = session.execute(stmt).one()
        return int(replayed or 0), int(aside or 0)

    def disqualifications(self, phase: str | None = None) -> dict[str, dict]:
        """Per opponent: games, how many the study's bot and the opponent were disqualified in,
        and the first reason of each (of the earliest trial that has one), how many games were
        played again because the opponent lost them to its clock or a crash (``replayed``) and
        how many of those were set aside, from the summary table."""
        s = GameSums
        stmt = (sa.select(s.opponent, s.games, s.a_errors, s.b_errors, s.first_a_error, s.first_b_error,
                          s.replayed, s.set_aside)
                .where(s.study == self.study, *([s.phase == phase] if phase is not None else []))
                .order_by(s.opponent, s.phase, s.trial))  # 'train' before 'validate'
        out: dict[str, dict] = {}
        with self._session() as session:
            for opponent, games, a, b, first_a, first_b, replayed, aside in session.execute(stmt):
                d = out.setdefault(opponent, {"games": 0, "bot": 0, "opponent": 0, "first_bot_error": None,
                                              "first_opponent_error": None, "replayed": 0, "set_aside": 0})
                d["games"] += int(games)
                d["bot"] += int(a)
                d["opponent"] += int(b)
                d["replayed"] += int(replayed or 0)
                d["set_aside"] += int(aside or 0)
                d["first_bot_error"] = d["first_bot_error"] or first_a
                d["first_opponent_error"] = d["first_opponent_error"] or first_b
        return out

    def delete_study_rows(self) -> None:
        """Remove the study's games, leases and validations (Optuna's rows are Optuna's)."""
        with self._session() as session:
            for model in (GameRecord, GameSums, StoredRound, TrialLease, StudyLock, ValidationRecord, ValidationRun):
                session.execute(sa.delete(model).where(model.study == self.study))

    # --- validations ----------------------------------------------------------------------------

    def save_validation(self, **fields) -> None:
        """Insert or replace a trial's latest validation result at its ``time_control`` ("": the
        study's), with the digest of the code that played it, and add it to the validation history
        (``validation_runs``) in the same transaction: an earlier run is never lost."""
        fields.setdefault("time_control", "")
        fields.setdefault("code_digest", code_digest())
        now = time.time()
        v = ValidationRecord
        with self._session() as session:
            if fields.get("chosen"):  # one chosen trial per validation's settings: the latest run's
                session.execute(sa.update(v).where(
                    v.study == self.study, v.time_control == fields["time_control"], v.games == fields["games"],
                    v.seeds == fields["seeds"], v.trial != fields["trial"]).values(chosen=0))
            session.merge(ValidationRecord(study=self.study, updated_at=now, **fields))
            session.add(ValidationRun(study=self.study, trial=fields["trial"], saved_at=now,
                                      record=_json_ready(fields)))

    def validation_runs(self, trial: int | None = None) -> list[ValidationRun]:
        """Every validation result saved for the study (or one trial), oldest first."""
        stmt = sa.select(ValidationRun).where(ValidationRun.study == self.study)
        if trial is not None:
            stmt = stmt.where(ValidationRun.trial == trial)
        with self._session() as session:
            return list(session.scalars(stmt.order_by(ValidationRun.id)))

    def validations(self, time_control: str | None = None) -> list[ValidationRecord]:
        """The validated trials of one validation's settings, best first: the trial the latest
        validation chose, then by score and lower bound. Settings are the time control, the games per opponent and the held-out seed
        range: scores at 5 ms and at 50 ms a turn, on 200 games and on 1,000, or on other maps,
        are not compared. ``time_control`` (a key, see ``ValidationRecord.time_control``): that
        time control's latest settings; None: the latest validation's. Results of earlier
        settings are kept, not ranked; a smaller ``--top`` on the same settings does rank."""
        v = ValidationRecord
        with self._session() as session:
            latest = sa.select(v.games, v.seeds, v.time_control).where(v.study == self.study)
            if time_control is not None:
                latest = latest.where(v.time_control == time_control)
            latest = session.execute(latest.order_by(v.updated_at.desc(), v.trial).limit(1)).first()
            if latest is None:
                return []
            stmt = (sa.select(v).where(v.study == self.study, v.games == latest.games, v.seeds == latest.seeds,
                                       v.time_control == latest.time_control)
                    .order_by(sa.func.coalesce(v.chosen, 0).desc(), v.score.desc(), v.low.desc(), v.trial))
            return list(session.scalars(stmt))

    def validated_time_controls(self) -> list[str]:
        """The time-control keys the study was validated at, the latest first."""
        v = ValidationRecord
        with self._session() as session:
            rows = session.execute(sa.select(v.time_control, sa.func.max(v.updated_at)).where(v.study == self.study)
                                   .group_by(v.time_control).order_by(sa.func.max(v.updated_at).desc())).all()
        return [r[0] for r in rows]
