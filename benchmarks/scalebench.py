"""``tune bench --scale``: how many batches and game rows one driver and one database keep up with.

A local Ray cluster of ``ray start`` nodes with more logical CPUs than the machine has cores
(a head that plays nothing, ``nodes`` worker nodes of ``cpus_per_node`` CPUs each), a study on
PostgreSQL (a throwaway database unless ``storage`` is given), and games that cost almost
nothing (the random bot against random and chaser: tens of microseconds per game), so that the
driver and the database, not the games, are the bottleneck. The driver is the real
``StudyRunner`` with the real ``BatchPool`` and ``GameStore``; only its study bot is the random
policy instead of the tunable bot (a ``BatchPool`` given to the runner, as tests do).

What it reports:

- the driver's sustained rate: batches and rows handled per second over the middle of the run
  (the ramp-up and the last trials draining are left out);
- where the driver's time goes: each part of the loop timed around the real calls (Ray result
  handling, inserts, Optuna ask / report / tell, the pruning statistics, heartbeats), and the
  time it sat idle waiting for a batch;
- the driver's ceiling: batches and rows per second of *busy* driver time (wall time minus
  idle waiting), what one driver could handle if the workers never made it wait;
- database time per row (the inserts over the rows they stored: the workers' own inserts on
  PostgreSQL, see ``tuning.storage.batchstore``, and any the driver made);
- the projected worker cores one driver can feed with the real bot (its ceiling over the games
  per second one core plays with the tunable bot against the default panel, measured here).
"""
from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
import uuid
from dataclasses import dataclass, field
from typing import Callable, Iterator

__all__ = ["run_scale_bench", "ScaleBenchError", "BenchFailed", "ensure_auth_env", "local_cluster", "throwaway_postgres", "DEFAULT_PG_ADMIN",
           "CLUSTER_SHAPE", "CLUSTER_BOT"]

DEFAULT_PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
PG_ADMIN_ENV = "OCEAN_BENCH_PG"  # the PostgreSQL server the scale bench makes its database on
_START_SEED = 7_500_000
# The cluster study's search space (studies/cluster.toml): the sampler's cost per ask depends on it.
_SEARCH = ("silence_cost", "surface_cost", "torpedo_hit_threshold", "torpedo_hit_threshold_before",
           "trigger_hit_threshold", "stealth_weight", "space_weight", "mine_danger_weight", "retaliation_weight",
           "discount", "mine_spacing", "sonar_window", "engage_distance", "approach_weight", "wall_weight",
           "mine_priority")
# The shape of studies/cluster.toml (tests/tuning/study/test_spec.py checks it against the file): maps
# per opponent, opponents. Projected with fixed batches of 50 maps (the file's setting before
# "auto") and with automatic ones.
CLUSTER_SHAPE = (500, 6)
CLUSTER_BOT = ("tunable-v2", "default-v2")  # the cluster study's policy and panel (a test checks both)
_V1_BOT = ("tunable-v1", "default")  # the same study on the v1 bot: its games are about 3.4 times cheaper
_CLUSTER_MAPS, _CLUSTER_OPPONENTS = CLUSTER_SHAPE
_CLUSTER_PAIRS = 50
_CLUSTER_BATCHES = math.ceil(_CLUSTER_MAPS / _CLUSTER_PAIRS) * _CLUSTER_OPPONENTS  # batches per trial
_CLUSTER_ROWS = 2 * _CLUSTER_PAIRS  # games per batch
_RAY = os.path.join(os.path.dirname(sys.executable), "ray")  # the environment's own ray command


class ScaleBenchError(RuntimeError):
    """A failure the bench explains in one line (the cluster not coming up, the database refusing,
    a second driver failing)."""


