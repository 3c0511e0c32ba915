"""``tune bench --big-db``: do a study's commands stay usable with thousands of trials and
millions of game rows?

The database is built the way a study builds it: the real driver (``StudyRunner``: Optuna ask
and tell under the ask lock, leases, the games stored by ``GameStore``) runs a study whose
games are synthetic (a pool that answers each batch at once with rows drawn from a seeded
generator, every column filled as a real game fills it), so building costs database time, not
game time. The driver's own time per trial (ask + tell, where Optuna's RDB storage is known to
slow down as trials accumulate) is recorded as it goes. Then, on the built database:

- ``tune status NAME --json`` and ``tune report NAME`` as the user runs them (subprocesses,
  wall time including Python's start-up);
- ``tune resume`` start-up: the driver opening the study and doing everything it does before
  its first batch (incumbent, counts, stale leases, the target check), in this process; the
  Ray start of a real resume does not depend on the database and is left out.
"""
from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from typing import Callable, Iterator

import numpy as np

__all__ = ["run_big_db_bench", "SyntheticPool", "build_study", "time_commands", "BIG_STUDY"]

BIG_STUDY = "bigdb"
_START_SEED = 8_000_000
_PANEL = ("random", "chaser")  # names only: the synthetic pool plays nothing
_WINDOW = 100  # trials on each side of the compared points (trial 100, the last trials)


class SyntheticPool:
    """The ``BatchPool`` interface with made-up games: a batch's rows are drawn from a generator
    seeded by (trial, opponent, first seed), so a rebuild stores the same rows. ``wait`` answers
    every batch submitted so far (a round of many finished batches, as on a busy cluster)."""

    def __init__(self, capacity: int = 64) -> None:
        self.capacity = capacity
        self._queue: deque = deque()

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def full(self) -> bool:
        return len(self._queue) >= self.capacity

    def submit(self, batch, params) -> None:
        self._queue.append(batch)

    def wait(self, timeout):
        from tuning.driver.worker import BatchResult

        out = []
        while self._queue:
            batch = self._queue.popleft()
            rows = synthetic_rows(batch.trial, batch.opponent.name, batch.seeds)
            out.append((batch, BatchResult(rows, 0.0001 * len(rows), 100 * len(rows), "synthetic:0")))
        return out

    def trials(self) -> set[int]:
        return {b.trial for b in self._queue}

    def cancel_trial(self, trial: int) -> int:
        before = len(self._queue)
        self._queue = deque(b for b in self._queue if b.trial != trial)
        return before - len(self._queue)


