"""Crash drills: kill drivers and Ray workers at random moments, then prove nothing was lost.

A drill runs a small study through real driver processes (``tune launch``/``tune resume`` with
every batch logged: ``benchmarks.drill_driver``). It SIGKILLs the driver at random
moments (during start-up, or after a random share of the remaining games is stored, plus a
random delay), SIGKILLs Ray workers in the middle of a batch, restarts the driver each time
(``tune resume``, or ``tune launch --or-resume`` while the study is not created yet) and
finally checks the study against what every kill left behind:

- games lost: rows stored before a kill that are missing or different at the end (must be 0);
- duplicate rows: games stored twice (must be 0);
- games replayed: stored games played again after a kill (must be 0: running trials are
  completed from their stored games, with their stored parameters);
- games wasted: games the workers played beyond what the study needs (counted from the
  workers' batch log, ``$OCEAN_BATCH_LOG``, see ``benchmarks.drill_driver``); at most the
  batches in flight at each kill;
- optionally, equality with an undisturbed run of the same study: per-trial parameters and
  values and every game row.

The long form is a command (the test suite runs a short form of the same code):

    python -m benchmarks.chaos --driver-kills 10 --worker-kills 3
                               [--sampler spsa|spsa-h2h|tpe|cmaes|random] [--storage URL] [--json]

With ``--sampler spsa`` (or spsa-h2h, tpe, cmaes) the drill proves that exact recovery holds for a
sampler that learns from earlier trials: the killed study proposes and stores exactly what the
undisturbed one does (``tuning.driver.asking``). ``spsa-h2h`` is SPSA scored head to head
(``[sampler] scoring = "head-to-head"``): each trial plays its theta+ against its theta-.

Without ``--ray-address`` each driver starts its own local Ray, as ``tune resume`` does; the
processes a killed driver leaves behind (Ray's agents) stay alive while the next driver runs
and are cleaned up after it.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

__all__ = ["chaos_study_toml", "StudyDigest", "read_digest", "duplicate_rows", "inconsistent_trials",
           "compare_digests", "AuditLog", "DriverProcess", "ChaosReport", "Drill", "run_undisturbed",
           "kill_session", "main"]

DEFAULT_PANEL = ("stealth-v1", "hunter-v1")
POLL = 0.02  # seconds between looks at the audit log and the driver
RUN_LIMIT = 900.0  # a driver run taking longer than this is hung: the drill fails (a guard, not a measure)
TRAIN = "train"


# --- the study ----------------------------------------------------------------------------------

SAMPLERS = ("random", "spsa", "spsa-h2h", "tpe", "cmaes")
HEAD_TO_HEAD = "spsa-h2h"  # SPSA scored head to head: one opponent a trial, its own theta-
STARTUP_TRIALS = 2  # TPE's and CMA-ES's random start in a drill: the model proposes from trial 2 on


def chaos_study_toml(name: str, *, n_trials: int = 6, pairs: int = 120, batch_pairs: int = 30,
                     panel: Iterable[str] = DEFAULT_PANEL, seed: int = 7, trials_in_flight: int | None = None,
                     sampler: str = "random") -> str:
    """A study file for drills, without pruning (the games needed are exactly trials x panel x 2
    x pairs). With the random sampler trial N's parameters depend only on the seed and N, so a
    disturbed run must equal an undisturbed one with any number of trials in flight (2 by
    default). SPSA, TPE and CMA-ES (``STARTUP_TRIALS`` random trials first) propose from the
    trials finished when a trial is created; with one trial in flight (their default here) that
    is the trials before it, killed or not, so the disturbed run must equal the undisturbed one
    too."""
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler {sampler!r}: use one of {', '.join(SAMPLERS)}")
    if trials_in_flight is None:
        trials_in_flight = 2 if sampler == "random" else 1
    startup = f"\n        startup_trials = {STARTUP_TRIALS}" if sampler in ("tpe", "cmaes") else ""
    if sampler == HEAD_TO_HEAD:
        sampler, startup = "spsa", '\n        scoring = "head-to-head"'
    opponents = ", ".join(json.dumps(p) for p in panel)
    return textwrap.dedent(f"""\
        name = "{name}"
        n_trials = {n_trials}
        trials_in_flight = {trials_in_flight}
        panel = [{opponents}]
        seed_bank = {{ start = 1000, count = {pairs} }}
        batch_pairs = {batch_pairs}

        [sampler]
        kind = "{sampler}"
        seed = {seed}{startup}

        [search]
        silence_cost = {{}}
        stealth_weight = {{ low = 0.01, log = true }}
        space_weight = {{}}

        [pruning]
        enabled = false

        [validation]
        seeds = {{ start = 900000, count = 10 }}
        games = 4
        top_k = 1
        """)


# --- reading a study without touching it -------------------------------------------------------

def _optuna_storage(url: str):
    from tuning.storage.database import open_optuna_readonly

    # Read-only use: never create tables or migrate a database under a drill, nor race the
    # driver that is creating it.
    return open_optuna_readonly(url)


def _sqlite_missing(url: str) -> bool:
    import sqlalchemy as sa

    parsed = sa.make_url(url)
    return parsed.get_backend_name() == "sqlite" and not Path(parsed.database).exists()


def study_state(url: str, name: str) -> str:
    """'absent', 'partial' (created, spec not stored yet) or 'ready' (spec stored: resumable)."""
    import optuna
    import sqlalchemy as sa

    if _sqlite_missing(url):
        return "absent"
    engine = sa.create_engine(url)
    try:
        tables = set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()
    if not {"studies", "version_info", "study_user_attributes"} <= tables:
        return "absent"  # Optuna's tables are not (all) created yet
    try:
        storage = _optuna_storage(url)
    except (sa.exc.SQLAlchemyError, optuna.exceptions.StorageInternalError, RuntimeError):
        return "absent"  # its version row is not written yet
    try:
        for summary in storage.get_all_studies():
            if summary.study_name == name:
                return "ready" if "ocean_spec" in summary.user_attrs else "partial"
        return "absent"
    except (sa.exc.SQLAlchemyError, optuna.exceptions.StorageInternalError):
        return "absent"
    finally:
        storage.engine.dispose()


_ROW_KEY = ("trial", "phase", "opponent", "seed", "side")


def _row_content_columns():
    from tuning.storage.records import STATS

    return ("winner", "score", "a_lives", "b_lives", "turns", "end_reason",
            *(f"{p}_{s}" for p in "ab" for s in STATS))


@dataclass
class StudyDigest:
    """What a study stored: per-trial state, parameters, value and games count attribute, and
    every training game (key -> content; ids, times and durations left out)."""

    states: dict[int, str] = field(default_factory=dict)
    params: dict[int, dict] = field(default_factory=dict)
    values: dict[int, float | None] = field(default_factory=dict)
    attr_games: dict[int, int | None] = field(default_factory=dict)
    rows: dict[tuple, tuple] = field(default_factory=dict)

    @property
    def running(self) -> dict[int, dict]:
        return {n: p for n, p in self.params.items() if self.states[n] == "RUNNING"}


def read_digest(url: str, name: str) -> StudyDigest:
    """The study as stored right now (empty if it does not exist yet)."""
    import sqlalchemy as sa

    from tuning.storage.records import GameRecord

    digest = StudyDigest()
    if study_state(url, name) == "absent":
        return digest
    storage = _optuna_storage(url)
    try:
        study_id = storage.get_study_id_from_name(name)
        for t in storage.get_all_trials(study_id, deepcopy=False):
            digest.states[t.number] = t.state.name
            digest.params[t.number] = dict(t.params)
            digest.values[t.number] = t.value
            digest.attr_games[t.number] = t.user_attrs.get("games")
    finally:
        storage.engine.dispose()
    engine = sa.create_engine(url)
    try:
        if "ocean_games" not in sa.inspect(engine).get_table_names():
            return digest
        content = _row_content_columns()
        columns = [getattr(GameRecord, c) for c in (*_ROW_KEY, *content)]
        with engine.connect() as conn:
            for row in conn.execute(sa.select(*columns).where(GameRecord.study == name,
                                                                 GameRecord.phase == TRAIN)):
                digest.rows[tuple(row[:5])] = tuple(row[5:])
    finally:
        engine.dispose()
    return digest


def duplicate_rows(url: str, name: str) -> int:
    """Games stored more than once under the same key (extra copies counted)."""
    import sqlalchemy as sa

    from tuning.storage.records import GameRecord as G

    engine = sa.create_engine(url)
    try:
        counts = (sa.select(sa.func.count().label("n"))
                  .where(G.study == name)
                  .group_by(G.trial, G.phase, G.opponent, G.seed, G.side)
                  .having(sa.func.count() > 1).subquery())
        with engine.connect() as conn:
            return int(conn.execute(sa.select(sa.func.coalesce(sa.func.sum(counts.c.n - 1), 0))).scalar())
    finally:
        engine.dispose()


def inconsistent_trials(digest: StudyDigest, opponents: list[str]) -> list[int]:
    """Finished trials whose stored value or games count does not match their stored games
    (a half-written trial)."""
    from tuning.driver.evaluation import summarize

    bad = []
    for number, state in digest.states.items():
        if state != "COMPLETE":
            continue
        rows = {k: v for k, v in digest.rows.items() if k[0] == number}
        pairs: dict[tuple[str, int], list[float]] = {}
        for (_, _, opponent, seed, _), content in rows.items():
            pairs.setdefault((opponent, seed), []).append(content[1])
        scores = {k: sum(v) / 2 for k, v in pairs.items() if len(v) == 2}
        estimate, _ = summarize(scores, opponents)
        value = digest.values[number]
        if value is None or not math.isclose(value, estimate.mean, abs_tol=1e-12) \
                or digest.attr_games.get(number) != len(rows):
            bad.append(number)
    return bad


def compare_digests(got: StudyDigest, want: StudyDigest) -> list[str]:
    """Differences between two finished studies (trial states, parameters, values, game rows)."""
    out = []
    if got.states != want.states:
        out.append(f"trial states differ: {got.states} vs {want.states}")
    for n in sorted(set(got.params) & set(want.params)):
        if got.params[n] != want.params[n]:
            out.append(f"trial {n} parameters differ: {got.params[n]} vs {want.params[n]}")
        if got.values[n] != want.values[n]:
            out.append(f"trial {n} value differs: {got.values[n]} vs {want.values[n]}")
    if got.rows != want.rows:
        missing = len(set(want.rows) - set(got.rows))
        extra = len(set(got.rows) - set(want.rows))
        changed = sum(1 for k in set(got.rows) & set(want.rows) if got.rows[k] != want.rows[k])
        out.append(f"game rows differ: {missing} missing, {extra} extra, {changed} with other results")
    return out


# --- the workers' audit log ---------------------------------------------------------------------

class AuditLog:
    """The JSON lines workers append (``benchmarks.drill_driver.audit``), read incrementally."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: list[dict] = []
        self._offset = 0
        self._partial = b""

    def read(self) -> list[dict]:
        """Entries appended since the last call."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []
        self._offset += len(chunk)
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        new = [json.loads(line) for line in lines if line.strip()]
        self.entries.extend(new)
        return new


def _batch_key(entry: dict) -> tuple:
    return entry["trial"], entry["phase"], entry["opponent"], tuple(entry["seeds"])


def _pair_keys(batch_key: tuple) -> list[tuple]:
    trial, phase, opponent, seeds = batch_key
    return [(trial, phase, opponent, seed, side) for seed in seeds for side in (0, 1)]


# --- processes ------------------------------------------------------------------------------------

def _session_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[3])  # fields after "(comm)": state ppid pgrp session


def kill_session(sid: int) -> int:
    """SIGKILL every process of session ``sid`` (a killed driver's leftovers: its local Ray's
    agents and workers); returns how many were killed."""
    killed = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid() and _session_of(int(entry.name)) == sid:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
    return killed


def _is_ray_worker(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"ray::")
    except OSError:
        return False


class DriverProcess:
    """One ``tune`` driver (``args``: its command line after ``tune``), in its own session (so
    everything it starts can be found). ``audited``: ``tune launch``/``resume`` run by
    ``benchmarks.drill_driver``, which logs every batch to ``$OCEAN_BATCH_LOG`` of ``env``."""

    def __init__(self, args: list[str], *, cwd: Path, env: dict, index: int, audited: bool = False) -> None:
        self.out = cwd / f"driver-{index}.out"
        self.err = cwd / f"driver-{index}.err"
        module = "benchmarks.drill_driver" if audited else "tuning"
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, env=env,
                                         stdout=out, stderr=err, start_new_session=True)
        self.started = time.monotonic()
        self.tag = f"{socket.gethostname()}:{self.proc.pid}"  # as the pool names its driver

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        return self.proc.poll()

    def kill(self) -> None:
        """SIGKILL the driver alone (its local Ray, if any, is left behind as after a crash)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()  # reaped: its pid is gone, as a resumed driver checks

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def stdout(self) -> str:
        return self.out.read_text(errors="replace")


