"""The driver: Optuna ask/tell over Ray batches, several trials in flight.

One loop owns everything: it asks Optuna for trials (up to ``trials_in_flight`` open), keeps
the Ray pool full with their batches (oldest trial first, so trials finish early and the
incumbent appears soon), stores each finished batch at once, reports the running score, prunes
trials clearly worse than the incumbent (the study's, as stored: every driver's complete trials,
re-read at most once a second) and tells Optuna when a trial is done.

Crash safety (exercised by ``benchmarks.chaos`` and tests/tuning/driver/test_resilience.py):

- every game is stored as its batch finishes, under a unique key, so a kill loses at most the
  batches in flight and nothing stored is ever replayed or duplicated (on PostgreSQL the worker
  stores its batch, ``tuning.storage.batchstore``; else the driver stores the rows);
- each open trial carries a lease renewed by this driver's heartbeat, and a trial whose driver
  is gone is adopted by another: its stored games are kept, only the missing ones are played,
  with its stored parameters (``tuning.driver.leases``);
- trials are created under a study lock that counts them first, so any number of drivers
  create exactly the target; trial N's random draws are seeded by (sampler seed, N) (an
  unseeded study stores the seed it drew) and it is created with a record of the trials then
  running (``tuning.driver.asking``); its parameters, drawn outside the lock, are drawn from
  the study as it stood then, so an adopter stores exactly what its dead creator would have,
  with every sampler (SPSA keeps theta, perturbation and partner). With one driver and one
  trial in flight a killed and resumed study proposes what an undisturbed one does;
- every database call goes through ``tuning.storage.retry``: an outage is ridden out with
  backoff, or ends the run with one line after ``$OCEAN_DB_PATIENCE`` seconds; a trial is told
  only after all its games are stored, so its value always matches its stored games.
"""
from __future__ import annotations

import math
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, TypeVar

import optuna
from optuna.distributions import BaseDistribution, FloatDistribution, IntDistribution
from optuna.exceptions import UpdateFinishedTrialError
from optuna.trial import TrialState

from tuning.driver.asking import as_asked, ask, keep_stored
from tuning.driver.cluster import cluster_cpus
from tuning.driver.ctrlc import CtrlC
from tuning.driver.evaluation import Batch, plan_batches, summarize
from tuning.driver.faults import BOT_ERROR_WARN, OpponentFaults
from tuning.driver.incumbent import IncumbentWatch
from tuning.driver.leases import HEARTBEAT, LEASE_TTL, STOP_WAIT, Leases
from tuning.driver.pool import BatchPool
from tuning.driver.progress import RunProgress, RunReport
from tuning.driver.spsapairs import common_scores
from tuning.driver.worker import frozen_bot_problem
from tuning.errors import StorageError, TuningError, last_line
from tuning.storage.handle import StudyHandle
from tuning.storage.locks import ASK_LOCK, driver_id, hold
from tuning.storage.optuna_writes import draw_params, store_params, store_user_attrs
from tuning.storage.retry import Retry
from tuning.storage.trialindex import trial_counts
from tuning.study.batching import BatchSizer
from tuning.study.samplers import make_sampler
from tuning.study.space import REFERENCE_TRIAL

__all__ = ["StudyRunner", "RunProgress", "RunReport"]