def synthetic_rows(trial: int, opponent: str, seeds) -> list[dict]:
    """Two games per seed (sides swapped) with every column of a real game's row."""
    from tuning.storage.records import STATS

    rng = np.random.default_rng([trial, sum(map(ord, opponent)), seeds[0]])
    n = 2 * len(seeds)
    outcome = rng.random(n)
    turns = rng.integers(30, 300, n)
    stats = rng.integers(0, 12, (n, 2 * len(STATS)))
    names = [f"{p}_{s}" for p in "ab" for s in STATS]
    rows = []
    for i in range(n):
        winner = "a" if outcome[i] < 0.48 else ("draw" if outcome[i] < 0.5 else "b")
        row = {"seed": seeds[i // 2], "a_side": i % 2, "winner": winner, "a_lives": 2 if winner == "a" else 0,
               "b_lives": 0 if winner == "a" else 3, "turns": int(turns[i]), "end": "life"}
        row.update(zip(names, stats[i].tolist()))
        rows.append(row)
    return rows


def _spec(trials: int, games_per_trial: int, batch_pairs: int):
    from tuning.study.spec import parse_spec

    seeds = max(1, games_per_trial // (2 * len(_PANEL)))
    return parse_spec({"name": BIG_STUDY, "n_trials": trials, "trials_in_flight": 16,
                       "search": {"silence_cost": {}, "stealth_weight": {"low": 0.01, "log": True},
                                  "torpedo_hit_threshold": {}, "mine_spacing": {}},
                       "panel": list(_PANEL), "seed_bank": {"start": _START_SEED, "count": seeds},
                       "batch_pairs": batch_pairs, "sampler": {"kind": "random", "seed": 5},
                       "pruning": {"enabled": False},
                       "validation": {"seeds": {"start": 1, "count": 10}, "games": 20}}, source="bench --big-db")


class _PerTrial:
    """Seconds of each call of the driver's per-trial database work (ask, tell), in order."""

    def __init__(self) -> None:
        self.ask: list[float] = []
        self.tell: list[float] = []

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        import tuning.driver.runner as runner_mod

        cls = runner_mod.StudyRunner
        originals = {"_ask": cls._ask, "_write": cls._write}

        def timed(name, into):
            original = originals[name]

            def call(self_, *args, **kwargs):
                t0 = time.perf_counter()
                try:
                    return original(self_, *args, **kwargs)
                finally:
                    into.append(time.perf_counter() - t0)
            return call

        cls._ask, cls._write = timed("_ask", self.ask), timed("_write", self.tell)
        try:
            yield
        finally:
            cls._ask, cls._write = originals["_ask"], originals["_write"]

    def per_trial_ms(self, lo: int, hi: int) -> float:
        """Median ask + tell milliseconds of the trials created in [lo, hi)."""
        n = min(len(self.ask), len(self.tell))
        lo, hi = max(0, min(lo, n - 1)), max(1, min(hi, n))
        return round(1000 * statistics.median(a + t for a, t in zip(self.ask[lo:hi], self.tell[lo:hi])), 2)


def build_study(url: str, *, trials: int, games_per_trial: int, batch_pairs: int, log) -> dict:
    """Create the big study at ``url`` and run the real driver on synthetic games to ``trials``
    trials (the reference trial included); its build figures."""
    from tuning.driver.runner import StudyRunner
    from tuning.storage.handle import create_study

    handle = create_study(_spec(trials, games_per_trial, batch_pairs), url)
    timings = _PerTrial()
    start = time.perf_counter()
    last = [start]

    def progress(p) -> None:
        if time.perf_counter() - last[0] >= 30:
            last[0] = time.perf_counter()
            log(f"  {p.trials_done} trials, {p.games_done:,} games after {last[0] - start:.0f} s")

    try:
        with timings.installed():
            report = StudyRunner(handle, pool=SyntheticPool(), progress=progress, log=log).run()
        rows = handle.games.count_games()
        created = len(handle.trials())
    finally:
        handle.close()
    del timings.ask[len(timings.tell):]  # the last ask found the target reached: it created nothing
    n = len(timings.tell)
    return {"trials": created, "rows": rows, "build_seconds": round(time.perf_counter() - start, 1),
            "complete": report.complete,
            "per_trial_db_ms_at_100": timings.per_trial_ms(100 - _WINDOW // 2, 100 + _WINDOW // 2),
            "per_trial_db_ms_last": timings.per_trial_ms(n - _WINDOW, n),
            "ask_ms_last": round(1000 * statistics.median(timings.ask[-_WINDOW:]), 2),
            "tell_ms_last": round(1000 * statistics.median(timings.tell[-_WINDOW:]), 2)}


def _command_seconds(args: list[str], cwd: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tuning", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1800)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"tune {args[0]} failed: {done.stderr.strip()[-500:]}")
    return round(seconds, 2)


def _resume_startup_seconds(url: str) -> float:
    from tuning.driver.runner import StudyRunner
    from tuning.storage.handle import open_study

    t0 = time.perf_counter()
    handle = open_study(BIG_STUDY, url)
    try:
        report = StudyRunner(handle, pool=SyntheticPool(), log=lambda line: None).run()
    finally:
        handle.close()
    if report.games or report.complete:
        raise RuntimeError("the big study was not finished: its resume played games")
    return round(time.perf_counter() - t0, 2)


def time_commands(url: str, *, repeats: int = 2) -> dict:
    """Best-of-``repeats`` wall seconds of status, report and resume start-up on the built study."""
    with tempfile.TemporaryDirectory(prefix="bigdb-") as tmp:
        status = min(_command_seconds(["status", BIG_STUDY, "--storage", url, "--json"], tmp) for _ in range(repeats))
        report = _command_seconds(["report", BIG_STUDY, "--storage", url, "--out", os.path.join(tmp, "r.html")], tmp)
    resume = min(_resume_startup_seconds(url) for _ in range(repeats))
    return {"status_seconds": status, "report_seconds": report, "resume_startup_seconds": resume}


def _built(url: str) -> bool:
    import optuna

    from tuning.storage.database import open_storage

    try:
        storage = open_storage(url, must_exist=True)
    except Exception:  # noqa: BLE001 - a missing file or database simply means: build it
        return False
    try:
        return BIG_STUDY in [s.study_name for s in optuna.get_all_study_summaries(storage.optuna, False)]
    finally:
        storage.close()


def _one_backend(url: str, *, trials: int, games_per_trial: int, batch_pairs: int, log) -> dict:
    from tuning.storage.database import mask

    out: dict = {"storage": mask(url)}
    if _built(url):
        log(f"{mask(url)}: study {BIG_STUDY!r} already built there; timing the commands only")
    else:
        log(f"{mask(url)}: building {trials} trials of {games_per_trial} games through the real driver")
        out.update(build_study(url, trials=trials, games_per_trial=games_per_trial, batch_pairs=batch_pairs, log=log))
    out.update(time_commands(url))
    log(f"{mask(url)}: " + ", ".join(f"{k} {v}" for k, v in out.items() if k != "storage"))
    return out


def run_big_db_bench(*, trials: int, games_per_trial: int, batch_pairs: int, storage: str | None,
                     log: Callable[[str], None]) -> dict:
    """Build (or reuse, at ``storage``) the big study and time its commands; without ``storage``
    on a throwaway PostgreSQL database and a temporary SQLite file, both removed afterwards."""
    from benchmarks.scalebench import DEFAULT_PG_ADMIN, PG_ADMIN_ENV, throwaway_postgres

    kw = {"trials": trials, "games_per_trial": games_per_trial, "batch_pairs": batch_pairs, "log": log}
    figures: dict = {"target_trials": trials, "games_per_trial": games_per_trial, "cores": os.cpu_count()}
    if storage:
        figures["given"] = _one_backend(storage, **kw)
        return figures
    with throwaway_postgres(os.environ.get(PG_ADMIN_ENV, DEFAULT_PG_ADMIN), prefix="ocean_bigdb") as url:
        figures["postgresql"] = _one_backend(url, **kw)
    with tempfile.TemporaryDirectory(prefix="bigdb-") as tmp:
        figures["sqlite"] = _one_backend(f"sqlite:///{tmp}/bigdb.db", **kw)
    return figures