# --- the drill -------------------------------------------------------------------------------------

@dataclass
class KillRecord:
    """One driver kill: when, what was stored, what was in flight."""

    kind: str  # "startup" or "progress"
    seconds: float  # after the driver started
    games_stored: int
    in_flight_games: int  # games of the killed driver's batches not stored at the kill, that a worker
    # started (before or after the kill: a dead driver's tasks may still run), so may be lost
    in_flight_batches: int = 0


@dataclass
class ChaosReport:
    """The figures of a drill; ``ok`` when every guarantee held."""

    driver_kills: int = 0
    driver_kills_requested: int = 0
    worker_kills: int = 0  # verified: killed mid-batch, then retried by Ray in the same driver
    worker_kills_requested: int = 0
    worker_kills_unverified: int = 0  # the batch finished before the signal landed, or its driver died
    driver_runs: int = 0
    trials: int = 0
    target: int = 0
    games_needed: int = 0
    games_stored: int = 0
    games_played: int = 0
    games_lost: int = 0
    duplicate_rows: int = 0
    games_replayed: int = 0
    games_wasted: int = 0
    waste_allowance: int = 0  # games in flight at the kills: the most a kill may cost
    workers: int = 0  # Ray CPUs the drivers saw; a driver keeps workers + 1 batches in flight
    params_changed: int = 0
    inconsistent_trials: int = 0
    reference_differences: list[str] = field(default_factory=list)
    compared_with_reference: bool = False
    leftover_processes_killed: int = 0
    final_exit_code: int | None = None
    problems: list[str] = field(default_factory=list)
    kills: list[KillRecord] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures()

    def failures(self) -> list[str]:
        """Each broken guarantee, one line."""
        out = list(self.problems)
        if self.driver_kills < self.driver_kills_requested:
            out.append(f"only {self.driver_kills} of {self.driver_kills_requested} driver kills happened "
                       "(the study ended first: make it longer)")
        if self.worker_kills < self.worker_kills_requested:
            out.append(f"only {self.worker_kills} of {self.worker_kills_requested} worker kills were verified")
        if self.final_exit_code != 0:
            out.append(f"the last driver exited with {self.final_exit_code}")
        if self.trials != self.target:
            out.append(f"{self.trials} trials, target {self.target}")
        if self.games_stored != self.games_needed:
            out.append(f"{self.games_stored} games stored, {self.games_needed} needed")
        for name in ("games_lost", "duplicate_rows", "games_replayed", "params_changed", "inconsistent_trials"):
            if getattr(self, name):
                out.append(f"{name.replace('_', ' ')}: {getattr(self, name)}")
        crowded = [k for k in self.kills if k.in_flight_batches > self.workers + 1]
        if crowded:
            out.append(f"a kill had {crowded[0].in_flight_batches} batches in flight, more than "
                       f"{self.workers} workers + 1")
        if self.games_wasted > self.waste_allowance:
            out.append(f"{self.games_wasted} games wasted, more than the {self.waste_allowance} in flight at the kills")
        out += [f"differs from the undisturbed run: {d}" for d in self.reference_differences]
        return out

    def summary(self) -> dict:
        """The headline figures (the JSON line of ``--json``)."""
        keys = ("driver_kills", "worker_kills", "driver_runs", "workers", "trials", "games_needed", "games_stored",
                "games_played", "games_lost", "duplicate_rows", "games_replayed", "games_wasted",
                "waste_allowance", "params_changed", "inconsistent_trials", "compared_with_reference",
                "leftover_processes_killed", "seconds")
        out = {k: getattr(self, k) for k in keys}
        out["kills_survived"] = self.driver_kills + self.worker_kills
        out["max_batches_in_flight_at_a_kill"] = max((k.in_flight_batches for k in self.kills), default=0)
        out["reference_differences"] = len(self.reference_differences)
        out["ok"] = self.ok
        out["failures"] = self.failures()
        return out

    def as_dict(self) -> dict:
        data = asdict(self)
        data["ok"] = self.ok
        return data


