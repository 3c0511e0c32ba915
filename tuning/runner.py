"""The driver: Optuna ask/tell over Ray batches, several trials in flight.

One loop owns everything: it asks Optuna for trials (up to ``trials_in_flight`` open), keeps
the Ray pool full with their batches (oldest trial first, so trials finish early and the
incumbent appears soon), stores each finished batch at once, reports the running score, prunes
trials clearly worse than the incumbent and tells Optuna when a trial is done.

Crash safety (designed in, exercised by the next issue's kill tests): each open trial carries
a lease renewed by this driver's heartbeat; every game is stored as its batch finishes, with
a unique key; a RUNNING trial whose lease expired (or whose driver on this host is gone) is
adopted: its stored games are kept and only the missing ones are played.
"""
from __future__ import annotations

import math
import os
import socket
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import optuna
from optuna.trial import TrialState

from tuning.cluster import cluster_cpus
from tuning.errors import TuningError
from tuning.evaluation import pair_scores_of_rows, plan_batches, summarize
from tuning.pool import Batch, BatchPool
from tuning.pruning import should_prune
from tuning.study import REFERENCE_TRIAL, StudyHandle

__all__ = ["StudyRunner", "RunProgress", "RunReport", "LEASE_TTL", "HEARTBEAT", "driver_id"]

LEASE_TTL = 60.0  # seconds a trial stays ours without a heartbeat
HEARTBEAT = 10.0  # seconds between lease renewals (and the loop's longest sleep)
MAX_FAILS_IN_A_ROW = 3  # trials failing back to back mean a broken setup, not bad coefficients
TRAIN = "train"


def driver_id() -> str:
    """host:pid:random — unique per driver process, and tells whether it still lives."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _owner_dead(owner: str) -> bool:
    """True if ``owner`` was a driver on this host whose process is gone."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


@dataclass
class RunProgress:
    """What a progress display needs, after each batch."""

    trials_done: int
    target: int
    running: int
    games_done: int  # training games stored for the study, all runs
    games_planned: int  # target trials x games per trial (pruning makes the real total smaller)
    best: tuple[int, float, float, float] | None  # trial, score, low, high


@dataclass
class RunReport:
    """What one run of the driver did."""

    complete: int = 0
    pruned: int = 0
    failed: int = 0
    adopted: int = 0
    games: int = 0  # games stored by this run
    games_saved: int = 0  # games pruning did not play
    games_wasted: int = 0  # games of batches that finished after their trial was pruned or failed
    game_seconds: float = 0.0  # compute time of the games, summed over workers
    storage_seconds: float = 0.0  # time the driver spent writing to the database
    wall_seconds: float = 0.0
    workers: int = 0
    interrupted: bool = False


@dataclass
class _Incumbent:
    number: int
    value: float
    low: float
    high: float
    scores: dict


@dataclass
class _OpenTrial:
    trial: optuna.Trial
    params: dict
    pending: deque
    planned_batches: int
    planned_games: int
    scores: dict = field(default_factory=dict)
    outstanding: int = 0
    game_seconds: float = 0.0
    storage_seconds: float = 0.0
    started: float = field(default_factory=time.time)

    @property
    def number(self) -> int:
        return self.trial.number