class BenchFailed(Exception):
    """The bench failed and has already said why; ``code``: the exit code (2: an error said in
    one line, 1: a bench bug, its traceback shown)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _said(exc: Exception, log: Callable[[str], None]) -> BenchFailed:
    """Say ``exc`` at once: one line for an error of the bench, the database or the system, the
    traceback for anything else (a bug of the bench)."""
    import sqlalchemy as sa

    from tuning.errors import TuningError, last_line

    if isinstance(exc, sa.exc.OperationalError):  # the driver's own words, without SQLAlchemy's link
        lines = str(exc.orig if exc.orig is not None else exc).strip().splitlines()
        log(f"error: {lines[0] if lines else type(exc).__name__}")
        return BenchFailed(2)
    if isinstance(exc, (ScaleBenchError, TuningError, OSError)):
        log(f"error: {last_line(exc)}")
        return BenchFailed(2)
    log("".join(traceback.format_exception(exc)).rstrip())
    return BenchFailed(1)


def _leave_ray() -> None:
    """Disconnect from the cluster while it is still up: Ray's own shutdown at exit, on a cluster
    already stopped, waits about a minute for it before giving up."""
    import ray

    if ray.is_initialized():
        ray.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


def _auth_env() -> dict:
    """The token authentication of the local cluster (Ray turns it on for a head node), as this
    process has it: ``ensure_auth_env`` put it there before Ray was imported."""
    return {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": os.environ["RAY_AUTH_TOKEN"]}


def ensure_auth_env(argv: list[str]) -> None:
    """Make sure this process runs with a Ray token in its environment: Ray reads it once, when
    imported, so without one the command starts itself again (``argv``: its arguments) with a
    fresh token set; the cluster's nodes get the same token."""
    if os.environ.get("RAY_AUTH_MODE") == "token" and os.environ.get("RAY_AUTH_TOKEN"):
        return
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": uuid.uuid4().hex * 2}
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "tuning", *argv], env)


@contextlib.contextmanager
def local_cluster(nodes: int, cpus_per_node: int, *, timeout: float = 180.0,
                  cores: set[int] | None = None) -> Iterator[str]:
    """A head node (no CPUs: it plays nothing) and ``nodes`` worker nodes of ``cpus_per_node``
    logical CPUs, each a ``ray start --block`` process group on loopback; yields the address.
    ``cores``: the machine's cores the nodes (and every worker they start) may run on.
    Every process it started is stopped on exit (by process group, nothing else)."""
    port = _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **_auth_env()}
    env.pop("RAY_ADDRESS", None)
    temp = f"/tmp/rs-{uuid.uuid4().hex[:6]}"  # short: Ray's socket paths must stay under 108 bytes
    common = ["--node-ip-address=127.0.0.1", "--object-store-memory=200000000", "--block"]

    logs = open(f"{temp}.log", "ab")  # the nodes' own output, kept if the cluster does not come up

    def start(args):
        return subprocess.Popen([_RAY, "start", *args, *common], env=env, start_new_session=True,
                                stdout=logs, stderr=subprocess.STDOUT,
                                preexec_fn=None if cores is None else functools.partial(os.sched_setaffinity, 0,
                                                                                        cores))

    procs = [start(["--head", f"--port={port}", "--num-cpus=0", "--include-dashboard=false", f"--temp-dir={temp}"])]
    address = f"127.0.0.1:{port}"
    want = f"/{float(nodes * cpus_per_node)} CPU"
    up = False
    try:
        deadline = time.monotonic() + timeout
        while True:
            status = subprocess.run([_RAY, "status", f"--address={address}"], env=env, capture_output=True,
                                    text=True)
            if status.returncode == 0 and len(procs) == 1:
                # nodes on one host: each needs its own agent ports (the defaults are fixed numbers)
                for _ in range(nodes):  # one at a time: nodes registering at once can fail to join
                    procs.append(start([f"--address={address}", f"--num-cpus={cpus_per_node}",
                                        f"--dashboard-agent-listen-port={_free_port()}",
                                        f"--metrics-export-port={_free_port()}"]))
                    time.sleep(2)
            if want in status.stdout:
                up = True
                break
            for i, proc in enumerate(procs[1:], 1):
                if proc.poll() is not None:  # a node that timed out starting on a loaded machine: again
                    procs[i] = start(proc.args[2:-len(common)])
            if time.monotonic() > deadline:
                raise ScaleBenchError(f"the local Ray cluster did not come up with {nodes * cpus_per_node} CPUs "
                                   f"in {timeout:.0f} s (its nodes' output: {temp}.log)")
            time.sleep(1)
        yield address
    finally:
        for proc in reversed(procs):
            _stop(proc)
        logs.close()
        subprocess.run(["rm", "-rf", temp], check=False)
        if up:
            os.unlink(f"{temp}.log")


@contextlib.contextmanager
def throwaway_postgres(admin_url: str, prefix: str = "ocean_scale") -> Iterator[str]:
    """A new PostgreSQL database on the server of ``admin_url`` (its URL), dropped on exit."""
    import sqlalchemy as sa

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@dataclass
class _Part:
    seconds: float = 0.0
    calls: int = 0