class Drill:
    """Runs one study through driver and worker kills; see the module docstring."""

    def __init__(self, workdir: Path, url: str, name: str, toml: str, *, ray_address: str | None = None,
                 seed: int = 1, log: Callable[[str], None] = lambda line: None,
                 env: dict | None = None) -> None:
        from tuning.study.spec import parse_spec

        import tomllib

        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.url = url
        self.name = name
        self.spec = parse_spec(tomllib.loads(toml))
        (self.workdir / f"{name}.toml").write_text(toml)
        self.ray_address = ray_address
        self.rng = random.Random(seed)
        self.log = log
        self.audit = AuditLog(self.workdir / f"{name}-batches.jsonl")
        self.env = {**(env if env is not None else os.environ), "OCEAN_STORAGE": url,
                    "OCEAN_BATCH_LOG": str(self.audit.path), "PYTHONUNBUFFERED": "1",
                    "RAY_USAGE_STATS_ENABLED": "0"}
        self.env.pop("RAY_ADDRESS", None)
        # head to head a trial's one opponent is its own theta- (tuning.driver.runner.THETA_MINUS)
        self.opponents = ["theta-"] if self.spec.sampler.head_to_head else list(self.spec.panel)
        self.needed = self.spec.n_trials * len(self.opponents) * 2 * self.spec.pairs_per_opponent
        self.report = ChaosReport(target=self.spec.n_trials, games_needed=self.needed)
        self._runs = 0
        self._stale: list[int] = []  # sessions of killed drivers, cleaned after the next run
        self._killed_keys: set[tuple] = set()
        self._pending_worker: tuple | None = None  # (pid, batch key, driver tag) awaiting its retry
        self._snapshots: list[tuple[StudyDigest, int, str]] = []  # per kill: stored, log position, victim
        self._engine = None

    # --- helpers -------------------------------------------------------------------------------

    def _stored(self) -> int:
        import sqlalchemy as sa

        from tuning.storage.records import GameRecord

        if self._engine is None:
            if study_state(self.url, self.name) == "absent":
                return 0
            self._engine = sa.create_engine(self.url)
        try:
            with self._engine.connect() as conn:
                return int(conn.execute(sa.select(sa.func.count()).select_from(GameRecord).where(
                    GameRecord.study == self.name, GameRecord.phase == TRAIN)).scalar())
        except sa.exc.SQLAlchemyError:
            return 0  # our tables are not created yet

    def _start(self) -> DriverProcess:
        state = study_state(self.url, self.name)
        if state == "ready":
            args = ["resume", self.name]
        else:
            args = ["launch", f"{self.name}.toml", "--or-resume"]
        if self.ray_address:
            args += ["--ray-address", self.ray_address]
        self._runs += 1
        self.log(f"run {self._runs}: tune {' '.join(args)}")
        return DriverProcess(args, cwd=self.workdir, env=self.env, index=self._runs, audited=True)

    def _open_attempts(self, driver: DriverProcess) -> list[tuple[int, tuple]]:
        """(worker pid, batch key) of this driver's batches started and not finished."""
        open_: dict[tuple[int, tuple], None] = {}
        for e in self.audit.entries:
            if e.get("driver") != driver.tag:
                continue
            key = (e["pid"], _batch_key(e))
            if e["event"] == "start":
                open_[key] = None
            else:
                open_.pop(key, None)
        return list(open_)

    def _worker_step(self, driver: DriverProcess, wanted: int) -> None:
        """Kill a worker mid-batch if one is due; confirm the retry of the last one."""
        if self._pending_worker is not None:
            pid, key, tag = self._pending_worker
            for e in self.audit.entries:
                if e["event"] == "done" and _batch_key(e) == key and e.get("driver") == tag:
                    if e["pid"] == pid:  # the batch finished before the signal landed
                        self.report.worker_kills_unverified += 1
                    else:
                        self.report.worker_kills += 1
                        self.log(f"worker {pid} killed mid-batch; Ray retried the batch in worker {e['pid']}")
                    self._pending_worker = None
                    break
            return
        if self.report.worker_kills >= wanted:
            return
        for pid, key in self._open_attempts(driver):
            if key in self._killed_keys or not _is_ray_worker(pid):
                continue
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            self._killed_keys.add(key)
            self._pending_worker = (pid, key, driver.tag)
            return

    def _cleanup_stale(self) -> None:
        for sid in self._stale:
            self.report.leftover_processes_killed += kill_session(sid)
        self._stale = []

    # --- one driver run --------------------------------------------------------------------------

    def _run(self, plan: tuple | None, worker_kills: int) -> tuple[DriverProcess, KillRecord | None]:
        """Start a driver; kill it per ``plan`` (None: let it finish); kill workers meanwhile."""
        driver = self._start()
        stored0 = self._stored()
        goal = None
        if plan is not None and plan[0] == "progress":
            goal = stored0 + max(1, int(plan[1] * (self.needed - stored0)))
        kill_at = None
        last_count = 0.0
        while True:
            self.audit.read()
            self._worker_step(driver, worker_kills)
            if driver.poll() is not None:
                break
            elapsed = time.monotonic() - driver.started
            if elapsed > RUN_LIMIT:
                driver.kill()
                self.report.problems.append(f"run {self._runs} hung for {RUN_LIMIT:.0f} s and was killed")
                break
            if plan is not None and kill_at is None:
                if plan[0] == "startup" and elapsed >= plan[1]:
                    kill_at = time.monotonic()
                elif plan[0] == "progress" and time.monotonic() - last_count >= 0.1:
                    last_count = time.monotonic()
                    if self._stored() >= goal:
                        kill_at = time.monotonic() + plan[2]  # a random moment after the goal
            if kill_at is not None and time.monotonic() >= kill_at:
                return driver, self._kill(driver, plan[0])
            time.sleep(POLL)
        self.audit.read()
        self._worker_step(driver, worker_kills)
        return driver, None

    def _kill(self, driver: DriverProcess, kind: str) -> KillRecord:
        seconds = time.monotonic() - driver.started
        driver.kill()
        if self._pending_worker is not None and self._pending_worker[2] == driver.tag:
            self.report.worker_kills_unverified += 1  # its retry died with the driver
            self._pending_worker = None
        self._cleanup_stale()  # the previous victim's leftovers lived through this whole run
        self._stale.append(driver.pid)
        self.audit.read()
        digest = read_digest(self.url, self.name)
        self._snapshots.append((digest, len(self.audit.entries), driver.tag))
        record = KillRecord(kind, round(seconds, 2), len(digest.rows), 0)
        self.report.kills.append(record)
        self.report.driver_kills += 1
        self.log(f"killed the driver ({kind}) after {seconds:.1f} s: {len(digest.rows)} games stored, "
                 f"{len(digest.running)} trials running")
        return record

    # --- the whole drill --------------------------------------------------------------------------

    def run(self, *, driver_kills: int, worker_kills: int,
            reference: StudyDigest | None = None) -> ChaosReport:
        """Kill the driver ``driver_kills`` times and workers ``worker_kills`` times, finish the
        study, and check it (against ``reference``, an undisturbed run, if given)."""
        start = time.monotonic()
        self.report.driver_kills_requested = driver_kills
        self.report.worker_kills_requested = worker_kills
        try:
            for _ in range(driver_kills):
                if self.rng.random() < 0.3:
                    plan = ("startup", self.rng.uniform(0.2, 6.0))
                else:
                    plan = ("progress", self.rng.uniform(0.03, 0.25), self.rng.uniform(0.0, 0.3))
                driver, record = self._run(plan, worker_kills)
                if record is None:  # it finished (or failed) before the kill: the drill ends here
                    self.report.final_exit_code = driver.poll()
                    if driver.poll() != 0:
                        self.report.problems.append(f"run {self._runs} exited {driver.poll()}: "
                                                    f"{driver.stderr().strip()[-500:]}")
                    break
            else:
                driver, _ = self._run(None, worker_kills)
                self.report.final_exit_code = driver.poll()
                if driver.poll() != 0:
                    self.report.problems.append(f"the last run exited {driver.poll()}: {driver.stderr().strip()[-500:]}")
        finally:
            self._cleanup_stale()
            if self._engine is not None:
                self._engine.dispose()
        self.report.driver_runs = self._runs
        cpus = [int(m) for i in range(1, self._runs + 1)
                for m in re.findall(r"(\d+) Ray CPUs", (self.workdir / f"driver-{i}.err").read_text(errors="replace"))]
        self.report.workers = max(cpus, default=0)
        self._check(reference)
        self.report.seconds = round(time.monotonic() - start, 1)
        return self.report

    def _check(self, reference: StudyDigest | None) -> None:
        r = self.report
        final = read_digest(self.url, self.name)
        r.trials = len(final.states)
        r.games_stored = len(final.rows)
        r.duplicate_rows = duplicate_rows(self.url, self.name) if final.states else 0
        r.inconsistent_trials = len(inconsistent_trials(final, self.opponents))
        unfinished = sorted(n for n, state in final.states.items() if state != "COMPLETE")
        if unfinished:
            r.problems.append(f"trials not complete at the end: {unfinished}")
        entries = self.audit.entries
        done = [e for e in entries if e["event"] == "done" and e["phase"] == TRAIN]
        r.games_played = sum(e["games"] for e in done)
        r.games_wasted = max(0, r.games_played - r.games_stored)
        for record, (snapshot, _, tag) in zip(r.kills, self._snapshots):
            lost = {_batch_key(e) for e in entries if e.get("driver") == tag and e["event"] == "start"
                    and e["phase"] == TRAIN and not set(_pair_keys(_batch_key(e))) <= set(snapshot.rows)}
            record.in_flight_batches = len(lost)
            record.in_flight_games = sum(2 * len(k[3]) for k in lost)
        r.waste_allowance = sum(k.in_flight_games for k in r.kills)
        for snapshot, position, tag in self._snapshots:
            r.games_lost += sum(1 for k, v in snapshot.rows.items() if final.rows.get(k) != v)
            for number, params in snapshot.running.items():
                after = final.params.get(number, {})
                if any(after.get(name) != value for name, value in params.items()):
                    r.params_changed += 1
            stored = set(snapshot.rows)
            for e in entries[position:]:
                if e["event"] == "done" and e["phase"] == TRAIN and e.get("driver") != tag:
                    r.games_replayed += sum(1 for k in _pair_keys(_batch_key(e)) if k in stored)
        if reference is not None:
            r.compared_with_reference = True
            r.reference_differences = compare_digests(final, reference)