T = TypeVar("T")
# A trial's running score goes to Optuna (an intermediate value, one write) at most this often.
REPORT_EVERY = 1.0  # seconds
# The incumbent is re-read from the study (every driver's complete trials) at most this often:
# a count in SQL, and the trials only when another driver completed one.
INCUMBENT_EVERY = 1.0  # seconds
MAX_FAILS_IN_A_ROW = 3  # trials failing back to back mean a broken setup, not bad coefficients
TRAIN = "train"
# The opponent of a head-to-head SPSA trial (``[sampler] scoring = "head-to-head"``): the studied
# bot at theta - c delta, against the trial's theta + c delta.
THETA_MINUS = "theta-"
# A program disqualified in more than half of a trial's games (after at least this many) fails the
# trial: its parameters break it, and its score would only measure the breakage.
MIN_GAMES_TO_FAIL = 10


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _suggest(trial: optuna.Trial, name: str, dist: BaseDistribution) -> None:
    """Suggest ``name`` on ``trial`` (fixed values of an enqueued trial win, as in ``ask``)."""
    if isinstance(dist, IntDistribution):
        trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    elif isinstance(dist, FloatDistribution):
        trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)
    else:
        raise TuningError(f"cannot complete parameter {name!r}: unsupported distribution {dist!r}")


@dataclass
class _OpenTrial:
    trial: optuna.Trial
    params: dict
    pending: deque
    planned_batches: int
    planned_games: int
    scores: dict = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)  # user attributes written when the trial is told
    outstanding: int = 0
    games: int = 0  # games stored for the trial
    bot_errors: int = 0  # of which the study's bot (a program) was disqualified in
    first_error: str | None = None
    opponents: list = field(default_factory=list)  # names its score is the mean over
    game_seconds: float = 0.0
    storage_seconds: float = 0.0
    started: float = field(default_factory=time.time)
    reported_at: float = -math.inf  # time.monotonic() of the last intermediate value
    reported_step: int = -1  # its step (games played)

    @property
    def number(self) -> int:
        return self.trial.number