@dataclass
class _Profile:
    """Time spent inside named calls of the driver, installed around the real functions."""

    parts: dict[str, _Part] = field(default_factory=dict)
    _undo: list = field(default_factory=list)
    _depth: int = 0

    def wrap(self, owner, attr: str, part: str) -> None:
        """Time every call of ``owner.attr`` (a class or module attribute) under ``part``; only
        the outermost timed call counts, so parts never count the same second twice."""
        original = getattr(owner, attr)
        slot = self.parts.setdefault(part, _Part())

        @functools.wraps(original)
        def timed(*args, **kwargs):
            if self._depth:
                return original(*args, **kwargs)
            self._depth += 1
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                slot.seconds += time.perf_counter() - t0
                slot.calls += 1
                self._depth -= 1

        setattr(owner, attr, timed)
        self._undo.append((owner, attr, original))

    def restore(self) -> None:
        """Put every wrapped function back."""
        for owner, attr, original in reversed(self._undo):
            setattr(owner, attr, original)
        self._undo.clear()


def _install_profile(profile: _Profile) -> None:
    import ray

    import tuning.driver.pool as pool_mod
    import tuning.driver.runner as runner_mod
    import tuning.driver.worker as worker_mod
    from tuning.storage.gamestore import GameStore

    # idle: the driver blocked until some batch is ready; ray_results: fetching (unpickling) them
    profile.wrap(ray, "wait", "idle_wait")
    profile.wrap(ray, "get", "ray_results")
    profile.wrap(pool_mod.BatchPool, "submit", "ray_submit")
    profile.wrap(pool_mod.BatchPool, "cancel_trial", "ray_submit")
    profile.wrap(GameStore, "add_batches", "inserts")
    profile.wrap(runner_mod.StudyRunner, "_ask", "optuna_ask")
    profile.wrap(runner_mod.StudyRunner, "_write", "optuna_tell")
    profile.wrap(runner_mod.StudyRunner, "_beat", "heartbeat")
    profile.wrap(runner_mod.optuna.Trial, "report", "optuna_report")
    import tuning.driver.incumbent as incumbent_mod

    profile.wrap(runner_mod, "summarize", "pruning_stats")
    profile.wrap(incumbent_mod, "should_prune", "pruning_stats")  # the incumbent's test, in its own module
    profile.wrap(worker_mod.BatchResult, "digest", "pruning_stats")


def _spec(name: str, trials: int, seeds: int, batch_pairs: int, in_flight: int, sampler: str):
    from tuning.study.spec import parse_spec

    return parse_spec({"name": name, "n_trials": trials, "trials_in_flight": in_flight,
                       "search": {k: ({"low": 0.001, "log": True} if k in ("approach_weight", "wall_weight") else {})
                                  for k in _SEARCH},
                       "panel": ["random", "chaser"], "seed_bank": {"start": _START_SEED, "count": seeds},
                       "batch_pairs": batch_pairs, "sampler": {"kind": sampler, "seed": 11, "startup_trials": 50},
                       "pruning": {"enabled": True, "alpha": 0.05, "min_pairs": 50},
                       "validation": {"seeds": {"start": 1, "count": 10}, "games": 20}}, source="bench --scale")


def _warm(pool, params, opponent, workers: int, log, limit: float = 300.0) -> None:
    """Play one-seed batches until ``workers`` worker processes have each played one (a worker
    starting up loads the engine: that must not happen inside the measurement)."""
    from tuning.driver.evaluation import Batch

    seen: set[str] = set()
    start = time.monotonic()
    while len(seen) < workers and time.monotonic() - start < limit:
        for i in range(workers):
            pool.submit(Batch(-1, "warm", opponent, (_START_SEED + i,)), params)
        while len(pool):
            for _, result in pool.wait(timeout=60):
                if isinstance(result, Exception):
                    raise result
                seen.add(result.worker)
    log(f"warm-up: {len(seen)} worker processes ready in {time.monotonic() - start:.1f} s")


def _real_bot_rate(policy: str, panel_name: str, seeds: int = 30) -> float:
    """Games per second one core plays with ``policy`` (its defaults) against ``panel_name``."""
    from ocean.bots import BotSpec, coefficients, panel
    from tuning.driver.worker import play_batch

    params = coefficients.defaults(policy)
    bots = list(panel(panel_name))
    bot = BotSpec("cluster-bot", policy, params)
    play_batch(params, bots[0], [_START_SEED], bot=bot)  # load the compiled kernels
    start = time.perf_counter()
    games = sum(len(play_batch(params, b, list(range(_START_SEED, _START_SEED + seeds)), bot=bot).rows) for b in bots)
    return games / (time.perf_counter() - start)