class StudyRunner:
    """Runs a study until it has ``handle.target_trials`` trials (complete, pruned or failed)."""

    def __init__(self, handle: StudyHandle, *, pool: BatchPool | None = None,
                 progress: Callable[[RunProgress], None] | None = None,
                 lease_ttl: float = LEASE_TTL, heartbeat: float = HEARTBEAT) -> None:
        self.h = handle
        self.spec = handle.spec
        self.owner = driver_id()
        self.pool = pool  # None: a Ray pool sized to the cluster (tests pass their own)
        self.progress = progress
        self.lease_ttl = lease_ttl
        self.heartbeat = heartbeat
        self.seeds = self.spec.training_seeds()
        self.opponents = [b.name for b in handle.panel]
        self.games_per_trial = 2 * len(self.seeds) * len(handle.panel)
        # every batch of a full trial is a look of the pruning test
        self.batches_per_trial = math.ceil(len(self.seeds) / self.spec.batch_pairs) * len(handle.panel)
        self.open: dict[int, _OpenTrial] = {}
        self.report = RunReport()
        self.incumbent: _Incumbent | None = None
        self._fails_in_a_row = 0
        self._finished = 0  # trials of the study told (complete, pruned or failed), all drivers
        self._games_done = 0  # training games stored for the study, all runs

    # --- the loop -------------------------------------------------------------------------------

    def run(self) -> RunReport:
        """Play until the target is reached; Ctrl-C stops cleanly (``tune resume`` carries on)."""
        start = time.perf_counter()
        if self.pool is None:
            self.report.workers = cluster_cpus()
            pool = BatchPool(self.report.workers + 1)
        else:
            pool, self.report.workers = self.pool, self.pool.capacity
        self._load_incumbent()
        existing = len(self.h.trials(TrialState.RUNNING, TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL))
        self._finished = len(self.h.trials(TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL))
        self._games_done = self.h.games.count_games(phase=TRAIN)
        next_beat = 0.0
        try:
            while True:
                if time.monotonic() >= next_beat:
                    self.h.games.renew(self.owner, self.open, self.lease_ttl)
                    self._adopt_orphans()
                    next_beat = time.monotonic() + self.heartbeat
                while len(self.open) < self.spec.trials_in_flight and existing < self.h.target_trials:
                    self._ask()
                    existing += 1
                self._fill(pool)
                if not len(pool) and not self.open:
                    if not self._others_running():
                        break
                    time.sleep(min(self.heartbeat, 2.0))  # another driver's trials: wait, maybe adopt
                    continue
                for batch, result in pool.wait(timeout=self.heartbeat):
                    self._on_result(pool, batch, result)
                self._emit()
        except KeyboardInterrupt:
            self.report.interrupted = True
            for number in pool.trials():
                pool.cancel_trial(number)
            for number in list(self.open):
                # Left RUNNING with its games stored; without a lease, resume adopts it at once.
                self.h.games.release(number, self.owner)
        finally:
            self.report.wall_seconds = time.perf_counter() - start
        return self.report

    def _fill(self, pool: BatchPool) -> None:
        for op in sorted(self.open.values(), key=lambda o: o.number):
            while op.pending and not pool.full:
                pool.submit(op.pending.popleft(), op.params)
                op.outstanding += 1
            if pool.full:
                return

    # --- trials in and out ------------------------------------------------------------------------

    def _ask(self) -> None:
        trial = self.h.study.ask(self.h.space.distributions)
        if not self.h.games.claim(trial.number, self.owner, self.lease_ttl):
            raise TuningError(f"trial {trial.number} was just created but another driver holds it")
        self._open(trial, scores={})

    def _open(self, trial: optuna.Trial, scores: dict) -> None:
        params = self.h.space.full_params(trial.params)
        batches = plan_batches(trial=trial.number, phase=TRAIN, panel=self.h.panel, seeds=self.seeds,
                               batch_pairs=self.spec.batch_pairs, done=scores)
        op = _OpenTrial(trial, params, deque(batches), self.batches_per_trial, self.games_per_trial, dict(scores))
        self.open[trial.number] = op
        if not op.pending:  # adopted with every game already stored
            self._complete(op)

    def _others_running(self) -> bool:
        return any(t.number not in self.open for t in self.h.trials(TrialState.RUNNING))

    def _adopt_orphans(self) -> None:
        """Take over RUNNING trials whose driver is gone: expired lease, no lease, or a dead
        process on this host."""
        if len(self.open) >= self.spec.trials_in_flight:
            return
        running = [t for t in self.h.trials(TrialState.RUNNING) if t.number not in self.open]
        if not running:
            return
        leases = self.h.games.leases(t.number for t in running)
        now = time.time()
        for frozen in running:
            if len(self.open) >= self.spec.trials_in_flight:
                return
            lease = leases.get(frozen.number)
            if lease is not None and lease[1] >= now and not _owner_dead(lease[0]):
                continue
            if lease is not None and lease[1] >= now:
                # The holder is dead but its lease is still fresh: make it claimable now.
                self.h.games.release(frozen.number, lease[0])
            if not self.h.games.claim(frozen.number, self.owner, self.lease_ttl):
                continue
            self.report.adopted += 1
            trial = optuna.Trial(self.h.study, frozen._trial_id)
            self._open(trial, scores=self.h.games.pair_scores(frozen.number, TRAIN))

    def _on_result(self, pool: BatchPool, batch: Batch, result) -> None:
        op = self.open.get(batch.trial)
        if isinstance(result, Exception):
            if op is not None:
                self._fail(pool, op, result)
            return
        t0 = time.perf_counter()
        self.h.games.add_games(trial=batch.trial, phase=TRAIN, opponent=batch.opponent.name,
                               rows=result.rows, seconds=result.seconds)
        storage = time.perf_counter() - t0
        self.report.storage_seconds += storage
        self.report.games += batch.games
        self.report.game_seconds += result.seconds
        self._games_done += batch.games
        if op is None:  # its trial was pruned or failed while this batch ran
            self.report.games_wasted += batch.games
            return
        op.outstanding -= 1
        op.storage_seconds += storage
        op.game_seconds += result.seconds
        op.scores.update(pair_scores_of_rows(batch.opponent.name, result.rows))
        estimate, _ = summarize(op.scores, self.opponents)
        op.trial.report(estimate.mean, step=2 * estimate.n)  # intermediate value, by games played
        if not op.pending and op.outstanding == 0:
            self._complete(op)
        elif self._should_prune(op):
            pool.cancel_trial(op.number)
            self._prune(op)

    def _should_prune(self, op: _OpenTrial) -> bool:
        p = self.spec.pruning
        inc = self.incumbent
        if not p.enabled or inc is None or op.number in (REFERENCE_TRIAL, inc.number):
            return False
        decision = should_prune(op.scores, inc.scores, alpha=p.alpha, looks=op.planned_batches,
                                min_pairs=p.min_pairs, margin=p.margin)
        if decision.prune:
            op.trial.set_user_attr("pruned_against", {"incumbent": inc.number, "diff": decision.diff,
                                                      "pairs": decision.pairs, "p_value": decision.p_value})
        return decision.prune

    def _write(self, op: _OpenTrial, attrs: dict, **tell) -> None:
        t0 = time.perf_counter()
        attrs = {**attrs, "game_seconds": round(op.game_seconds, 3),
                 "wall_seconds": round(time.time() - op.started, 3)}
        for key, value in attrs.items():
            op.trial.set_user_attr(key, value)
        op.storage_seconds += time.perf_counter() - t0
        op.trial.set_user_attr("storage_seconds", round(op.storage_seconds, 4))
        self.h.study.tell(op.trial, **tell)
        self.h.games.release(op.number, self.owner)
        self.report.storage_seconds += time.perf_counter() - t0
        del self.open[op.number]
        self._finished += 1

    def _complete(self, op: _OpenTrial) -> None:
        estimate, per = summarize(op.scores, self.opponents)
        self._write(op, {"score_low": estimate.low, "score_high": estimate.high, "pairs": estimate.n,
                         "games": estimate.games,
                         "per_opponent": {name: e.as_dict() for name, e in per.items()}},
                    values=estimate.mean)
        self.report.complete += 1
        self._fails_in_a_row = 0
        if self.incumbent is None or estimate.mean > self.incumbent.value:
            self.incumbent = _Incumbent(op.number, estimate.mean, estimate.low, estimate.high, dict(op.scores))

    def _prune(self, op: _OpenTrial) -> None:
        played = 2 * len(op.scores)
        saved = max(0, op.planned_games - played)
        estimate, per = summarize(op.scores, self.opponents)
        self._write(op, {"score_low": estimate.low, "score_high": estimate.high, "pairs": estimate.n,
                         "games": played, "games_saved": saved,
                         "per_opponent": {name: e.as_dict() for name, e in per.items()}},
                    state=TrialState.PRUNED)
        self.report.pruned += 1
        self.report.games_saved += saved
        self._fails_in_a_row = 0

    def _fail(self, pool: BatchPool, op: _OpenTrial, error: Exception) -> None:
        pool.cancel_trial(op.number)
        message = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
        self._write(op, {"error": message[:500]}, state=TrialState.FAIL)
        self.report.failed += 1
        self._fails_in_a_row += 1
        if self._fails_in_a_row >= MAX_FAILS_IN_A_ROW:
            raise TuningError(f"{MAX_FAILS_IN_A_ROW} trials in a row failed; the last: {message}")

    def _load_incumbent(self) -> None:
        complete = [t for t in self.h.trials(TrialState.COMPLETE) if t.value is not None]
        if complete:
            best = max(complete, key=lambda t: (t.value, -t.number))
            self.incumbent = _Incumbent(best.number, best.value, best.user_attrs.get("score_low", math.nan),
                                        best.user_attrs.get("score_high", math.nan),
                                        self.h.games.pair_scores(best.number, TRAIN))

    def _emit(self) -> None:
        if self.progress is None:
            return
        inc = self.incumbent
        best = None if inc is None else (inc.number, inc.value, inc.low, inc.high)
        self.progress(RunProgress(self._finished, self.h.target_trials, len(self.open), self._games_done,
                                  self.h.target_trials * self.games_per_trial, best))