def run_undisturbed(workdir: Path, url: str, toml: str, name: str, *, ray_address: str | None = None,
                    env: dict | None = None) -> StudyDigest:
    """Run a drill study once without any kill and return what it stored (the reference)."""
    drill = Drill(workdir, url, name, toml, ray_address=ray_address, env=env)
    report = drill.run(driver_kills=0, worker_kills=0)
    if not report.ok:
        raise RuntimeError("the undisturbed run failed: " + "; ".join(report.failures()))
    return read_digest(url, name)


# --- command line -----------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.chaos``: the long form of the crash tests; exit 0 when all held."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.chaos", description=__doc__.split("\n\n")[0])
    p.add_argument("--driver-kills", type=int, default=10, help="times the driver is SIGKILLed (default 10)")
    p.add_argument("--worker-kills", type=int, default=3, help="Ray workers SIGKILLed mid-batch (default 3)")
    p.add_argument("--trials", type=int, default=8, help="trials of the drill study")
    p.add_argument("--pairs", type=int, default=240, help="maps per opponent (2 games each)")
    p.add_argument("--batch-pairs", type=int, default=40, help="maps per Ray task")
    p.add_argument("--panel", default=",".join(DEFAULT_PANEL), help="opponents, comma-separated")
    p.add_argument("--sampler", choices=SAMPLERS, default="random",
                   help="the study's sampler (default random; spsa, spsa-h2h, tpe and cmaes run one trial in "
                        "flight)")
    p.add_argument("--storage", help="database URL (default: a SQLite file in the work directory); "
                                     "the drill creates studies chaos and chaos-ref there")
    p.add_argument("--ray-address", help="join this Ray cluster (default: each driver starts its own)")
    p.add_argument("--seed", type=int, default=1, help="seed of the kill moments")
    p.add_argument("--workdir", type=Path, help="keep study files, logs and outputs here")
    p.add_argument("--no-reference", action="store_true", help="skip the undisturbed comparison run")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object, last line")
    a = p.parse_args(argv)
    if min(a.driver_kills, a.worker_kills) < 0 or min(a.trials, a.pairs, a.batch_pairs) < 1:
        p.error("kills must be >= 0; --trials, --pairs and --batch-pairs >= 1")
    workdir = a.workdir or Path(tempfile.mkdtemp(prefix="ocean-chaos-"))
    url = a.storage or f"sqlite:///{workdir}/chaos.db"
    panel = [x.strip() for x in a.panel.split(",") if x.strip()]

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    for name in ("chaos", "chaos-ref"):
        if study_state(url, name) != "absent":
            p.error(f"study {name!r} already exists in that storage; use a fresh one")
    study = dict(n_trials=a.trials, pairs=a.pairs, batch_pairs=a.batch_pairs, panel=panel, sampler=a.sampler)
    reference = None
    if not a.no_reference:
        log("undisturbed reference run ...")
        reference = run_undisturbed(workdir / "reference", url, chaos_study_toml("chaos-ref", **study), "chaos-ref",
                                    ray_address=a.ray_address)
    drill = Drill(workdir, url, "chaos", chaos_study_toml("chaos", **study), ray_address=a.ray_address,
                  seed=a.seed, log=log)
    report = drill.run(driver_kills=a.driver_kills, worker_kills=a.worker_kills, reference=reference)
    s = report.summary()
    print(f"kills survived: {s['kills_survived']} ({report.driver_kills} driver, {report.worker_kills} worker); "
          f"{report.driver_runs} driver runs, {report.leftover_processes_killed} leftover processes cleaned")
    print(f"games: {report.games_needed} needed, {report.games_stored} stored, {report.games_played} played; "
          f"lost {report.games_lost}, duplicate rows {report.duplicate_rows}, replayed {report.games_replayed}, "
          f"wasted {report.games_wasted} (in flight at the kills: {report.waste_allowance})")
    print(f"trials: {report.trials} of {report.target}; parameters changed {report.params_changed}, "
          f"half-written {report.inconsistent_trials}; "
          + ("identical to the undisturbed run" if report.compared_with_reference and not report.reference_differences
             else "not compared" if not report.compared_with_reference else "DIFFERENT from the undisturbed run"))
    for failure in report.failures():
        print(f"FAILED: {failure}")
    print(f"{'ok' if report.ok else 'FAILED'} in {report.seconds:.0f} s; files in {workdir}")
    if a.json:
        print(json.dumps(s))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