def _sustained(stamps: list[tuple[float, int]], lo: float = 0.1, hi: float = 0.9) -> tuple[float, float, float]:
    """(batches/s, rows/s, seconds) between the batches at fractions ``lo`` and ``hi`` of the run
    (by count): the steady middle, without the ramp-up nor the draining tail."""
    if len(stamps) < 10:
        return float("nan"), float("nan"), 0.0
    i, j = int(lo * len(stamps)), int(hi * len(stamps))
    span = stamps[j][0] - stamps[i][0]
    rows = sum(n for _, n in stamps[i + 1:j + 1])
    return (j - i) / span, rows / span, span


def _writer(url: str, study: str, writer: int, rows: list, start: float, seconds: float) -> tuple[int, float]:
    """One writer process of the database ceiling: from Unix time ``start`` for ``seconds``,
    stores copies of ``rows`` as new batches of ``study`` through the workers' own path
    (``store_batch``); returns (rows stored, seconds spent storing)."""
    from tuning.storage.batchstore import store_batch

    def store(trial: int) -> None:
        if not store_batch(url, study, trial=trial, phase="train", opponent="random", rows=rows, seconds=1.0):
            raise ScaleBenchError(f"the database at the scale bench's URL refused a batch of study {study}")

    base = (writer + 1) * 1_000_000
    store(base)  # the connection is made before the clock starts
    time.sleep(max(0.0, start - time.time()))
    stored, spent, trial = 0, 0.0, base + 1
    end = start + seconds
    while time.time() < end:
        t0 = time.perf_counter()
        store(trial)
        spent += time.perf_counter() - t0
        stored += len(rows)
        trial += 1
    return stored, spent


def _postgres_cpu_seconds() -> float | None:
    """CPU seconds used so far by this machine's PostgreSQL server processes (None if it shows
    none: a server elsewhere, or no /proc)."""
    total, seen = 0.0, False
    tick = os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:  # gone meanwhile
            continue
        name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        if name.startswith("postgres"):
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            seen = True
    return total if seen else None