class StudyRunner:
    """Runs a study until it has ``handle.target_trials`` trials (complete, pruned or failed)."""

    def __init__(self, handle: StudyHandle, *, pool: BatchPool | None = None,
                 progress: Callable[[RunProgress], None] | None = None,
                 lease_ttl: float = LEASE_TTL, heartbeat: float = HEARTBEAT, incumbent_every: float = INCUMBENT_EVERY,
                 retry: Retry | None = None, log: Callable[[str], None] = _stderr) -> None:
        self.h = handle
        self.spec = handle.spec
        self.owner = driver_id()
        self.pool = pool  # None: a Ray pool sized to the cluster (tests pass their own)
        self.progress = progress
        self.heartbeat = heartbeat
        self.log = log
        self.retry = retry if retry is not None else Retry(handle.storage.url, name=handle.name, log=log)
        self.leases = Leases(handle, self.owner, ttl=lease_ttl, call=self._db)
        self.seeds = self.spec.training_seeds()
        # Head to head, a trial plays theta+ against theta- instead of the panel (tuning.study.spsa).
        self.h2h = self.spec.sampler.head_to_head
        self.opponents = [THETA_MINUS] if self.h2h else [b.name for b in handle.panel]
        self.games_per_trial = 2 * len(self.seeds) * len(self.opponents)
        self._spsa = make_sampler(self.spec.sampler, handle.space) if self.h2h else None
        self.faults = OpponentFaults(f"tune resume {handle.name}")
        self._warned_bot_errors = False
        self.sizer = BatchSizer(self.spec.batch_pairs)  # maps per batch, fixed or from the game speed
        self.open: dict[int, _OpenTrial] = {}
        self.report = RunReport()
        self.incumbents = IncumbentWatch(handle, pruning=self.spec.pruning, head_to_head=self.h2h,
                                         every=incumbent_every, call=self._db, train=TRAIN)
        self._fails_in_a_row = 0
        self._finished = 0  # trials of the study told (complete, pruned or failed), all drivers
        self._games_done = 0  # training games stored for the study, all runs
        self._target_reached = False  # the study has its target number of trials (all drivers)

    def _db(self, fn: Callable[[], T]) -> T:
        """``fn()`` with the database retried through an outage (see ``tuning.storage.retry``)."""
        return self.retry.call(fn)

    # --- the loop -------------------------------------------------------------------------------

    def run(self) -> RunReport:
        """Play until the target is reached; Ctrl-C stops cleanly (``tune resume`` carries on)."""
        start = time.perf_counter()
        if self.pool is None:
            self.report.workers = cluster_cpus()
            pool = BatchPool(self.report.workers + 1, bot=self.h.bot, time_control=self.spec.time_control,
                             store=self.h.batch_store())
        else:
            pool, self.report.workers = self.pool, self.pool.capacity
        try:
            with CtrlC() as ctrl_c:
                self._loop(pool, ctrl_c)
        except KeyboardInterrupt:  # stopped below, once the traceback is let go (``_stop``)
            self.report.interrupted = True
        finally:
            self.report.wall_seconds = time.perf_counter() - start
            self.report.db_outages = self.retry.outages
        if self.report.interrupted:
            self._stop()
        return self.report

    def _loop(self, pool: BatchPool, ctrl_c: CtrlC) -> None:
        """The driver's loop: ask, fill the pool, store what comes back, until the target."""
        self.incumbents.load()
        finished = self._db(lambda: self.h.trials(TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL))
        self._finished = len(finished)
        self.leases.clear(t.number for t in finished)
        self._games_done = self._db(lambda: self.h.games.count_games(phase=TRAIN))
        if self.sizer.auto:  # a resumed study sizes its first batches from the games it has timed
            self.sizer.assume(self._db(lambda: self.h.games.recent_seconds_per_pair(TRAIN)))
        next_beat = 0.0
        while True:
            ctrl_c.check()
            if time.monotonic() >= next_beat:
                self._beat(pool)
                next_beat = time.monotonic() + self.heartbeat
            while len(self.open) < self.spec.trials_in_flight and not self._target_reached:
                self._target_reached = not self._ask()
            self._fill(pool)
            if not len(pool) and not self.open:
                if not self.leases.others_running(self.open):
                    break
                time.sleep(min(self.heartbeat, 2.0))  # another driver's trials: wait, maybe adopt
                continue
            ready = pool.wait(timeout=self.heartbeat)
            if ready:
                self._on_results(pool, ready)
            self._emit()

    def _stop(self) -> None:
        """After a Ctrl-C, once the traceback is let go (an interrupted write's frames may hold
        its lock): release our trials' leases, each left RUNNING with its games stored; resume
        adopts them. Waits at most STOP_WAIT a lease. Batches in flight are not cancelled: Ray
        ends them with the driver (a cancel racing a completion can crash it, ray#54846)."""
        self.h.storage.let_go()
        for number in list(self.open):
            try:
                self.leases.release(number, retry=False, wait=STOP_WAIT)
            except StorageError:
                pass

    def _beat(self, pool: BatchPool) -> None:
        """Renew our leases, let go of trials we lost, adopt trials whose driver is gone."""
        held = self.leases.renew(self.open)
        for number in [n for n in self.open if n not in held]:
            # Our lease ran out (a long database outage) and another driver adopted the trial:
            # it finishes it from the stored games; playing on would only waste games.
            pool.cancel_trial(number)
            del self.open[number]
            self.report.lost += 1
            self.log(f"trial {number} was taken over by another driver (our lease ran out); leaving it to them")
        self._adopt_orphans()

    def _fill(self, pool: BatchPool) -> None:
        for op in sorted(self.open.values(), key=lambda o: o.number):
            while op.pending and not pool.full:
                pool.submit(op.pending.popleft(), op.params)
                op.outstanding += 1
            if pool.full:
                return

    # --- trials in and out ------------------------------------------------------------------------

    def _sampler_for(self, number: int) -> optuna.samplers.BaseSampler:
        # Seeded by the trial number: trial N draws the same random numbers whichever driver
        # asks it and however often the study was interrupted (a sampler seeded once per
        # process would repeat its first proposals after every resume).
        return make_sampler(self.spec.sampler, self.h.space, stream=number)

    def _ask(self) -> bool:
        """Create the study's next trial and open it; False once the study has its target
        (counting every driver's trials, under the study's ask lock)."""

        def attempt():
            asked = time.perf_counter()
            with hold(self.h.games, ASK_LOCK, self.owner, call=self._db):
                self._lock_waited(time.perf_counter() - asked)
                # Counted in SQL: a list of every trial through Optuna grows with the study.
                counts = trial_counts(self.h.storage.engine, self.h.name)
                existing = sum(counts[s] for s in (TrialState.RUNNING, TrialState.COMPLETE, TrialState.PRUNED,
                                                   TrialState.FAIL))
                if existing >= self.h.target_trials:
                    return None
                # ``existing`` is the number the new trial gets (or the waiting reference, trial 0).
                # The trials running now are recorded with it (``tuning.driver.asking``): every
                # draw of its parameters reads the study as it stands here.
                running = self.h.trials(TrialState.RUNNING)
                trial = ask(self.h.study, running)  # the parameters are drawn below, outside the lock
                return trial, self.leases.claim(trial.number)

        # A repeated attempt (the connection dropped after Optuna committed the trial) counts
        # that trial too: it is left without a lease and adopted, never one too many.
        out = self._db(attempt)
        if out is None:
            return False
        trial, claimed = out
        if claimed:  # else our lock expired mid-way and another driver adopted it: theirs now
            # The sampler's work (TPE reads every finished trial) is done holding only the trial's
            # lease, so other drivers never wait for it; a driver that dies here leaves a trial
            # without parameters, which adoption draws again the same way (``Leases.reopen``):
            # trial N's own sampler, reading the study as it stood at the ask, the parameters in
            # the space's order, stored together in one transaction.
            self._open(self._draw_and_store(trial._trial_id, trial.number), scores={})
        return True

    def _draw_and_store(self, trial_id: int, number: int) -> optuna.Trial:
        """Draw the parameters trial ``number`` (id ``trial_id``) lacks from its own sampler, reading the study
        as it stood when the trial was created, and store them in one transaction; the trial
        (every parameter in ``trial.params``)."""

        def draw() -> optuna.Trial:
            trial = as_asked(self.h.study, trial_id, self._sampler_for(number))

            def suggest(t: optuna.Trial) -> None:
                for name, dist in self.h.space.distributions.items():
                    _suggest(t, name, dist)

            draw_params(trial, suggest)
            store_params(trial)
            return keep_stored(trial)

        return self._db(draw)

    def _lock_waited(self, seconds: float) -> None:
        self.report.ask_lock_waits += 1
        self.report.ask_lock_wait_seconds += seconds
        self.report.ask_lock_wait_max = max(self.report.ask_lock_wait_max, seconds)

    def _open(self, trial: optuna.Trial, scores: dict, errors: tuple[int, int, str | None] = (0, 0, None),
              done: set | None = None) -> None:
        """Open a trial: plan the batches it still needs (all but ``done``, by default its
        ``scores``' pairs) and complete it at once if it needs none."""
        params = self.h.space.full_params(trial.params)
        seeds = self.spec.training_seeds(trial.number)
        pairs = self.sizer.pairs(len(seeds))
        panel, replay = self.h.panel, True
        if self.h2h:
            params, minus = self._perturbation(trial)
            panel, replay = [self.h.bot.with_params(minus, name=THETA_MINUS)], False
        batches = plan_batches(trial=trial.number, phase=TRAIN, panel=panel, seeds=seeds,
                               batch_pairs=pairs, done=scores if done is None else done, replay_opponent=replay)
        # every batch of the full trial is a look of the pruning test
        looks = math.ceil(len(seeds) / pairs) * len(panel)
        op = _OpenTrial(trial, params, deque(batches), looks, self.games_per_trial, dict(scores),
                        opponents=[b.name for b in panel])
        op.games, op.bot_errors, op.first_error = errors
        self.open[trial.number] = op
        if not op.pending:  # adopted with every game already stored
            if self._program_broken(op):
                self._fail_program(None, op)
            else:
                self._complete(op)

    def _perturbation(self, trial: optuna.Trial) -> tuple[dict, dict]:
        """(theta+, theta-) full parameter sets of a head-to-head trial, around its stored theta."""
        frozen = self._db(lambda: self.h.study._storage.get_trial(trial._trial_id))
        plus, minus = self._spsa.perturbation(trial.number, self._spsa.theta_of(frozen))
        return self.h.space.full_params(plus), self.h.space.full_params(minus)

    def _adopt_orphans(self) -> None:
        """Open the RUNNING trials whose driver is gone (``tuning.driver.leases``), while there is
        room for them, from their stored parameters and games."""
        for frozen in self.leases.orphans(self.open, room=lambda: len(self.open) < self.spec.trials_in_flight):
            trial = self.leases.reopen(frozen, self._draw_and_store)
            if trial is None:  # told by its driver between our listing and our claim
                continue
            self.report.adopted += 1
            scores = self._db(lambda: self.h.games.pair_scores(frozen.number, TRAIN))
            aside = self._db(lambda: self.h.games.set_aside_pairs(frozen.number, TRAIN))
            self._open(trial, scores=scores, errors=self._db(lambda: self.h.games.bot_errors(frozen.number, TRAIN)),
                       done=set(scores) | aside)

    def _on_results(self, pool: BatchPool, ready: list[tuple[Batch, object]]) -> None:
        """Handle the batches that finished together: the games their workers did not store
        themselves (``tuning.storage.batchstore``) are stored first, all in one statement and one
        transaction (also those of a trial pruned meanwhile: they were played), then each trial
        they belong to is looked at once: finished, or its running score reported and the
        pruning test run."""
        unstored = [(b, r) for b, r in ready if not isinstance(r, Exception) and not r.stored]
        storage = 0.0
        if unstored:
            t0 = time.perf_counter()
            self._db(lambda: self.h.games.add_batches(
                [(b.trial, TRAIN, b.opponent.name, r.rows, r.seconds) for b, r in unstored]))
            storage = time.perf_counter() - t0
            self.report.storage_seconds += storage
        rows = sum(len(r.rows) for _, r in unstored) or 1
        looks: dict[int, _OpenTrial] = {}
        for batch, result in ready:
            share = 0.0 if isinstance(result, Exception) else storage * len(result.rows) / rows
            op = self._absorb(pool, batch, result, share)
            if op is not None:
                looks[op.number] = op
        for op in looks.values():
            if self.open.get(op.number) is op:  # not failed by a later batch of the same round
                self._look(pool, op)

    def _absorb(self, pool: BatchPool, batch: Batch, result, storage: float) -> _OpenTrial | None:
        """Count a finished (and stored) batch into its trial; the trial if it is still open."""
        op = self.open.get(batch.trial)
        if isinstance(result, Exception):
            problem = frozen_bot_problem(result)
            if problem is not None:  # an opponent, not the trial's coefficients: stop the study
                raise TuningError(problem)
            if op is not None:
                self._fail(pool, op, result)
            return None
        self.report.games += batch.games
        self.report.game_seconds += result.seconds
        self.sizer.observe(len(batch.seeds), result.seconds)
        self._games_done += batch.games
        if op is None:  # its trial was pruned or failed while this batch ran
            self.report.games_wasted += batch.games
            return None
        summary = result.digest(batch.opponent.name)
        if batch.replay_opponent:  # an opponent failing on its clock too often stops the run
            self.faults.add(batch.opponent.name, summary.games, summary.replayed, summary.first_fault)
        op.outstanding -= 1
        op.storage_seconds += storage
        op.game_seconds += result.seconds
        op.games += summary.games
        op.bot_errors += summary.bot_errors
        if op.first_error is None:
            op.first_error = summary.first_error
        if self._program_broken(op):
            self._fail_program(pool, op)
            return None
        op.scores.update(summary.pair_scores)
        return op

    def _look(self, pool: BatchPool, op: _OpenTrial) -> None:
        """After new batches of a trial: tell it if every game is in, else report its running
        score (at most every ``REPORT_EVERY`` seconds: each report is a database write) and
        prune it if it is clearly worse than the incumbent."""
        if not op.pending and op.outstanding == 0:
            self._complete(op)
            return
        now = time.monotonic()
        if now - op.reported_at >= REPORT_EVERY:
            estimate, _ = summarize(op.scores, op.opponents)
            try:  # intermediate value, by games played
                self._db(lambda: op.trial.report(estimate.mean, step=2 * estimate.n))
            except UpdateFinishedTrialError:
                self._drop_finished(pool, op)
                return
            op.reported_at, op.reported_step = now, 2 * estimate.n
        if self._should_prune(op):
            pool.cancel_trial(op.number)
            self._prune(op)

    def _should_prune(self, op: _OpenTrial) -> bool:
        record = self.incumbents.should_prune(op.number, op.scores, op.planned_batches, REFERENCE_TRIAL)
        if record is not None:
            op.attrs["pruned_against"] = record
        return record is not None

    def _write(self, op: _OpenTrial, attrs: dict, **tell) -> bool:
        """Store a trial's attributes, then tell Optuna; False if another driver told it first.

        The attributes go first: a driver killed in between leaves the trial RUNNING, and
        whoever adopts it recomputes them from the stored games before telling."""
        t0 = time.perf_counter()
        attrs = {**op.attrs, **attrs, "game_seconds": round(op.game_seconds, 3),
                 "wall_seconds": round(time.time() - op.started, 3)}
        try:
            # one transaction (Optuna's set_user_attr commits each on its own); storage_seconds:
            # the trial's database time until now
            attrs["storage_seconds"] = round(op.storage_seconds + time.perf_counter() - t0, 4)
            self._db(lambda: store_user_attrs(self.h.study._storage, op.trial._trial_id, attrs))
            # skip_if_finished: a repeated tell (its first commit lost with the connection) is a no-op
            self._db(lambda: self.h.study.tell(op.trial, skip_if_finished=True, **tell))
        except UpdateFinishedTrialError:
            self.open.pop(op.number, None)
            self.report.lost += 1
            self.log(f"trial {op.number} was finished by another driver (our lease ran out); leaving it")
            return False
        self.leases.release(op.number)
        self.report.storage_seconds += time.perf_counter() - t0
        del self.open[op.number]
        self._finished += 1
        return True

    def _drop_finished(self, pool: BatchPool, op: _OpenTrial) -> None:
        pool.cancel_trial(op.number)
        self.open.pop(op.number, None)
        self.report.lost += 1
        self.log(f"trial {op.number} was finished by another driver (our lease ran out); leaving it")

    def _complete(self, op: _OpenTrial) -> None:
        estimate, per = summarize(op.scores, op.opponents)
        if not self._write(op, {**self._spsa_common(op, pruned=False), **self._counts(op),
                                "score_low": estimate.low, "score_high": estimate.high, "pairs": estimate.n,
                                "games": estimate.games,
                                "per_opponent": {name: e.as_dict() for name, e in per.items()}},
                           values=estimate.mean):
            return
        self.report.complete += 1
        self._fails_in_a_row = 0
        self._warn_bot_errors(op)
        self.incumbents.add(op.number, estimate.mean, estimate.low, estimate.high, op.scores)

    def _counts(self, op: _OpenTrial) -> dict:
        """A trial's attributes counting what did not measure its parameters: its games the
        opponent lost to its clock or a crash (played again; set aside if it always did) and its
        own disqualifications (losses, as a rate)."""
        replayed, aside = self._db(lambda: self.h.games.trial_faults(op.number, TRAIN))
        rate = op.bot_errors / op.games if op.games else 0.0
        return {"games_replayed": replayed, "games_set_aside": aside, "bot_errors": op.bot_errors,
                "bot_error_rate": round(rate, 4)}

    def _warn_bot_errors(self, op: _OpenTrial) -> None:
        if self._warned_bot_errors or not op.games or op.bot_errors <= BOT_ERROR_WARN * op.games:
            return
        self._warned_bot_errors = True
        self.log(f"the tuned program was disqualified in {op.bot_errors} of trial {op.number}'s {op.games} games "
                 f"({op.bot_errors / op.games:.0%}; first: {op.first_error}): its own timeouts and crashes count as "
                 "losses, so the study measures them too; give it a longer [time] turn_ms or more time on this "
                 "machine ([time] machine_scale)")

    def _spsa_common(self, op: _OpenTrial, *, pruned: bool) -> dict:
        if self.spec.sampler.kind != "spsa" or self.h2h:
            return {}
        return self._db(lambda: common_scores(self.h, op.number, op.scores, self.opponents, pruned=pruned))

    def _prune(self, op: _OpenTrial) -> None:
        played = 2 * len(op.scores)
        saved = max(0, op.planned_games - played)
        estimate, per = summarize(op.scores, op.opponents)
        if op.reported_step != 2 * estimate.n:
            # Its score when pruned becomes its last intermediate value, whenever the last timed
            # report was: samplers that learn from pruned trials read it (TPE; CMA-ES with
            # consider_pruned_trials), and it must not depend on the wall clock.
            try:
                self._db(lambda: op.trial.report(estimate.mean, step=2 * estimate.n))
            except UpdateFinishedTrialError:
                self.open.pop(op.number, None)
                self.report.lost += 1
                return
        if not self._write(op, {**self._spsa_common(op, pruned=True), **self._counts(op),
                                "score_low": estimate.low, "score_high": estimate.high, "pairs": estimate.n,
                                "games": played, "games_saved": saved,
                                "per_opponent": {name: e.as_dict() for name, e in per.items()}},
                           state=TrialState.PRUNED):
            return
        self.report.pruned += 1
        self.report.games_saved += saved
        self._fails_in_a_row = 0

    def _fail(self, pool: BatchPool, op: _OpenTrial, error: Exception) -> None:
        pool.cancel_trial(op.number)
        message = last_line(error)
        if not self._write(op, {"error": message[:500]}, state=TrialState.FAIL):
            return
        self.report.failed += 1
        self._fails_in_a_row += 1
        if self._fails_in_a_row >= MAX_FAILS_IN_A_ROW:
            raise TuningError(f"{MAX_FAILS_IN_A_ROW} trials in a row failed; the last: {message}")

    def _program_broken(self, op: _OpenTrial) -> bool:
        return op.games >= min(MIN_GAMES_TO_FAIL, op.planned_games) and 2 * op.bot_errors > op.games

    def _fail_program(self, pool: BatchPool | None, op: _OpenTrial) -> None:
        """Fail a trial whose parameters break the program; the study goes on (unless these are
        the program's own defaults: then every trial would measure a broken program)."""
        if pool is not None:
            pool.cancel_trial(op.number)
        message = f"the program was disqualified in {op.bot_errors} of {op.games} games; first: {op.first_error}"
        if not self._write(op, {"error": message[:500], "program_failed": True}, state=TrialState.FAIL):
            return
        self.report.failed += 1
        self.log(f"trial {op.number} failed: {message}")
        if op.number == REFERENCE_TRIAL:
            raise TuningError(f"the program fails with its reference parameters (trial 0): {message}")

    def _emit(self) -> None:
        if self.progress is None:
            return
        inc = self.incumbents.best
        best = None if inc is None else (inc.number, inc.value, inc.low, inc.high)
        self.progress(RunProgress(self._finished, self.h.target_trials, len(self.open), self._games_done,
                                  self.h.target_trials * self.games_per_trial, best))