def _db_ceiling(url: str, *, writers: int, batch_games: int, seconds: float, log) -> dict:
    """Game rows per second PostgreSQL stores when ``writers`` processes store batches of
    ``batch_games`` games at once, each as a Ray worker does (one bulk insert and the summary
    upsert per batch, its own connection): the database's side of the cluster's rate."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import sqlalchemy as sa

    from ocean.bots import BotSpec, coefficients, resolve_bot
    from tuning.driver.worker import play_batch
    from tuning.storage.gamestore import GameStore

    # real game rows: the random bot stands in for the study's bot (handed v1's coefficients)
    seeds = list(range(_START_SEED, _START_SEED + max(1, batch_games // 2)))
    rows = play_batch(coefficients.defaults(_V1_BOT[0]), resolve_bot("random"), seeds,
                      bot=BotSpec("random", "random", {})).rows
    study = f"scale-db-{uuid.uuid4().hex[:8]}"
    start = time.time() + 5.0 + writers  # time for the processes to start and connect
    log(f"database: {writers} writers storing batches of {len(rows)} games for {seconds:.0f} s")
    with ProcessPoolExecutor(writers, mp_context=multiprocessing.get_context("spawn")) as ex:
        runs = ex.map(_writer, [url] * writers, [study] * writers, range(writers), [rows] * writers,
                      [start] * writers, [seconds] * writers)
        time.sleep(max(0.0, start - time.time()))
        pg0 = _postgres_cpu_seconds()
        done = list(runs)
        pg1 = _postgres_cpu_seconds()
    stored = sum(n for n, _ in done)
    spent = sum(t for _, t in done)
    engine = sa.create_engine(url)
    try:
        games = GameStore(engine, study)
        in_table = games.count_games(phase="train")
        games.delete_study_rows()
    finally:
        engine.dispose()
    if in_table != stored + writers * len(rows):
        raise ScaleBenchError(f"the database ceiling stored {stored + writers * len(rows)} rows but the table holds "
                           f"{in_table}")
    batches = stored // max(1, len(rows))
    return {"db_writers": writers, "db_batch_games": len(rows), "db_rows_per_s": round(stored / seconds, 1),
            "db_batches_per_s": round(batches / seconds, 1),
            "db_ms_per_batch": round(1000 * spent / max(1, batches), 2),
            # the server's own work, whatever the writers' share of the cores: rows per second
            # one server core stores (the writers' connections' backends included)
            "db_server_cpu_seconds": None if pg0 is None or pg1 is None else round(pg1 - pg0, 2),
            "db_rows_per_server_core_s": None if pg0 is None or pg1 is None or pg1 <= pg0
            else round(stored / (pg1 - pg0), 1)}


class _LockWatch:
    """Samples PostgreSQL's own lock waits in the study database while the drivers and workers
    run: every ``interval`` seconds, the sessions waiting for a lock (``pg_stat_activity``,
    ``wait_event_type = 'Lock'``: row locks of the totals, the ask lock's row, Optuna's rows) and
    how long their statement has run. A wait shorter than the interval may go unseen; a long one
    cannot."""

    def __init__(self, url: str, interval: float = 0.1) -> None:
        import threading

        import sqlalchemy as sa

        self._engine = sa.create_engine(url, pool_size=1, max_overflow=0)
        self._interval = interval
        self._stop = threading.Event()
        self._waits: dict[tuple[int, str], float] = {}  # (pid, statement start) -> longest seen
        self._statements: dict[tuple[int, str], str] = {}  # the waiting statement's start
        self._thread = threading.Thread(target=self._run, name="pg-lock-watch", daemon=True)

    def _run(self) -> None:
        import sqlalchemy as sa

        query = sa.text("SELECT pid, CAST(query_start AS text), EXTRACT(EPOCH FROM clock_timestamp() - query_start), "
                        "left(query, 100) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND wait_event_type = 'Lock'")
        with self._engine.connect() as conn:
            while not self._stop.wait(self._interval):
                for pid, started, waited, statement in conn.execute(query):
                    key = (pid, started)
                    if float(waited or 0.0) >= self._waits.get(key, 0.0):
                        self._waits[key] = float(waited or 0.0)
                        self._statements[key] = " ".join(statement.split())
                conn.rollback()  # each sample sees the present, not a snapshot

    def __enter__(self) -> _LockWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._engine.dispose()

    def figures(self) -> dict:
        longest = max(self._waits, key=self._waits.get, default=None)
        # a driver starting waits for the others' table check (the schema guard's advisory lock,
        # once per process); every other wait is the study running
        running = [w for k, w in self._waits.items() if "pg_advisory_lock" not in self._statements[k]]
        return {"pg_lock_waits_seen": len(self._waits),
                "pg_lock_wait_max_s": 0.0 if longest is None else round(self._waits[longest], 3),
                "pg_lock_waits_over_1s": sum(1 for w in self._waits.values() if w > 1.0),
                "pg_lock_wait_longest_statement": None if longest is None else self._statements[longest],
                "pg_lock_wait_max_s_running": round(max(running, default=0.0), 3),
                "pg_lock_waits_over_1s_running": sum(1 for w in running if w > 1.0)}


def _extra_driver() -> None:
    """Entry of the other drivers of ``--drivers N`` (``python -m benchmarks.scalebench``): the
    real driver on the study named by ``$OCEAN_SCALE_STUDY`` at ``$OCEAN_STORAGE`` (the URL
    stays off the command line), playing the same near-free games; prints its report as JSON."""
    import dataclasses
    import json

    from ocean.bots import BotSpec
    from tuning.driver.cluster import cluster_cpus, connect
    from tuning.driver.pool import BatchPool
    from tuning.driver.runner import StudyRunner
    from tuning.storage.handle import open_study

    connect(os.environ["OCEAN_SCALE_ADDRESS"])
    handle = open_study(os.environ["OCEAN_SCALE_STUDY"], os.environ["OCEAN_STORAGE"])
    pool = BatchPool(cluster_cpus() + 1, bot=BotSpec("random", "random", {}), store=handle.batch_store())
    try:
        report = StudyRunner(handle, pool=pool, log=lambda line: None).run()
    finally:
        handle.close()
    print(json.dumps(dataclasses.asdict(report)), flush=True)


def _start_extra_drivers(n: int, url: str, name: str, address: str) -> list[subprocess.Popen]:
    env = {**os.environ, "OCEAN_STORAGE": url, "OCEAN_SCALE_STUDY": name, "OCEAN_SCALE_ADDRESS": address}
    env.pop("RAY_ADDRESS", None)
    return [subprocess.Popen([sys.executable, "-m", "benchmarks.scalebench"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(n)]


def _extra_reports(procs: list[subprocess.Popen]) -> list[dict]:
    import json

    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=3600)
        if proc.returncode != 0:
            raise ScaleBenchError(f"a second driver failed: {stderr.strip()[-800:]}")
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def _duplicates(handle) -> int:
    """Games stored more than once under the same key (extra copies)."""
    from benchmarks.chaos import duplicate_rows

    return duplicate_rows(handle.storage.url, handle.name)


def _measure(url: str, *, address: str, trials: int, seeds: int, batch_pairs: int, in_flight: int,
             sampler: str, log, drivers: int = 1) -> dict:
    """One run of the driver on a fresh study at ``url``; the figures of that run."""
    import optuna
    import ray

    import tuning.driver.runner as runner_mod
    from ocean.bots import BotSpec
    from tuning.driver.cluster import cluster_cpus, connect
    from tuning.driver.pool import BatchPool
    from tuning.storage.batchstore import worker_stores
    from tuning.storage.handle import create_study

    connect(address)
    workers = cluster_cpus()
    name = f"scale-{uuid.uuid4().hex[:8]}"
    handle = create_study(_spec(name, trials, seeds, batch_pairs, in_flight, sampler), url)
    bot = BotSpec("random", "random", {})
    # warm-up batches are not the study's: a pool that stores nothing plays them
    _warm(BatchPool(workers + 1, bot=bot), handle.space.full_params(handle.space.reference_params()),
          handle.panel[0], workers, log)
    pool = BatchPool(workers + 1, bot=bot, store=handle.batch_store())
    stamps: list[tuple[float, int]] = []
    original = runner_mod.StudyRunner._on_results

    worker_store = [0.0, 0]  # seconds the workers spent storing their own games, and those games

    def on_results(self, pool_, ready):  # the real handler, plus a time stamp per batch
        original(self, pool_, ready)
        now = time.perf_counter()
        stamps.extend((now, 0 if isinstance(r, Exception) else b.games) for b, r in ready)
        for b, r in ready:
            if not isinstance(r, Exception) and r.stored:
                worker_store[0] += r.store_seconds
                worker_store[1] += b.games

    profile = _Profile()
    _install_profile(profile)
    runner_mod.StudyRunner._on_results = on_results
    watch = _LockWatch(url) if worker_stores(url) else None
    cpu0 = time.process_time()
    others = _start_extra_drivers(drivers - 1, url, name, address) if drivers > 1 else []
    try:
        with watch or contextlib.nullcontext():
            report = runner_mod.StudyRunner(handle, pool=pool).run()
            extra = _extra_reports(others)
    finally:
        runner_mod.StudyRunner._on_results = original
        profile.restore()
        for proc in others:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    cpu = time.process_time() - cpu0
    rows = handle.games.count_games(phase="train")
    n_trials = len(handle.trials())
    by_trial = handle.games.games_by_trial("train")
    per_trial = 2 * seeds * len(handle.panel)
    complete = [t.number for t in handle.trials() if t.state.name == "COMPLETE"]
    # a complete trial holds exactly its games: none lost, none twice
    short = sum(1 for n in complete if by_trial.get(n, 0) != per_trial)
    duplicates = _duplicates(handle)
    handle.close()
    wall = report.wall_seconds
    batches = len(stamps)
    idle = profile.parts["idle_wait"].seconds
    busy = wall - idle
    b_rate, r_rate, span = _sustained(stamps)
    parts = {k: {"seconds": round(p.seconds, 3), "calls": p.calls, "share_of_busy": round(p.seconds / busy, 4)}
             for k, p in profile.parts.items() if k != "idle_wait"}
    accounted = sum(p.seconds for k, p in profile.parts.items() if k != "idle_wait")
    parts["other"] = {"seconds": round(busy - accounted, 3), "share_of_busy": round((busy - accounted) / busy, 4)}
    inserts = profile.parts["inserts"]
    per_trial_s = (profile.parts["optuna_ask"].seconds + profile.parts["optuna_tell"].seconds) / max(1, n_trials)
    per_batch = (busy - profile.parts["optuna_ask"].seconds - profile.parts["optuna_tell"].seconds) / max(1, batches)
    ray.shutdown()
    return {
        "workers": workers, "trials": n_trials, "batches": batches, "rows": report.games + sum(e["games"] for e in extra),
        "rows_stored": rows,
        "rows_per_batch": round(report.games / max(1, batches), 1),
        "wall_seconds": round(wall, 2), "sustained_window_s": round(span, 2),
        "batches_per_s": round(b_rate, 1), "rows_per_s": round(r_rate, 1),
        "driver_busy_seconds": round(busy, 2), "driver_idle_seconds": round(idle, 2),
        "driver_cpu_seconds": round(cpu, 2),
        "ceiling_batches_per_s": round(batches / busy, 1), "ceiling_rows_per_s": round(report.games / busy, 1),
        # database time per row, wherever it was spent (driver inserts, workers' own inserts)
        "db_ms_per_row": round(1000 * (inserts.seconds + worker_store[0]) / max(1, report.games), 4),
        "db_ms_per_insert_call": round(1000 * inserts.seconds / max(1, inserts.calls), 3),
        "rows_stored_by_workers": worker_store[1],
        "worker_store_ms_per_batch": round(1000 * worker_store[0] / max(1, batches), 3),
        "profile": parts,
        "complete": report.complete, "pruned": report.pruned, "failed": report.failed,
        "drivers": drivers, "duplicate_rows": duplicates,
        "rows_per_s_all_drivers": round(rows / wall, 1),  # every driver's rows over the first one's run
        # every driver's waits for the study's ask lock (the one place drivers wait on each other)
        "ask_lock_wait_max_s": round(max([report.ask_lock_wait_max, *(e["ask_lock_wait_max"] for e in extra)]), 3),
        "ask_lock_wait_mean_ms": round(1000 * (report.ask_lock_wait_seconds + sum(e["ask_lock_wait_seconds"]
                                                                                 for e in extra))
                                       / max(1, report.ask_lock_waits + sum(e["ask_lock_waits"] for e in extra)), 2),
        # PostgreSQL's own lock waits over the run, every driver and worker (sampled; see _LockWatch)
        **(watch.figures() if watch is not None else {}),
        "trials_by_driver": [report.complete + report.pruned + report.failed,
                             *(e["complete"] + e["pruned"] + e["failed"] for e in extra)],
        "rows_by_driver": [report.games, *(e["games"] for e in extra)],
        "games_per_trial": per_trial, "complete_trials_with_wrong_game_count": short,
        # the driver's cost split: per trial (ask, tell) and per batch (everything else)
        "driver_ms_per_trial": round(1000 * per_trial_s, 2), "driver_ms_per_batch": round(1000 * per_batch, 3),
        "driver_cpu_share": round(cpu / wall, 3),
        "ceiling_rows_per_cpu_s": round(report.games / max(cpu, 1e-9), 1),
    }


def run_scale_bench(*, nodes: int, cpus_per_node: int, trials: int, seeds: int, batch_pairs: int,
                    in_flight: int, sampler: str, storage: str | None, log: Callable[[str], None],
                    drivers: int = 1, pin_driver: bool = False, db_writers: int = 0,
                    db_seconds: float = 15.0) -> dict:
    """Start the local cluster, run the driver on a throwaway PostgreSQL database (or
    ``storage``), and return the figures; everything started is stopped and dropped.

    ``pin_driver``: the driver runs on the machine's first core and the Ray nodes on the
    others, as a driver on a machine of its own would (PostgreSQL is not pinned).
    ``db_writers``: then that many processes store batches of the cluster study's automatic
    size for ``db_seconds`` through the workers' own path (the database's ceiling; 0: skip)."""
    from tuning.storage.batchstore import worker_stores
    from tuning.study.batching import BatchSizer

    admin = os.environ.get(PG_ADMIN_ENV, DEFAULT_PG_ADMIN)
    logging.getLogger("ray").setLevel(logging.WARNING)
    cores = sorted(os.sched_getaffinity(0))
    if pin_driver and len(cores) < 2:
        raise ValueError("--pin-driver needs at least two cores (one for the driver, the rest for Ray)")
    real = _real_bot_rate(*CLUSTER_BOT)  # first, on the idle machine
    real_v1 = _real_bot_rate(*_V1_BOT)
    auto_pairs = BatchSizer("auto", seconds_per_pair=2 / real).pairs(_CLUSTER_MAPS)
    try:
        with local_cluster(nodes, cpus_per_node, cores=set(cores[1:]) if pin_driver else None) as address:
            try:
                log(f"Ray: {nodes} nodes x {cpus_per_node} CPUs at {address}"
                    + (f", on cores {cores[1:]}; the driver on core {cores[0]}" if pin_driver else ""))
                with (contextlib.nullcontext(storage) if storage else throwaway_postgres(admin)) as url:
                    if pin_driver:
                        os.sched_setaffinity(0, {cores[0]})
                    try:
                        figures = _measure(url, address=address, trials=trials, seeds=seeds, batch_pairs=batch_pairs,
                                           in_flight=in_flight, sampler=sampler, log=log, drivers=drivers)
                    finally:
                        os.sched_setaffinity(0, cores)
                    if db_writers and worker_stores(url):
                        figures.update(_db_ceiling(url, writers=db_writers, batch_games=2 * auto_pairs,
                                                   seconds=db_seconds, log=log))
            except Exception as exc:
                # said before Ray and the cluster stop: whatever their stopping does, the error is out
                raise _said(exc, log) from None
            finally:
                _leave_ray()
    except ScaleBenchError as exc:  # the cluster did not come up (nothing of Ray to leave)
        raise _said(exc, log) from None
    # The cluster study (studies/cluster.toml): 500 maps x 6 opponents; in batches of 50 maps,
    # 60 batches of 100 games per trial; one driver's rate on that shape, from the costs
    # measured here per batch and per trial (busy time, so slowed by whatever shares the cores).
    batch_s = figures["driver_ms_per_batch"] / 1000 + figures["driver_ms_per_trial"] / 1000 / _CLUSTER_BATCHES
    # The same study with batch_pairs = "auto": batches of about a second of the real bot, so far
    # fewer of them per trial; a trial costs the driver its per-trial work plus its batches'.
    trial_games = _CLUSTER_BATCHES * _CLUSTER_ROWS

    def auto_trial_seconds(pairs: int) -> float:
        batches = math.ceil(_CLUSTER_MAPS / pairs) * _CLUSTER_OPPONENTS
        return figures["driver_ms_per_trial"] / 1000 + batches * figures["driver_ms_per_batch"] / 1000

    auto_batches = math.ceil(_CLUSTER_MAPS / auto_pairs) * _CLUSTER_OPPONENTS
    trial_s = auto_trial_seconds(auto_pairs)
    # the same study shape on the v1 bot (about 3.4 times faster per game: larger automatic
    # batches, and far more rows per worker core)
    v1_pairs = BatchSizer("auto", seconds_per_pair=2 / real_v1).pairs(_CLUSTER_MAPS)
    v1_rows = trial_games / auto_trial_seconds(v1_pairs)
    figures.update({
        "cluster_study_batches_per_s": round(1 / batch_s, 1),
        "cluster_study_rows_per_s": round(_CLUSTER_ROWS / batch_s, 1),
        "projected_worker_cores_cluster_study": int(_CLUSTER_ROWS / batch_s / real),
        "auto_batch_games": 2 * auto_pairs,
        "auto_batches_per_trial": auto_batches,
        "cluster_study_auto_rows_per_s": round(trial_games / trial_s, 1),
        "projected_worker_cores_cluster_study_auto": int(trial_games / trial_s / real),
        "v1_games_per_core_s": round(real_v1, 1),
        "v1_auto_batch_games": 2 * v1_pairs,
        "cluster_study_v1_auto_rows_per_s": round(v1_rows, 1),
        "projected_worker_cores_cluster_study_v1_auto": int(v1_rows / real_v1),
    })
    figures.update({
        "nodes": nodes, "cpus_per_node": cpus_per_node, "cores": os.cpu_count(), "seeds": seeds,
        "driver_pinned": pin_driver,
        "batch_pairs": batch_pairs, "trials_in_flight": in_flight, "sampler": sampler,
        "real_bot_games_per_core_s": round(real, 1),
        "projected_worker_cores": int(figures["ceiling_rows_per_s"] / real),
    })
    log(f"driver: {figures['batches_per_s']} batches/s, {figures['rows_per_s']} rows/s sustained; ceiling "
        f"{figures['ceiling_batches_per_s']} batches/s, {figures['ceiling_rows_per_s']} rows/s of busy time; "
        f"{figures['db_ms_per_row']} ms of database per row")
    return figures


if __name__ == "__main__":  # the other drivers of ``--drivers N``
    _extra_driver()
